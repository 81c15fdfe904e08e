/**
 * The simulator's side of a datapath case (datapath-side.ts): the packets
 * the datapath was sent, in order, conntrack carried from one to the next,
 * run over the choices the datapath makes by hash (LB backends, ECMP
 * members), and compared step by step with what the datapath did.
 *
 * A case holds one or two connections: the first packet with its reply and
 * the first packet again, then, on a topology with load-balancer affinity, a
 * new connection of the same client (datapath-side.ts freshConnection). OVS
 * picks a backend without affinity, and an ECMP member, by a hash of each
 * connection's own 5-tuple, so the new connection's picks are its own: they
 * are tried independently of the first connection's (seed 777 case 391: the
 * first connection's backend was behind the default route and the packet
 * ended in an ARP request for its next hop; the new connection, to a VIP of
 * a load balancer without affinity, went to a backend next door).
 */
import { packetToJSON } from '../../model/packet/format.ts';
import type { SimNetwork } from '../../sim/compile/types.ts';
import { compileNetwork } from '../../sim/compile/network.ts';
import type { ConntrackState } from '../../sim/conntrack/index.ts';
import { simulate, type SimResult } from '../../sim/simulate.ts';
import type { SendPacket } from '../datapath/index.ts';
import type { DiffCase } from './case.ts';
import { compareObserved, DATAPATH_FIELDS, type Observed, observeSim, type VerdictDiff } from './compare.ts';
import { selector } from './simulate-case.ts';

/** A step that differs, and how. */
export interface StepDiff {
  readonly step: number;
  readonly diff: VerdictDiff;
}

export interface StepsOutcome {
  readonly agree: boolean;
  /** The simulator's observations: of the run that agreed, else of the first run tried. */
  readonly sim: readonly Observed[];
  readonly diff?: StepDiff;
  /** The first connection's LB backend pick in the run that agreed (what the datapath picked). */
  readonly lbPick?: number;
}

/** Backends of the largest VIP: the LB picks worth trying. */
function lbPicks(net: SimNetwork): number {
  let n = 1;
  for (const dp of [...net.switches.values(), ...net.routers.values()])
    for (const list of dp.vips.values()) for (const v of list) n = Math.max(n, v.backends.length);
  return Math.min(n, 8);
}

/** At most this many ECMP combinations per LB pick (as simulate-case.ts). */
const MAX_COMBINATIONS = 27;

/**
 * One connection's packets through the simulator from `conntrack`, with one
 * LB pick and ECMP members as given, one per group in the order groups are
 * first met over the connection (a group met again keeps its member);
 * `counts` receives each group's member count.
 */
function simSends(
  net: SimNetwork,
  c: DiffCase,
  sends: readonly SendPacket[],
  conntrack: ConntrackState | undefined,
  members: readonly number[],
  counts: number[],
): SimResult[] {
  const select = selector(c, members, counts);
  const out: SimResult[] = [];
  let ct = conntrack;
  for (const send of sends) {
    if (send.flushConntrack === true) ct = ct?.flushed();
    const r = simulate(net, { inport: send.inport, packet: send.packet, select, ...(ct ? { conntrack: ct } : {}) });
    out.push(r);
    ct = r.conntrack;
  }
  return out;
}

/** Every run of one connection: each LB pick, and each ECMP combination its first run met. */
function* connectionRuns(
  net: SimNetwork,
  c: DiffCase,
  sends: readonly SendPacket[],
  conntrack: ConntrackState | undefined,
): Generator<{ readonly runs: SimResult[]; readonly lbPick: number }> {
  for (let pick = 0; pick < lbPicks(net); pick++) {
    const cp = { ...c, lbPick: c.lbPick + pick };
    // The groups a reply meets count too: the datapath hashes each packet's 5-tuple anew.
    const counts: number[] = [];
    const base = simSends(net, cp, sends, conntrack, [], counts);
    const total = Math.min(
      counts.reduce((a, b) => a * b, 1),
      MAX_COMBINATIONS,
    );
    for (let k = 0; k < total; k++) {
      const members: number[] = [];
      let rest = k;
      for (const n of counts) {
        members.push(rest % n);
        rest = Math.floor(rest / n);
      }
      yield { runs: k === 0 ? base : simSends(net, cp, sends, conntrack, members, []), lbPick: cp.lbPick };
    }
  }
}

const DROPPED: Observed = { verdict: 'dropped', outputs: [] };

/** The first of steps [from, to) that differs. */
function compareSteps(sim: readonly Observed[], dp: readonly Observed[], from: number, to: number) {
  for (let i = from; i < to; i++) {
    const diff = compareObserved(sim[i] ?? DROPPED, dp[i] ?? DROPPED);
    if (diff) return { step: i, diff };
  }
  return undefined;
}

const observe = (r: SimResult): Observed => {
  const { path: _p, ...rest } = observeSim(r, DATAPATH_FIELDS);
  return rest;
};

const sameSend = (a: SendPacket, b: SendPacket): boolean =>
  a.inport === b.inport && JSON.stringify(packetToJSON(a.packet)) === JSON.stringify(packetToJSON(b.packet));

/**
 * The case's packets as connections: the first packet and the `later`
 * packets of its connection, then the new connection `fresh` gives, when
 * `later` ends with it.
 *
 * @example connectionsOf(c, [reply, again, fresh], fresh).map((k) => k.length) // [3, 1]
 */
export function connectionsOf(c: DiffCase, later: readonly SendPacket[], fresh?: SendPacket): SendPacket[][] {
  const all: SendPacket[] = [{ inport: c.inport, packet: c.packet }, ...later];
  const last = all.at(-1)!;
  if (fresh === undefined || all.length < 2 || !sameSend(last, fresh)) return [all];
  return [all.slice(0, -1), [last]];
}

/**
 * The simulator against recorded datapath steps (`dp`, one per packet of
 * `connections`, in order): agrees when one run of each connection, over
 * its LB picks and ECMP combinations, gives its steps, conntrack carried
 * from the run before. `conntrack` is where the first connection starts.
 *
 * @example const o = simAgainstConnections(c, connectionsOf(c, later, freshConnection(c)), dp); o.agree
 */
export function simAgainstConnections(
  c: DiffCase,
  connections: readonly (readonly SendPacket[])[],
  dp: readonly Observed[],
  conntrack?: ConntrackState,
): StepsOutcome {
  const net = compileNetwork(c.topology);
  let first: { sim: Observed[]; diff: StepDiff } | undefined;
  const search = (
    k: number,
    ct: ConntrackState | undefined,
    prefix: readonly Observed[],
  ): { sim: Observed[]; lbPick: number } | undefined => {
    const last = k === connections.length - 1;
    for (const { runs, lbPick } of connectionRuns(net, c, connections[k]!, ct)) {
      const sim = [...prefix, ...runs.map(observe)];
      // The last connection answers for every step the datapath took (a missing one reads as dropped).
      const diff = compareSteps(sim, dp, prefix.length, last ? Math.max(sim.length, dp.length) : sim.length);
      if (diff) {
        first ??= { sim, diff };
        continue;
      }
      const rest = last ? { sim } : search(k + 1, runs.at(-1)!.conntrack, sim);
      if (rest) return { sim: rest.sim, lbPick };
    }
    return undefined;
  };
  const found = search(0, conntrack, []);
  if (found) return { agree: true, sim: found.sim, lbPick: found.lbPick };
  return { agree: false, sim: first!.sim, diff: first!.diff };
}

/**
 * The simulator against real packets (verify/datapath), the judge.
 * No excuse rules on this pair: the verdict, every output port and every
 * output frame's compared fields (TTL, MACs, NAT'd addresses and ports,
 * DSCP, generated packets) must be the same.
 *
 * A case is a connection: the case's packet; then, when it arrived at a
 * port as the same protocol (forwarded, not an error about it), the reply
 * that port's host sends to it as it arrived (addresses, ports and MACs
 * mirrored), entering by that port; then the first packet again, on the
 * established connection. On a topology with load-balancer affinity, last
 * comes a new connection of the same client (the first packet from the next
 * source port), which meets the affinity the first one learned. So
 * conntrack, LB, affinity and NAT state are checked with real traffic. The reply is built from what the datapath delivered and the
 * simulator is given the same packets (its conntrack carried from step to
 * step): where the first step already differs, the case disagrees anyway.
 *
 * The datapath picks LB backends and ECMP members by hash; no option pins
 * them. The simulator is run for every LB backend pick and every ECMP
 * member combination, and the case agrees when one of those runs gives the
 * datapath's observation at every step (as ovn-trace's random ECMP pick is
 * matched, evaluate.ts); the new connection's picks are tried apart from the
 * first connection's, as its own 5-tuple is hashed (sim-steps.ts).
 */
import { dstPort, isIP, type Packet, srcPort, withPorts } from '../../model/packet/packet.ts';
import { affinityTimeout } from '../../model/topology/index.ts';
import { compileNetwork } from '../../sim/compile/network.ts';
import { ConntrackState } from '../../sim/conntrack/index.ts';
import { simulate } from '../../sim/simulate.ts';
import { replyTo } from '../../sim/connection.ts';
import { ICMP4_ECHO_REQUEST, ICMP6_ECHO_REQUEST, IPPROTO_SCTP } from '../../model/packet/fields.ts';
import type { DatapathStep, SendPacket } from '../datapath/index.ts';
import type { DiffCase } from './case.ts';
import { DATAPATH_FIELDS, fieldsOfPacket, type Observed, type VerdictDiff } from './compare.ts';
import { connectionsOf, simAgainstConnections } from './sim-steps.ts';
import type { OvnWorld } from './world.ts';

export interface DatapathOutcome {
  readonly agree: boolean;
  /** The datapath's observation of each packet of the connection. */
  readonly datapath: readonly Observed[];
  /** The simulator's (the run matching the datapath, else the first), step by step. */
  readonly sim: readonly Observed[];
  /** The first step that differs, and how. */
  readonly diff?: { readonly step: number; readonly diff: VerdictDiff };
  /** The packets after the first, as sent (the reply and the first again), for replaying the case. */
  readonly later: readonly SendPacket[];
  /** The LB backend of the simulator run that matched (what the datapath picked). */
  readonly lbPick?: number;
  readonly restarts: number;
  /**
   * vswitchd crashed on this packet of the connection, twice (an OVS bug:
   * no verdict from the datapath for it and what follows); the steps before
   * it are compared. At 0 the datapath judged nothing.
   */
  readonly crashedAt?: number;
  /** Why the datapath judged nothing at all (ovn-controller died installing the topology). */
  readonly unavailable?: string;
  /**
   * The datapath differs from the simulator in a way of its own, shown on
   * this case (see simAgainstSteps); the case agrees under this rule.
   */
  readonly artefact?: DatapathArtefact;
  readonly ms: number;
}

/**
 * Where the judge's datapath itself departs from what OVN's flows ask:
 * `sctp-keyed-by-address`, OVS 3.1's userspace conntrack keys SCTP without
 * ports (see simAgainstSteps).
 */
export type DatapathArtefact = 'sctp-keyed-by-address';

/** The datapath's view of one packet, in the difftest's compared form. */
export function observeDatapath(step: DatapathStep): Observed {
  return {
    verdict: step.verdict,
    outputs: step.outputs.map((o) => ({ port: o.port, packet: fieldsOfPacket(o.packet, DATAPATH_FIELDS) })),
  };
}

const isEchoRequest = (p: Packet): boolean =>
  p['icmp4.type'] === ICMP4_ECHO_REQUEST || p['icmp6.type'] === ICMP6_ECHO_REQUEST;

/** The reply a host sends to the packet as it arrived (the simulator's own definition, shared with probes). */
export const hostReply = replyTo;

/**
 * Where the first packet arrived as itself (same IP protocol; an echo
 * request still one), the first such output by port name: the reply's
 * sender. Undefined when nothing answers.
 */
export function replyOf(first: Packet, outputs: readonly { port: string; packet: Packet }[]): SendPacket | undefined {
  if (!isIP(first)) return undefined;
  const same = outputs
    .filter((o) => o.packet['ip.proto'] === first['ip.proto'] && (!isEchoRequest(first) || isEchoRequest(o.packet)))
    .sort((a, b) => (a.port < b.port ? -1 : a.port > b.port ? 1 : 0));
  const o = same[0];
  const reply = o && hostReply(o.packet);
  return o && reply ? { inport: o.port, packet: reply } : undefined;
}

/**
 * A new connection of the case's client, for topologies with load-balancer
 * affinity: the first packet from the next source port (TCP, UDP, SCTP).
 *
 * An SCTP one comes after a conntrack flush, on both sides (the learned
 * affinity stays): OVS 3.1's userspace conntrack keys SCTP without ports
 * (lib/conntrack.c extract_l4 reads L4 keys of TCP, UDP and ICMP only;
 * SCTP support came after 3.1), so on this datapath a second SCTP
 * connection between the same addresses is the first one again, already
 * DNATed, and OVN's affinity stages drop it (measured on the chassis:
 * every SCTP packet of the client to the VIP dropped while the entry
 * lived; seed 4242 case 922). The kernel's conntrack keys SCTP by ports,
 * as the simulator does; the flush gives the new connection what it has
 * there, a conntrack with no entry for it.
 */
export function freshConnection(c: DiffCase): SendPacket | undefined {
  const affinity = [...c.topology.loadBalancer.values()].some((lb) => affinityTimeout(lb) !== 0);
  const sport = srcPort(c.packet);
  if (!affinity || sport === undefined) return undefined;
  const packet = withPorts(c.packet, sport === 65535 ? 1024 : sport + 1, dstPort(c.packet)!);
  return { inport: c.inport, packet, ...(packet['ip.proto'] === IPPROTO_SCTP ? { flushConntrack: true } : {}) };
}

/**
 * The connection's later packets, as sent after the first: the reply (when
 * the first arrived) and the first packet again, then a new connection of
 * the same client where the topology has affinity.
 */
export function laterOfConnection(c: DiffCase, first: DatapathStep): SendPacket[] {
  const reply = replyOf(c.packet, first.outputs);
  const fresh = freshConnection(c);
  return [...(reply ? [reply, { inport: c.inport, packet: c.packet }] : []), ...(fresh ? [fresh] : [])];
}

/** The connection's later packets, one at a time for the oracle (see laterOfConnection). */
export function nextOfConnection(c: DiffCase): (steps: readonly DatapathStep[]) => SendPacket | undefined {
  return (steps) => laterOfConnection(c, steps[0]!)[steps.length - 1];
}

/**
 * The simulator against recorded datapath steps: the first packet, then
 * `later` (as the datapath was sent them), the new connection among them
 * judged on picks of its own (sim-steps.ts).
 */
export function simAgainstSteps(
  c: DiffCase,
  later: readonly SendPacket[],
  dp: readonly Observed[],
): Pick<DatapathOutcome, 'agree' | 'sim' | 'diff' | 'lbPick' | 'artefact'> {
  const connections = connectionsOf(c, later, freshConnection(c));
  const r = simAgainstConnections(c, connections, dp);
  if (r.agree || !connections.flat().some((s) => s.packet['ip.proto'] === IPPROTO_SCTP)) return r;
  // The simulator keys SCTP by ports (the kernel's conntrack does), the judge's userspace conntrack by
  // addresses alone: two SCTP packets between the same addresses are one connection there (seed 777 case 591:
  // a client that answered the ABORT of its own hairpin, from its own address to itself, was taken for the reply of
  // its connection to the VIP and routed away). Such a case agrees only when the simulator, keying SCTP as the
  // datapath does and nothing else changed, gives every step the datapath gave: the keying is then what differed.
  const byAddress = simAgainstConnections(c, connections, dp, ConntrackState.EMPTY_SCTP_BY_ADDRESS);
  return byAddress.agree ? { ...byAddress, artefact: 'sctp-keyed-by-address' } : r;
}

/**
 * The case through the datapath (already loaded into the world) and the
 * simulator; see the file header.
 *
 * @example const o = await evaluateDatapath(world, c); o.agree || console.log(o.diff);
 */
export async function evaluateDatapath(world: OvnWorld, c: DiffCase): Promise<DatapathOutcome> {
  if (world.datapath === undefined) throw new Error('evaluateDatapath: the world has no datapath');
  const t0 = performance.now();
  // Frames pinctrl makes (ARP requests, ICMP errors) come late on a loaded machine, and pinctrl does not send a
  // second ARP request for an address it is still resolving: when the simulator expects one, the first run waits
  // long already (a recheck would find pinctrl quiet). Seen in CI: seed 20231103 case 157, an ARP request missed.
  const pinctrl = simulate(compileNetwork(c.topology), { inport: c.inport, packet: c.packet }).outputs.some(
    (o) => o.generated !== undefined,
  );
  const first = await judge(world, c, pinctrl ? RECHECK_SETTLE_MS : undefined);
  // A disagreement is measured again with a long wait for pinctrl: a late ICMP error or ARP request
  // on a loaded machine must not pass for a simulator bug.
  const { run, dp, later, sim } = first.sim.agree ? first : await judge(world, c, RECHECK_SETTLE_MS);
  const crash = {
    ...(run.crashedAt === undefined ? {} : { crashedAt: run.crashedAt }),
    ...(run.unavailable === undefined ? {} : { unavailable: run.unavailable }),
  };
  return { ...sim, datapath: dp, later, restarts: run.restarts, ...crash, ms: performance.now() - t0 };
}

const RECHECK_SETTLE_MS = 500;

async function judge(world: OvnWorld, c: DiffCase, settleMs?: number) {
  const run = await world.datapath!({
    packets: [{ inport: c.inport, packet: c.packet }],
    next: nextOfConnection(c),
    ...(settleMs === undefined ? {} : { settleMs }),
  });
  const dp = run.steps.map(observeDatapath);
  const sent: SendPacket[] = run.steps.length > 0 ? laterOfConnection(c, run.steps[0]!) : [];
  // Only the packets the datapath answered are compared (a crash ends the run early).
  const later = sent.slice(0, Math.max(0, dp.length - 1));
  const sim = dp.length === 0 ? { agree: true, sim: [] } : simAgainstSteps(c, later, dp);
  return { run, dp, later, sim };
}

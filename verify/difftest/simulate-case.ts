/**
 * The simulator's side of a case: the packet through `simulate` with the
 * case's choices. The LB backend is the case's `lbPick` (mod the backend
 * count), and is reported as text so ovn-trace can be told the same
 * (`--lb-dst`). ECMP members (routes and reroute policies) are numbered
 * differently by northd (its member ids follow its own route order), so the
 * simulator's member cannot be named to ovn-trace: `simulateCase` returns
 * the run for every combination of ECMP members, and the comparison accepts
 * the ones that took ovn-trace's members (see ecmp.ts).
 */
import type { LbVip, SimNetwork } from '../../sim/compile/types.ts';
import { compileNetwork } from '../../sim/compile/network.ts';
import type { Choice, Selector } from '../../sim/pipeline/run.ts';
import { simulate, type SimResult } from '../../sim/simulate.ts';
import type { DiffCase } from './case.ts';

export interface SimRun {
  readonly result: SimResult;
  /** The backend the simulator picked for the first multi-backend VIP, as `ip[:port]` / `[ip6]:port`. */
  readonly lbBackend?: string;
  /** ECMP member index per ECMP choice, in the order they were made (a group met again repeats its member). */
  readonly ecmp: readonly number[];
  /** The ECMP members asked for, one per group in the order groups are first met ({@link selector}). */
  readonly members: readonly number[];
}

/** At most this many ECMP combinations per case (3 choices of 2–3 members). */
const MAX_COMBINATIONS = 27;

function vipsOf(net: SimNetwork): LbVip[] {
  const out: LbVip[] = [];
  for (const dp of [...net.switches.values(), ...net.routers.values()])
    for (const list of dp.vips.values()) out.push(...list);
  return out;
}

function backendText(net: SimNetwork, key: string, index: number): string | undefined {
  const vip = vipsOf(net).find((v) => `${v.lb.name}|${v.vipText}` === key);
  return vip?.backends[index]?.text;
}

/**
 * Picks the case's LB backend and the given ECMP members, one per ECMP
 * group (route or policy) in the order the groups are first met; records
 * each group's member count. A group met again in the same run (a packet
 * that loops through a router, a reply through the same router) gets the
 * same member: OVS selects the bucket by a hash of the packet's 5-tuple,
 * which routing does not change, and ovn-trace's --select-id picks the
 * same bucket id at every `select` of a group.
 */
export function selector(c: DiffCase, ecmp: readonly number[], counts: number[]): Selector {
  const picked = new Map<string, number>();
  return (choice: Choice) => {
    if (choice.kind === 'lb-backend') return c.lbPick % choice.count;
    const group = `${choice.kind}|${choice.key}`;
    const again = picked.get(group);
    if (again !== undefined) return again;
    const i = counts.length;
    counts.push(choice.count);
    const pick = (ecmp[i] ?? 0) % choice.count;
    picked.set(group, pick);
    return pick;
  };
}

function runOnce(
  net: SimNetwork,
  c: DiffCase,
  ecmp: readonly number[],
): SimRun & { readonly counts: readonly number[] } {
  const counts: number[] = [];
  const result = simulate(net, { inport: c.inport, packet: c.packet, select: selector(c, ecmp, counts) });
  const lb = result.choices.find((ch) => ch.kind === 'lb-backend');
  const lbBackend = lb === undefined ? undefined : backendText(net, lb.key, lb.index);
  const picks = result.choices.filter((ch) => ch.kind !== 'lb-backend').map((ch) => ch.index);
  return { result, ecmp: picks, members: ecmp, counts, ...(lbBackend === undefined ? {} : { lbBackend }) };
}

/**
 * Every run of the case: the first with ECMP member 0 everywhere, then one
 * per other combination of the ECMP choices the first run made (a later
 * choice may differ once an earlier one does; its count is taken from the
 * first run, which is enough for the topologies generated here).
 *
 * @example simulateCase(c)[0].result.verdict // 'delivered'
 */
export function simulateCase(c: DiffCase, net: SimNetwork = compileNetwork(c.topology)): SimRun[] {
  const first = runOnce(net, c, []);
  const runs: SimRun[] = [first];
  const total = first.counts.reduce((a, b) => a * b, 1);
  for (let k = 1; k < Math.min(total, MAX_COMBINATIONS); k++) {
    const picks: number[] = [];
    let rest = k;
    for (const n of first.counts) {
      picks.push(rest % n);
      rest = Math.floor(rest / n);
    }
    runs.push(runOnce(net, c, picks));
  }
  return runs;
}

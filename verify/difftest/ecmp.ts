/**
 * ECMP members matched one to one between ovn-trace and the simulator.
 *
 * northd numbers the members of an ECMP group in its own order, so the
 * simulator's member index cannot be named to ovn-trace; simulateCase runs
 * every combination instead. Which of those runs is the one to compare is
 * not "whichever agrees": ovn-trace shows the member it took (the
 * lr_in_ip_routing_ecmp / lr_in_policy_ecmp flow matching
 * `reg8[16..31] == N` loads the next hop into reg0/xxreg0 and sets the
 * outport), and only runs that took the same members (router, next hop,
 * outport) are compared with that trace.
 */
import { formatIP, tryParseIP } from '../../model/addr/index.ts';
import type { OvnTraceStage } from '../../backends/ovn/trace/index.ts';
import type { SimRun } from './simulate-case.ts';

const ECMP_STAGES = new Set(['lr_in_ip_routing_ecmp', 'lr_in_policy_ecmp']);

/** The ECMP members a trace took, in trace order, as `router|next hop|outport` (the simulator's `via`). */
export function ecmpMembersTaken(stages: readonly OvnTraceStage[]): string[] {
  const taken: string[] = [];
  for (const s of stages) {
    if (s.stage === undefined || !ECMP_STAGES.has(s.stage)) continue;
    // The priority-150 `reg8[0..15] == 0` flow is the pass-through of packets that met no ECMP group.
    if (s.match === undefined || !/\breg8\[16\.\.31\] == \d+/.test(s.match)) continue;
    const text = s.actions.join(' ');
    const hop = /\bx{0,2}reg0 = ([^;]+);/.exec(text)?.[1]?.trim();
    const out = /\boutport = "([^"]+)"/.exec(text)?.[1];
    if (hop === undefined || out === undefined) continue;
    const ip = tryParseIP(hop);
    taken.push(`${s.datapath}|${ip === undefined ? hop : formatIP(ip)}|${out}`);
  }
  return taken;
}

/** The simulator's ECMP members of a run, in the order it met them. */
export function ecmpMembersOf(run: SimRun): string[] {
  return run.result.choices.flatMap((c) => (c.via === undefined ? [] : [c.via]));
}

/**
 * The runs that took, at every router where both took an ECMP member, the
 * members the trace took there (all runs when the trace took none). A group
 * met again repeats its member on both sides (OVS hashes the same 5-tuple;
 * --select-id picks the same bucket), so members are compared as sets: a
 * trace that goes round a loop more often than the simulator (ovn-trace
 * decrements a TTL past 0, rule ttl-underflow-continues) still names the
 * same members. A router only one side reached says nothing about the pick;
 * the verdicts show that difference.
 */
export function runsTakingMembers(runs: readonly SimRun[], taken: readonly string[]): SimRun[] {
  if (taken.length === 0) return [...runs];
  return runs.filter((run) => {
    const own = new Set(ecmpMembersOf(run));
    const routers = new Set([...own].map(routerOf));
    return taken.every((m) => own.has(m) || !routers.has(routerOf(m)));
  });
}

const routerOf = (member: string): string => member.slice(0, member.indexOf('|'));

/**
 * One case in the three worlds: the simulator, ovn-trace over what northd
 * compiled, and real packets through the datapath. The datapath is the
 * judge: the case agrees when the simulator gives the datapath's
 * observation at every step, and, wherever ovn-trace gives the datapath's
 * observation of the first packet too, the simulator agrees with ovn-trace
 * (evaluate.ts, its documented rules included). Where ovn-trace and the
 * datapath differ, that is an ovn-trace artefact, tallied, and no excuse
 * for the simulator.
 *
 * Order: load; the datapath (its LB backend pick decides the one ovn-trace
 * is told, so that both OVN views are of the same packet); forget what the
 * chassis learned (ovn-trace's one-shot runs read the SB again); trace.
 */
import type { DiffCase } from './case.ts';
import { COMPARED_FIELDS, compareObserved, FULL_RULES, type Observed, type VerdictDiff } from './compare.ts';
import { type DatapathOutcome, evaluateDatapath } from './datapath-side.ts';
import { type CaseOutcome, evaluateCase, failureKind } from './evaluate.ts';
import type { OvnWorld } from './world.ts';

export type Oracle = 'trace' | 'datapath' | 'both';

export interface TraceVsDatapath {
  readonly agree: boolean;
  /** Why not: `error`, `partial` (ovn-trace could not show all of it), or the diff. */
  readonly why?: 'error' | 'partial';
  readonly diff?: VerdictDiff;
}

export interface ThreeWayOutcome {
  /** The case passes (see the file header). */
  readonly agree: boolean;
  readonly trace?: CaseOutcome;
  readonly datapath?: DatapathOutcome;
  readonly traceDatapath?: TraceVsDatapath;
  readonly ms: { readonly load: number; readonly trace: number; readonly sim: number; readonly datapath: number };
}

/** ovn-trace's first-packet observation against the datapath's, with no rule applied. */
export function compareTraceDatapath(trace: CaseOutcome, dp: Observed): TraceVsDatapath {
  if ('error' in trace.ovn) return { agree: false, why: 'error' };
  if (trace.ovn.partial?.some((p) => !FULL_RULES.has(p.rule))) return { agree: false, why: 'partial' };
  // ovn-trace's packets carry the usual fields only: the datapath's are read the same way here.
  const shown = new Set<string>(COMPARED_FIELDS);
  const project = (o: Observed): Observed => ({
    verdict: o.verdict,
    outputs: o.outputs.map((x) => ({
      port: x.port,
      packet: Object.fromEntries(Object.entries(x.packet).filter(([f]) => shown.has(f))),
    })),
  });
  const diff = compareObserved(project(dp), { verdict: trace.ovn.verdict, outputs: trace.ovn.outputs });
  return diff === undefined ? { agree: true } : { agree: false, diff };
}

/**
 * @example const o = await evaluateThreeWay(world, c, 'both'); o.agree || console.log(o.datapath?.diff);
 */
export async function evaluateThreeWay(world: OvnWorld, c: DiffCase, oracle: Oracle): Promise<ThreeWayOutcome> {
  const t0 = performance.now();
  await world.load(c.topology);
  const t1 = performance.now();
  const useDp = oracle !== 'trace';
  if (useDp && world.datapath === undefined) throw new Error(`difftest --oracle ${oracle}: the world has no datapath`);
  const datapath = useDp ? await evaluateDatapath(world, c) : undefined;
  const t2 = performance.now();
  if (oracle === 'datapath') {
    const ms = { load: t1 - t0, trace: 0, sim: 0, datapath: t2 - t1 };
    return { agree: datapath!.agree, datapath: datapath!, ms };
  }
  // The datapath's LB pick, unless it crashed before making one.
  if (datapath) await world.forgetLearned?.();
  const traced = { ...c, ...(datapath?.lbPick !== undefined ? { lbPick: datapath.lbPick } : {}) };
  const trace = await evaluateCase(world, traced, { loaded: true });
  const ms = { load: t1 - t0, trace: trace.ms.trace, sim: trace.ms.sim, datapath: t2 - t1 };
  // The datapath crashed on the first packet (an OVS bug): it judged nothing, ovn-trace is the judge.
  if (datapath === undefined || datapath.crashedAt === 0)
    return { agree: trace.agree, trace, ms, ...(datapath ? { datapath } : {}) };
  const traceDatapath = compareTraceDatapath(trace, datapath.datapath[0]!);
  const agree = datapath.agree && (!traceDatapath.agree || trace.agree);
  return { agree, trace, datapath, traceDatapath, ms };
}

/** What kind of failure: shrinking keeps cases that fail the same way. */
export function threeWayFailureKind(o: ThreeWayOutcome): string | undefined {
  if (o.agree) return undefined;
  if (o.datapath && o.datapath.crashedAt !== 0 && !o.datapath.agree) {
    const d = o.datapath.diff;
    if (d === undefined) return 'datapath mismatch';
    const fields = [...new Set(d.diff.changed.flatMap((ch) => ch.fields.map((f) => f.field)))].sort();
    const what = d.diff.verdict ? `verdict ${d.diff.verdict.sim}/${d.diff.verdict.ovn}` : `outputs ${fields.join(',')}`;
    return `datapath step ${d.step} ${what}${d.diff.onlySim.length ? ' +sim' : ''}${d.diff.onlyOvn.length ? ' +dp' : ''}`;
  }
  return o.trace ? `trace ${failureKind(o.trace)}` : 'mismatch';
}

/**
 * One case, both sides: load the topology into OVN, trace the packet with
 * ovn-trace (ct new: a first packet; the LB backend the simulator picked),
 * run the simulator, compare. OVN's ECMP pick is made deterministic (a
 * random `select` is traced again with --select-id=1) and compared with
 * the simulator's runs over every ECMP member (see simulate-case.ts).
 *
 * Where the first comparison disagrees and the trace shows a documented
 * ovn-trace artefact that only a disagreement reveals (normalize.ts:
 * ct-lb-ors-state, generated-packets, patch-keeps-ct-state,
 * ct-snat-to-vip-not-applied), the trace is read again without the part it
 * cannot show; the case agrees only if that comparison does, and is counted
 * under the rule. A trace is never repeated with the simulator's own
 * conntrack states (that would make ovn-trace agree with whatever the
 * simulator's conntrack says): real packets judge those cases.
 *
 * A trace that dropped at a port security ovn-trace misjudges
 * (port-sec-prefix-exact) is traced again on the same case with the
 * misjudged address listed exactly (widenedTrace), and that trace is the
 * one compared, in full (rule port-sec-widened). A trace that ended at a
 * gateway router's bare ct_snat (gateway-ct-snat-stops) is traced again over
 * an SB copy where ovn-trace does not stop there, and compared in full when
 * it took the same flows up to that point (gatewaySnatTraced, rule
 * gateway-ct-snat-traced).
 */
import {
  firstDivergence,
  OvnTracerError,
  type OvnTraceRequest,
  type OvnTraceResult,
} from '../../backends/ovn/trace/index.ts';
import { isIP } from '../../model/packet/packet.ts';
import type { DiffCase } from './case.ts';
import {
  compareObserved,
  type Observed,
  observeOvn,
  observeSim,
  type PartialRule,
  type VerdictDiff,
} from './compare.ts';
import { ecmpMembersOf, ecmpMembersTaken, runsTakingMembers } from './ecmp.ts';
import { widenPortSecurity } from './port-sec.ts';
import {
  type GeneratedBranch,
  generatedBranches,
  partialRules,
  snatToVipStale,
  staleCtStages,
  withHairpinSnatIp,
} from './quirks.ts';
import { type SimRun, simulateCase } from './simulate-case.ts';
import type { OvnWorld } from './world.ts';

export interface CaseOutcome {
  readonly agree: boolean;
  /** The simulator run compared (the one matching OVN, else the first). */
  readonly sim: Observed;
  /** OVN's observation, or why ovn-trace gave none. */
  readonly ovn: Observed | { readonly error: { readonly code: string; readonly message: string } };
  readonly diff?: VerdictDiff;
  /** The LB backend both sides were told to use. */
  readonly lbBackend?: string;
  readonly ms: { readonly load: number; readonly trace: number; readonly sim: number };
}

/**
 * What kind of failure an outcome is: shrinking keeps only cases that fail
 * the same way (the same verdict pair, or the same fields differing), so it
 * does not drift to another bug that a smaller case happens to hit.
 */
export function failureKind(o: CaseOutcome): string | undefined {
  if (o.agree) return undefined;
  if ('error' in o.ovn) return `ovn-${o.ovn.error.code}`;
  const d = o.diff;
  if (d === undefined) return 'mismatch';
  if (d.verdict) return `verdict ${d.verdict.sim.split(':')[0]} / ${d.verdict.ovn}`;
  const fields = [...new Set(d.changed.flatMap((c) => c.fields.map((f) => f.field)))].sort();
  return `outputs ${fields.join(',')}${d.onlySim.length ? ' +sim' : ''}${d.onlyOvn.length ? ' +ovn' : ''}`;
}

const now = (): number => performance.now();

/**
 * @example const o = await evaluateCase(world, c); o.agree || console.log(formatDiff(o.diff!));
 */
export async function evaluateCase(
  world: OvnWorld,
  given: DiffCase,
  opts: { readonly loaded?: boolean } = {},
): Promise<CaseOutcome> {
  const t0 = now();
  // Loaded already: the three-way evaluation ran the datapath on this topology first.
  if (opts.loaded !== true) await world.load(given.topology);
  const t1 = now();
  const runs = simulateCase(given);
  const t2 = now();
  const first = runs[0]!;
  let ask: OvnTraceRequest = {
    datapath: given.datapath,
    inport: given.inport,
    packet: given.packet,
    ct: 'new',
    ...(first.lbBackend ? { lbBackend: first.lbBackend } : {}),
  };
  let traced: OvnTraceResult;
  let c = given;
  let widened: PartialRule[] = [];
  try {
    ({ traced, ask } = await traceOnce(world, ask));
    const w = await widenedTrace(world, given, runs, ask, traced);
    if (w) ({ case: c, traced, rules: widened, ask } = w);
    const g = await gatewaySnatTraced(world, ask, traced);
    if (g) {
      traced = g.traced;
      widened = [...widened, g.rule];
    }
  } catch (e) {
    if (!(e instanceof OvnTracerError)) throw e;
    return traceErrorOutcome(e, runs, { load: t1 - t0, sim: t2 - t1, trace: now() - t2 });
  }
  const observe = (r: OvnTraceResult, more: readonly PartialRule[] = []) => {
    const extra = [...widened, ...more];
    return withHairpinSnatIp(c, r, observeOvn(r, [...withinKnown(partialRules(c, r), extra), ...extra]));
  };
  const ovn = observe(traced);
  const lb = traced.lbBackend ?? first.lbBackend;
  const common = {
    get ms() {
      return { load: t1 - t0, sim: t2 - t1, trace: now() - t2 };
    },
    ...(lb ? { lbBackend: lb } : {}),
  };
  // Only the runs that took ovn-trace's ECMP members are compared with it (ecmp.ts).
  const taken = ecmpMembersTaken(traced.stages);
  const pool = runsTakingMembers(runs, taken);
  if (pool.length === 0)
    return { agree: false, sim: observeSim(first.result), diff: memberDiff(runs, taken), ...common, ovn };
  const agreed = matchRun(pool, ovn);
  if (agreed.agree) return { ...agreed, ...common, ovn };
  // The trace disagrees: where it shows one of these documented ovn-trace artefacts, compare what it
  // does show (normalize.ts), and keep the first observation that agrees. Otherwise report the original.
  // No retrace with the simulator's own conntrack states: ovn-trace would agree with whatever the simulator's
  // conntrack says. Real packets judge those cases.
  for (const unknown of unknownParts(c, traced, !isIP(c.packet))) {
    const ovn3 = observe(traced, unknown);
    const third = matchRun(pool, ovn3);
    if (third.agree) return { ...third, ...common, ovn: ovn3 };
  }
  return { ...agreed, ...common, ovn };
}

/** The outcome of a case ovn-trace gave no verdict for: a documented limit of ovn-trace, or a disagreement. */
function traceErrorOutcome(
  e: OvnTracerError,
  runs: ReturnType<typeof simulateCase>,
  ms: CaseOutcome['ms'],
): CaseOutcome {
  const first = runs[0]!;
  const lb = first.lbBackend ? { lbBackend: first.lbBackend } : {};
  // Rule lb-dst-early-dnat: ovn-trace has no verdict for this packet; only the simulator's LB choice is checked.
  if (e.code === 'lb-dst-diverged')
    return partialOutcome(
      runs.map((r) => observeSim(r.result)),
      { rule: 'lb-dst-early-dnat', detail: e.message },
      ms,
      lb,
    );
  // Rule ovs-translation-limit: a forwarding loop, which OVS cuts short; the simulator must follow it too.
  // Unless ovn-trace made the loop itself, on conntrack state OVN clears at a patch port (rule
  // patch-keeps-ct-state, read from the first pipelines): then the simulator must reach those datapaths.
  if (e.code === 'forwarding-loop') {
    const sims = runs.map((r) => observeSim(r.result));
    const loop = partialOutcome(sims, { rule: 'forwarding-loop', detail: e.message }, ms, lb);
    const stale = loop.agree || e.raw === undefined ? [] : staleCtStages(e.raw);
    const kept = stale.length ? partialOutcome(sims, { rule: 'patch-keeps-ct-state', at: stale }, ms, lb) : undefined;
    return kept?.agree ? kept : loop;
  }
  return {
    agree: false,
    sim: observeSim(first.result),
    ovn: { error: { code: e.code, message: e.message } },
    ms,
    ...lb,
  };
}

/**
 * One trace; a random ECMP `select` is traced again with --select-id=1, and
 * the request returned says so: every later trace of the case must pick
 * the same members (northd numbers them anew with each load).
 */
async function traceOnce(
  world: OvnWorld,
  ask: OvnTraceRequest,
): Promise<{ traced: OvnTraceResult; ask: OvnTraceRequest }> {
  const traced = await world.trace(ask);
  if (ask.selectId !== undefined || !traced.selects.some((s) => s.random)) return { traced, ask };
  const pinned = { ...ask, selectId: 1 };
  return { traced: await world.trace(pinned), ask: pinned };
}

/** Simulator runs that observe the same (verdict and outputs, run by run). */
function sameRuns(a: readonly SimRun[], b: readonly SimRun[]): boolean {
  return (
    a.length === b.length &&
    a.every((r, i) => compareObserved(observeSim(r.result), observeSim(b[i]!.result)) === undefined)
  );
}

/**
 * Rule port-sec-prefix-exact, compared in full: where ovn-trace dropped at
 * a port security it misjudges, the case with the misjudged address also
 * listed exactly in the entry ovn-trace checks (port-sec.ts
 * widenPortSecurity: ovn-controller admits the same packets) is loaded and
 * traced again, for as long as the trace shows another such drop (a few
 * rounds). The simulator must give the same runs on both topologies;
 * otherwise, or if ovn-trace fails on the widened case, the original case
 * is reloaded and the rule stays a partial comparison.
 */
async function widenedTrace(
  world: OvnWorld,
  given: DiffCase,
  runs: readonly SimRun[],
  ask: OvnTraceRequest,
  traced: OvnTraceResult,
): Promise<{ case: DiffCase; traced: OvnTraceResult; rules: PartialRule[]; ask: OvnTraceRequest } | undefined> {
  let c = given;
  let r = traced;
  let pinned = ask;
  const at: { port: string; stage: string; entry: string; widened: string }[] = [];
  for (let round = 0; round < 4; round++) {
    const w = widenPortSecurity(c, r);
    if (w === undefined)
      return at.length ? { case: c, traced: r, rules: [{ rule: 'port-sec-widened', at }], ask: pinned } : undefined;
    if (!sameRuns(simulateCase(w.case), runs)) break;
    c = w.case;
    at.push(...w.entries);
    await world.load(c.topology);
    try {
      ({ traced: r, ask: pinned } = await traceOnce(world, pinned));
    } catch (e) {
      if (!(e instanceof OvnTracerError)) throw e;
      break;
    }
  }
  if (c !== given) await world.load(given.topology);
  return undefined;
}

/**
 * Rule gateway-ct-snat-stops, compared in full where the trace shows it: a
 * branch ended at a gateway router's bare `ct_snat;` (a PathEnd of the
 * trace), so the request is traced again over the SB copy in which that
 * router's l3gateway ports read as patches (OvnTracer.traceGatewaysAsPatches),
 * where ovn-trace goes on as OVS does for a first packet. The retrace is
 * used only if it took the very flows (by uuid) of the first trace up to
 * that `ct_snat;` and ended no branch there; otherwise the partial
 * comparison stays.
 */
async function gatewaySnatTraced(
  world: OvnWorld,
  ask: OvnTraceRequest,
  traced: OvnTraceResult,
): Promise<{ traced: OvnTraceResult; rule: PartialRule } | undefined> {
  const routers = [...new Set(traced.ends.filter((e) => e.kind === 'ct-snat-stop').map((e) => e.datapath))];
  if (routers.length === 0 || world.traceGatewaysAsPatches === undefined) return undefined;
  const stop = traced.stages.findIndex((s) => routers.includes(s.datapath) && s.actions.includes('ct_snat;'));
  if (stop < 0) return undefined;
  let again: OvnTraceResult;
  try {
    again = await world.traceGatewaysAsPatches(ask);
  } catch (e) {
    if (e instanceof OvnTracerError) return undefined;
    throw e;
  }
  if (again.ends.some((e) => e.kind === 'ct-snat-stop')) return undefined;
  if (firstDivergence(traced.stages, again.stages, stop + 1) !== undefined) return undefined;
  return { traced: again, rule: { rule: 'gateway-ct-snat-traced', routers } };
}

/**
 * The always-applied rules, minus the points that lie where `extra` says
 * the trace is not OVN's any more (a port security ovn-trace misjudged on a
 * packet it had wrongly load-balanced is no point to check).
 */
function withinKnown(rules: readonly PartialRule[], extra: readonly PartialRule[]): PartialRule[] {
  const stale = new Set(
    extra.flatMap((p) =>
      p.rule === 'patch-keeps-ct-state'
        ? p.at.map((a) => a.datapath)
        : p.rule === 'ct-snat-to-vip-not-applied'
          ? [p.switch]
          : [],
    ),
  );
  if (stale.size === 0) return [...rules];
  return rules.flatMap((p): PartialRule[] => {
    if (p.rule !== 'port-sec-prefix-exact') return [p];
    const at = p.at.filter((a) => !stale.has(a.datapath));
    return at.length ? [{ ...p, at }] : [];
  });
}

/**
 * The parts of a trace that are not OVN's verdict, as alternatives tried in
 * turn: generated replies whose branch ovn-trace gets wrong (rules
 * ct-lb-ors-state, generated-packets); then, apart, where ovn-trace went on
 * with stale state (patch-keeps-ct-state, ct-snat-to-vip-not-applied), which
 * makes everything after it, generated packets included, unknown.
 */
function unknownParts(c: DiffCase, traced: OvnTraceResult, nonIpInput: boolean): PartialRule[][] {
  const gens = generatedBranches(traced.raw, nonIpInput);
  const at = (list: readonly GeneratedBranch[]) => list.map(({ datapath, stage }) => ({ datapath, stage }));
  const orsState = gens.filter((g) => g.cts.some((t) => !t.startsWith('ct_next')));
  const ported = gens.filter((g) => g.portSensitive && !orsState.includes(g));
  const generated: PartialRule[] = [
    ...(orsState.length ? [{ rule: 'ct-lb-ors-state' as const, at: at(orsState) }] : []),
    ...(ported.length ? [{ rule: 'generated-packets' as const, at: at(ported) }] : []),
  ];
  const stale = staleCtStages(traced.raw);
  const sw = snatToVipStale(traced, c);
  const after: PartialRule[] = [
    ...(stale.length ? [{ rule: 'patch-keeps-ct-state' as const, at: stale }] : []),
    // A hairpin SNAT after stale conntrack state is itself an artefact: the stale rule covers it.
    ...(sw !== undefined && stale.length === 0 ? [{ rule: 'ct-snat-to-vip-not-applied' as const, switch: sw }] : []),
  ];
  return [generated, after].filter((list) => list.length > 0);
}

/** No simulator run took the ECMP members ovn-trace took: the members are the difference. */
function memberDiff(runs: readonly SimRun[], taken: readonly string[]): VerdictDiff {
  const sim = [...new Set(runs.map((r) => ecmpMembersOf(r).join(' + ') || 'none'))].join(' / ');
  return {
    onlySim: [],
    onlyOvn: [],
    changed: [{ port: '(ECMP)', fields: [{ field: 'member', sim, ovn: taken.join(' + ') }] }],
  };
}

/** The first simulator run that agrees with OVN, else the first run and its diff. */
function matchRun(runs: readonly SimRun[], ovn: Observed): { agree: boolean; sim: Observed; diff?: VerdictDiff } {
  let first: { sim: Observed; diff: VerdictDiff } | undefined;
  for (const run of runs) {
    const sim = observeSim(run.result);
    const diff = compareObserved(sim, ovn);
    if (diff === undefined) return { agree: true, sim };
    first ??= { sim, diff };
  }
  return { agree: false, ...first! };
}

function partialOutcome(
  sims: readonly Observed[],
  rule: PartialRule,
  ms: CaseOutcome['ms'],
  lb: { lbBackend?: string },
): CaseOutcome {
  const ovn: Observed = { verdict: 'dropped', outputs: [], partial: [rule] };
  const agreeing = sims.find((s) => compareObserved(s, ovn) === undefined);
  const sim = agreeing ?? sims[0]!;
  const diff = agreeing === undefined ? compareObserved(sim, ovn) : undefined;
  return { agree: agreeing !== undefined, sim, ovn, ms, ...lb, ...(diff ? { diff } : {}) };
}

/**
 * runDifftest: N random cases (fast-check, seeded), each loaded into one
 * real OVN (the NB is reused, each topology written over the previous one)
 * and traced there and in the simulator; disagreements are minimized with
 * fast-check's shrinking (replaying the failing run by its path) and kept
 * as regression files. The result is the `kovn difftest --json` shape of
 * docs/architecture.md, `{cases, agree, disagreements: [{seed, case, sim, ovn}]}`,
 * each disagreement with its diff, input and minimized case besides.
 */
import fc from 'fast-check';
import { arbitraryCase } from './arbitrary-case.ts';
import { caseToJSON, type DiffCase, type DiffCaseJSON } from './case.ts';
import { type Observed, observeSim, type VerdictDiff } from './compare.ts';
import type { CaseOutcome } from './evaluate.ts';
import { REGRESSIONS_DIR, writeRegression } from './regressions.ts';
import { simulateCase } from './simulate-case.ts';
import { Tally } from './tally.ts';
import { evaluateThreeWay, type Oracle, type ThreeWayOutcome, threeWayFailureKind } from './three-way.ts';
import { createOvnWorld, type OvnWorld } from './world.ts';
import { packetToJSON } from '../../model/packet/format.ts';

export interface DifftestProgress {
  readonly phase: 'case' | 'shrink';
  /** Case index (0-based). */
  readonly index: number;
  readonly cases: number;
  readonly agree: number;
  readonly outcome?: ThreeWayOutcome;
}

export interface DifftestOptions {
  /** Default 300. */
  readonly cases?: number;
  /**
   * Run only these case indices of the seeded sequence (every case up to the
   * largest is still generated, so each is the case a full run has there);
   * default: all of `cases`.
   */
  readonly only?: readonly number[];
  /** fast-check seed. Default 7. */
  readonly seed?: number;
  /** Which OVN views run (default 'trace'; the CLI defaults to 'both' where OVN is installed). */
  readonly oracle?: Oracle;
  /** Default: a fresh control plane (with a chassis unless oracle is 'trace'), closed at the end. A given world is left open. */
  readonly world?: OvnWorld;
  readonly onProgress?: (p: DifftestProgress) => void;
  /** Shrink each disagreement (default true). */
  readonly minimize?: boolean;
  /** Time budget per shrink (default 120 s). */
  readonly shrinkTimeMs?: number;
  /** Where to write regression files; null: nowhere. Default: verify/difftest/regressions. */
  readonly regressionsDir?: string | null;
}

type OvnSide = Observed | { readonly error: { readonly code: string; readonly message: string } };

export interface Disagreement {
  readonly seed: number;
  /** Index of the case in the run (`--seed` and this reproduce it). */
  readonly case: number;
  /** Who judged: the datapath when it ran. */
  readonly oracle: 'datapath' | 'trace';
  readonly sim: Observed;
  /** The judge's observation of the first packet. */
  readonly ovn: OvnSide;
  readonly diff?: VerdictDiff;
  /** With the datapath: the step (0 first packet, 1 reply, 2 first packet again) that differs. */
  readonly step?: number;
  readonly input: DiffCaseJSON;
  readonly minimized?: {
    readonly case: DiffCaseJSON;
    readonly shrinks: number;
    readonly sim: Observed;
    readonly ovn: OvnSide;
    readonly diff?: VerdictDiff;
  };
  /** The regression file written for it. */
  readonly regression?: string;
}

export interface PairTally {
  readonly cases: number;
  readonly agree: number;
}

export interface DifftestResult {
  readonly cases: number;
  /** Cases where the simulator agrees with the judge (the datapath when it runs, else ovn-trace). */
  readonly agree: number;
  /** Cases that fail: the simulator against the datapath, or against ovn-trace where ovn-trace agrees with the datapath. */
  readonly disagreements: readonly Disagreement[];
  readonly pairs: {
    readonly 'sim-datapath'?: PairTally;
    readonly 'sim-trace'?: PairTally;
    readonly 'trace-datapath'?: PairTally;
  };
  /**
   * Where ovn-trace and the datapath differ (ovn-trace artefacts), by kind:
   * `partial <rules>`, `error <code>`, or what differs; with a few case indices each.
   */
  readonly artefacts: Readonly<Record<string, { readonly count: number; readonly cases: readonly number[] }>>;
  /**
   * Cases that agree with the datapath only under a rule for the datapath's own departure from OVN's flows, shown on
   * the case (datapath-side.ts DatapathArtefact), by rule; with a few case indices each.
   */
  readonly datapathArtefacts: Readonly<Record<string, { readonly count: number; readonly cases: readonly number[] }>>;
  /**
   * Cases where ovn-trace agreed with the simulator per normalize.ts rule: compared only in part where an
   * ovn-trace quirk hides part of OVN's verdict, or traced again and
   * compared in full (ct-states-consumed, port-sec-widened; see compare.ts).
   */
  readonly partial: Readonly<Record<string, number>>;
  /** Cases whose datapath run had more than one packet (a reply, then the first again). */
  readonly connections: number;
  /** Times vswitchd died and its case was run again on a restarted chassis. */
  readonly restarts: number;
  /**
   * Cases on which vswitchd died twice at the same packet (OVS crashes on that traffic), or ovn-controller
   * died installing the topology: the datapath judged the packets before it only (none at step 0, where
   * ovn-trace judged alone).
   */
  readonly crashes: {
    readonly count: number;
    readonly cases: readonly { readonly case: number; readonly step: number }[];
  };
  /** Wall time and its parts (ms). */
  readonly timing: {
    readonly totalMs: number;
    readonly loadMs: number;
    readonly traceMs: number;
    readonly simMs: number;
    readonly datapathMs: number;
    readonly shrinkMs: number;
  };
}

const stripPath = (o: OvnSide): OvnSide => {
  if ('error' in o) return o;
  const { path: _p, ...rest } = o;
  return rest;
};

const text = (x: unknown) => (x instanceof Error ? `${x.name}: ${x.message}` : String(x));

/**
 * evaluateThreeWay, with anything it throws (a bug of ours, never a
 * verdict) turned into a failed outcome naming the error, so that one case
 * cannot end the run and the case is reported, shrunk, like any disagreement.
 */
async function evaluateSafely(world: OvnWorld, c: DiffCase, oracle: Oracle): Promise<ThreeWayOutcome> {
  try {
    return await evaluateThreeWay(world, c, oracle);
  } catch (e) {
    let sim: Observed;
    let message = text(e);
    try {
      sim = observeSim(simulateCase(c)[0]!.result);
    } catch (s) {
      sim = { verdict: 'dropped', outputs: [] };
      message = `simulator threw ${text(s)}`;
    }
    const trace: CaseOutcome = {
      agree: false,
      sim,
      ovn: { error: { code: 'exception', message } },
      ms: { load: 0, trace: 0, sim: 0 },
    };
    return { agree: false, trace, ms: { load: 0, trace: 0, sim: 0, datapath: 0 } };
  }
}

interface Found {
  readonly index: number;
  readonly c: DiffCase;
  readonly outcome: ThreeWayOutcome;
}

/**
 * Replays run `index` of the seeded sequence and shrinks it, keeping only
 * cases that fail the same way. The time budget is kept by the property
 * (past it, every candidate passes, which ends shrinking): fast-check's own
 * interruptAfterTimeLimit would return while an evaluation is still using
 * the OVN world.
 */
async function minimize(
  world: OvnWorld,
  f: Found,
  seed: number,
  timeMs: number,
  oracle: Oracle,
): Promise<{ c: DiffCase; outcome: ThreeWayOutcome; shrinks: number } | undefined> {
  const kind = threeWayFailureKind(f.outcome);
  const deadline = performance.now() + timeMs;
  let calls = 0;
  let replayFailed = false;
  let last: { c: DiffCase; outcome: ThreeWayOutcome } | undefined;
  const prop = async (c: DiffCase): Promise<boolean> => {
    // With a path, fast-check goes on to later runs if the replayed one passes: only the first call is the replay.
    if (calls++ > 0 && (!replayFailed || performance.now() > deadline)) return true;
    const outcome = await evaluateSafely(world, c, oracle);
    const same = threeWayFailureKind(outcome) === kind;
    if (calls === 1) replayFailed = same;
    if (same) last = { c, outcome };
    return !same;
  };
  const details = await fc.check(fc.asyncProperty(arbitraryCase(), prop), { seed, path: String(f.index) });
  if (!details.failed || details.counterexample === null || last === undefined) return undefined;
  // fast-check's counterexample is the last failing value: the last one that failed the same way.
  return { c: last.c, outcome: last.outcome, shrinks: details.numShrinks };
}

/** The judge's side of an outcome: what the simulator gave, what the judge saw, the diff. */
function judgedBy(o: ThreeWayOutcome): {
  oracle: 'datapath' | 'trace';
  sim: Observed;
  ovn: OvnSide;
  diff?: VerdictDiff;
  step?: number;
} {
  if (o.datapath && o.datapath.crashedAt !== 0 && !o.datapath.agree) {
    const step = o.datapath.diff?.step ?? 0;
    return {
      oracle: 'datapath',
      sim: o.datapath.sim[step] ?? { verdict: 'dropped', outputs: [] },
      ovn: o.datapath.datapath[step] ?? { verdict: 'dropped', outputs: [] },
      step,
      ...(o.datapath.diff ? { diff: o.datapath.diff.diff } : {}),
    };
  }
  const t = o.trace!;
  return {
    oracle: 'trace',
    sim: stripPath(t.sim) as Observed,
    ovn: stripPath(t.ovn),
    ...(t.diff ? { diff: t.diff } : {}),
  };
}

async function save(
  dir: string,
  seed: number,
  f: Found,
  best: { c: DiffCase; outcome: ThreeWayOutcome },
  shrinks?: number,
) {
  const found = `kovn difftest --seed ${seed}, case ${f.index}${shrinks !== undefined ? `, minimized in ${shrinks} shrinks` : ''}`;
  const j = judgedBy(best.outcome);
  if ('error' in j.ovn) return undefined;
  const dp = j.oracle === 'datapath' ? best.outcome.datapath : undefined;
  return writeRegression(dir, {
    found,
    case: best.c,
    expected: dp ? dp.datapath[0]! : j.ovn,
    sim: dp ? dp.sim[0]! : j.sim,
    ...(j.diff ? { diff: j.diff } : {}),
    ...(dp
      ? {
          oracle: 'datapath' as const,
          connection: dp.later.map((s, k) => ({
            inport: s.inport,
            packet: packetToJSON(s.packet),
            ...(s.flushConntrack === true ? { flushConntrack: true } : {}),
            expected: dp.datapath[k + 1] ?? { verdict: 'dropped' as const, outputs: [] },
          })),
        }
      : {}),
  });
}

async function report(
  world: OvnWorld,
  f: Found,
  seed: number,
  opts: DifftestOptions,
  oracle: Oracle,
): Promise<Disagreement> {
  const base = { seed, case: f.index, ...judgedBy(f.outcome), input: caseToJSON(f.c) };
  const m = opts.minimize === false ? undefined : await minimize(world, f, seed, opts.shrinkTimeMs ?? 120_000, oracle);
  const minimized = m && {
    case: caseToJSON(m.c),
    shrinks: m.shrinks,
    ...(({ sim, ovn, diff }) => ({ sim, ovn, ...(diff ? { diff } : {}) }))(judgedBy(m.outcome)),
  };
  const dir = opts.regressionsDir === undefined ? REGRESSIONS_DIR : opts.regressionsDir;
  const regression = dir === null ? undefined : await save(dir, seed, f, m ?? f, m?.shrinks);
  return { ...base, ...(minimized ? { minimized } : {}), ...(regression ? { regression } : {}) };
}

/**
 * @example
 * const r = await runDifftest({ cases: 300, seed: 7, oracle: 'both' });
 * console.log(JSON.stringify(r)); // {"cases":300,"agree":300,"disagreements":[],"pairs":{...},...}
 */
export async function runDifftest(opts: DifftestOptions = {}): Promise<DifftestResult> {
  const only = opts.only === undefined ? undefined : new Set(opts.only);
  const cases = only === undefined ? (opts.cases ?? 300) : Math.max(-1, ...only) + 1;
  const seed = opts.seed ?? 7;
  const oracle = opts.oracle ?? 'trace';
  const start = performance.now();
  const world = opts.world ?? (await createOvnWorld({ datapath: oracle !== 'trace' }));
  const tally = new Tally();
  const found: Found[] = [];
  let index = 0;
  try {
    const prop = async (c: DiffCase): Promise<boolean> => {
      if (only !== undefined && !only.has(index)) {
        index++;
        return true;
      }
      const outcome = await evaluateSafely(world, c, oracle);
      tally.add(index, outcome);
      if (!outcome.agree) found.push({ index, c, outcome });
      opts.onProgress?.({ phase: 'case', index, cases, agree: tally.agree, outcome });
      index++;
      return true;
    };
    if (cases > 0) await fc.assert(fc.asyncProperty(arbitraryCase(), prop), { seed, numRuns: cases });
    const disagreements: Disagreement[] = [];
    const shrinkStart = performance.now();
    for (const f of found) {
      opts.onProgress?.({ phase: 'shrink', index: f.index, cases, agree: tally.agree, outcome: f.outcome });
      disagreements.push(await report(world, f, seed, opts, oracle));
    }
    tally.timing.shrinkMs = performance.now() - shrinkStart;
    const p = tally.pairs;
    return {
      cases: only === undefined ? cases : only.size,
      agree: tally.agree,
      disagreements,
      pairs: {
        ...(oracle !== 'trace' ? { 'sim-datapath': p.simDp } : {}),
        ...(oracle !== 'datapath' ? { 'sim-trace': p.simTrace } : {}),
        ...(oracle === 'both' ? { 'trace-datapath': p.traceDp } : {}),
      },
      artefacts: tally.artefacts,
      datapathArtefacts: tally.datapathArtefacts,
      partial: tally.partial,
      connections: tally.connections,
      restarts: world.datapathRestarts?.() ?? 0,
      crashes: tally.crashes,
      timing: { totalMs: performance.now() - start, ...tally.timing },
    };
  } finally {
    if (opts.world === undefined) await world.close();
  }
}

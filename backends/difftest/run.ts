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
import { type CaseOutcome, evaluateCase, failureKind } from './evaluate.ts';
import { REGRESSIONS_DIR, writeRegression } from './regressions.ts';
import { simulateCase } from './simulate-case.ts';
import { createOvnWorld, type OvnWorld } from './world.ts';

export interface DifftestProgress {
  readonly phase: 'case' | 'shrink';
  /** Case index (0-based). */
  readonly index: number;
  readonly cases: number;
  readonly agree: number;
  readonly outcome?: CaseOutcome;
}

export interface DifftestOptions {
  /** Default 300. */
  readonly cases?: number;
  /** fast-check seed. Default 7. */
  readonly seed?: number;
  /** Default: a fresh control plane, closed at the end. A given world is left open. */
  readonly world?: OvnWorld;
  readonly onProgress?: (p: DifftestProgress) => void;
  /** Shrink each disagreement (default true). */
  readonly minimize?: boolean;
  /** Time budget per shrink (default 120 s). */
  readonly shrinkTimeMs?: number;
  /** Where to write regression files; null: nowhere. Default: backends/difftest/regressions. */
  readonly regressionsDir?: string | null;
}

type OvnSide = Observed | { readonly error: { readonly code: string; readonly message: string } };

export interface Disagreement {
  readonly seed: number;
  /** Index of the case in the run (`--seed` and this reproduce it). */
  readonly case: number;
  readonly sim: Observed;
  readonly ovn: OvnSide;
  readonly diff?: VerdictDiff;
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

export interface DifftestResult {
  readonly cases: number;
  readonly agree: number;
  readonly disagreements: readonly Disagreement[];
  /**
   * Agreeing cases per normalize.ts rule: compared only in part where an
   * ovn-trace quirk hides part of OVN's verdict, or traced again and
   * compared in full (ct-states-consumed, port-sec-widened; see compare.ts).
   */
  readonly partial: Readonly<Record<string, number>>;
  /** Wall time and its parts (ms). */
  readonly timing: {
    readonly totalMs: number;
    readonly loadMs: number;
    readonly traceMs: number;
    readonly simMs: number;
    readonly shrinkMs: number;
  };
}

const stripPath = (o: OvnSide): OvnSide => {
  if ('error' in o) return o;
  const { path: _p, ...rest } = o;
  return rest;
};

/**
 * evaluateCase, with anything it throws (a bug of ours, never a verdict)
 * turned into a failed outcome naming the error, so that one case cannot
 * end the run and the case is reported, shrunk, like any disagreement.
 */
async function evaluateSafely(world: OvnWorld, c: DiffCase): Promise<CaseOutcome> {
  try {
    return await evaluateCase(world, c);
  } catch (e) {
    const text = (x: unknown) => (x instanceof Error ? `${x.name}: ${x.message}` : String(x));
    let sim: Observed;
    try {
      sim = observeSim(simulateCase(c)[0]!.result);
    } catch (s) {
      // The simulator itself threw: no simulator verdict to show; the message says so.
      return {
        agree: false,
        sim: { verdict: 'dropped', outputs: [] },
        ovn: { error: { code: 'exception', message: `simulator threw ${text(s)}` } },
        ms: { load: 0, trace: 0, sim: 0 },
      };
    }
    return {
      agree: false,
      sim,
      ovn: { error: { code: 'exception', message: text(e) } },
      ms: { load: 0, trace: 0, sim: 0 },
    };
  }
}

interface Found {
  readonly index: number;
  readonly c: DiffCase;
  readonly outcome: CaseOutcome;
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
): Promise<{ c: DiffCase; outcome: CaseOutcome; shrinks: number } | undefined> {
  const kind = failureKind(f.outcome);
  const deadline = performance.now() + timeMs;
  let calls = 0;
  let replayFailed = false;
  let last: { c: DiffCase; outcome: CaseOutcome } | undefined;
  const prop = async (c: DiffCase): Promise<boolean> => {
    // With a path, fast-check goes on to later runs if the replayed one passes: only the first call is the replay.
    if (calls++ > 0 && (!replayFailed || performance.now() > deadline)) return true;
    const outcome = await evaluateSafely(world, c);
    const same = failureKind(outcome) === kind;
    if (calls === 1) replayFailed = same;
    if (same) last = { c, outcome };
    return !same;
  };
  const details = await fc.check(fc.asyncProperty(arbitraryCase(), prop), { seed, path: String(f.index) });
  if (!details.failed || details.counterexample === null || last === undefined) return undefined;
  // fast-check's counterexample is the last failing value: the last one that failed the same way.
  return { c: last.c, outcome: last.outcome, shrinks: details.numShrinks };
}

async function report(world: OvnWorld, f: Found, seed: number, opts: DifftestOptions): Promise<Disagreement> {
  const base = {
    seed,
    case: f.index,
    sim: stripPath(f.outcome.sim) as Observed,
    ovn: stripPath(f.outcome.ovn),
    input: caseToJSON(f.c),
    ...(f.outcome.diff ? { diff: f.outcome.diff } : {}),
  };
  const m = opts.minimize === false ? undefined : await minimize(world, f, seed, opts.shrinkTimeMs ?? 120_000);
  const best = m ?? { c: f.c, outcome: f.outcome, shrinks: 0 };
  const minimized = m && {
    case: caseToJSON(m.c),
    shrinks: m.shrinks,
    sim: stripPath(m.outcome.sim) as Observed,
    ovn: stripPath(m.outcome.ovn),
    ...(m.outcome.diff ? { diff: m.outcome.diff } : {}),
  };
  const dir = opts.regressionsDir === undefined ? REGRESSIONS_DIR : opts.regressionsDir;
  let regression: string | undefined;
  if (dir !== null && !('error' in best.outcome.ovn)) {
    regression = await writeRegression(dir, {
      found: `kovn difftest --seed ${seed}, case ${f.index}${m ? `, minimized in ${m.shrinks} shrinks` : ''}`,
      case: best.c,
      expected: best.outcome.ovn,
      sim: best.outcome.sim,
      ...(best.outcome.diff ? { diff: best.outcome.diff } : {}),
    });
  }
  return { ...base, ...(minimized ? { minimized } : {}), ...(regression ? { regression } : {}) };
}

/**
 * @example
 * const r = await runDifftest({ cases: 300, seed: 7 });
 * console.log(JSON.stringify(r)); // {"cases":300,"agree":300,"disagreements":[],...}
 */
export async function runDifftest(opts: DifftestOptions = {}): Promise<DifftestResult> {
  const cases = opts.cases ?? 300;
  const seed = opts.seed ?? 7;
  const start = performance.now();
  const world = opts.world ?? (await createOvnWorld());
  const timing = { loadMs: 0, traceMs: 0, simMs: 0, shrinkMs: 0 };
  const found: Found[] = [];
  let agree = 0;
  let index = 0;
  const partial: Record<string, number> = {};
  try {
    const prop = async (c: DiffCase): Promise<boolean> => {
      const outcome = await evaluateSafely(world, c);
      timing.loadMs += outcome.ms.load;
      timing.traceMs += outcome.ms.trace;
      timing.simMs += outcome.ms.sim;
      if (outcome.agree) {
        agree++;
        if (!('error' in outcome.ovn))
          for (const p of outcome.ovn.partial ?? []) partial[p.rule] = (partial[p.rule] ?? 0) + 1;
      } else found.push({ index, c, outcome });
      opts.onProgress?.({ phase: 'case', index, cases, agree, outcome });
      index++;
      return true;
    };
    if (cases > 0) await fc.assert(fc.asyncProperty(arbitraryCase(), prop), { seed, numRuns: cases });
    const disagreements: Disagreement[] = [];
    const shrinkStart = performance.now();
    for (const f of found) {
      opts.onProgress?.({ phase: 'shrink', index: f.index, cases, agree, outcome: f.outcome });
      disagreements.push(await report(world, f, seed, opts));
    }
    timing.shrinkMs = performance.now() - shrinkStart;
    return { cases, agree, disagreements, partial, timing: { totalMs: performance.now() - start, ...timing } };
  } finally {
    if (opts.world === undefined) await world.close();
  }
}

/**
 * Regression cases: every disagreement the differential test ever found,
 * minimized, as one JSON file each under `regressions/` (named by a hash
 * of the case, so finding it again overwrites rather than duplicates). The
 * expected verdict is OVN's, as ovn-trace gave it when the case was found;
 * regressions.test.ts requires the simulator to give it (and, where OVN is
 * installed, ovn-trace to still give it).
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { caseFromJSON, caseToJSON, type DiffCase, type DiffCaseJSON, packetFromJSON } from './case.ts';
import { simAgainstSteps } from './datapath-side.ts';
import { compareObserved, type Observed, observeSim, type VerdictDiff } from './compare.ts';
import { simulateCase } from './simulate-case.ts';

/** verify/difftest/regressions of this checkout. */
export const REGRESSIONS_DIR = fileURLToPath(new URL('./regressions/', import.meta.url));

export interface RegressionFile {
  /** How it was found, e.g. "kovn difftest --seed 7, case 12, minimized in 40 shrinks". */
  readonly found: string;
  readonly case: DiffCaseJSON;
  /** OVN's verdict (ovn-trace, normalized): what the simulator must give. */
  readonly expected: Observed;
  /** What the simulator gave when the case was found, and the diff. */
  readonly simAtDiscovery: Observed;
  readonly diff?: VerdictDiff;
  /** Analysis, filled in by whoever looks at it (which stage is wrong). */
  readonly note?: string;
  /** Who gave `expected`: real packets (`datapath`) or ovn-trace (absent: `trace`). */
  readonly oracle?: 'datapath' | 'trace';
  /**
   * Datapath cases: the packets after the first, as the datapath was sent
   * them (the reply, the first again), each with what the datapath did.
   */
  readonly connection?: readonly ConnectionStep[];
}

export interface ConnectionStep {
  readonly inport: string;
  /** As packetToJSON prints it. */
  readonly packet: Readonly<Record<string, string>>;
  /** Conntrack was flushed before it (a new SCTP connection: datapath-side.ts freshConnection). */
  readonly flushConntrack?: boolean;
  readonly expected: Observed;
}

const withoutPath = (o: Observed): Observed => {
  const { path: _path, ...rest } = o;
  return rest;
};

/** Writes a regression file; returns its path. */
export async function writeRegression(
  dir: string,
  r: {
    found: string;
    case: DiffCase;
    expected: Observed;
    sim: Observed;
    diff?: VerdictDiff;
    note?: string;
    oracle?: 'datapath' | 'trace';
    connection?: readonly ConnectionStep[];
  },
): Promise<string> {
  const json = caseToJSON(r.case);
  const hash = createHash('sha256').update(JSON.stringify(json)).digest('hex').slice(0, 12);
  const file: RegressionFile = {
    found: r.found,
    case: json,
    expected: withoutPath(r.expected),
    simAtDiscovery: withoutPath(r.sim),
    ...(r.diff ? { diff: r.diff } : {}),
    ...(r.note ? { note: r.note } : {}),
    ...(r.oracle ? { oracle: r.oracle } : {}),
    ...(r.connection?.length
      ? { connection: r.connection.map((c) => ({ ...c, expected: withoutPath(c.expected) })) }
      : {}),
  };
  await mkdir(dir, { recursive: true });
  const path = join(dir, `case-${hash}.json`);
  await writeFile(path, `${JSON.stringify(file, null, 2)}\n`);
  return path;
}

export async function readRegressions(
  dir: string = REGRESSIONS_DIR,
): Promise<{ path: string; file: RegressionFile }[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return Promise.all(
    names.map(async (n) => ({
      path: join(dir, n),
      file: JSON.parse(await readFile(join(dir, n), 'utf8')) as RegressionFile,
    })),
  );
}

/**
 * The simulator against a regression's expected verdict: undefined when
 * some simulator run (over the ECMP members) gives it.
 *
 * @example for (const { file } of await readRegressions()) expect(checkRegression(file)).toBeUndefined();
 */
export function checkRegression(file: RegressionFile): VerdictDiff | undefined {
  const c = caseFromJSON(file.case);
  if (file.oracle === 'datapath') {
    const later = (file.connection ?? []).map((s) => ({
      inport: s.inport,
      packet: packetFromJSON(s.packet),
      ...(s.flushConntrack === true ? { flushConntrack: true } : {}),
    }));
    const expected = [file.expected, ...(file.connection ?? []).map((s) => s.expected)];
    return simAgainstSteps(c, later, expected).diff?.diff;
  }
  let first: VerdictDiff | undefined;
  for (const run of simulateCase(c)) {
    const d = compareObserved(observeSim(run.result), file.expected);
    if (d === undefined) return undefined;
    first ??= d;
  }
  return first;
}

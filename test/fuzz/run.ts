/**
 * The fuzz runner (`npm run fuzz`): discovers every `*.fuzz.ts` in the source
 * layers, runs each exported target (test/fuzz/target.ts) on inputs drawn
 * from its arbitrary with a fixed seed, and counts outcomes. Any exception
 * that escapes a target is a finding; so is an input that takes longer than
 * the slow limit (a parser that can be made to crawl is a parser that can be
 * made to hang). Exit code 1 on any finding.
 *
 *   npm run fuzz -- --runs 10000 --seed 7 [--target match] [--json]
 */
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { DEFAULT_SEED } from '../fc.ts';
import type { FuzzTarget } from './target.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const LAYERS = ['model', 'sim', 'backends', 'kube', 'controller', 'node', 'verify', 'scenarios', 'cli'];

export interface TargetReport {
  readonly file: string;
  readonly target: string;
  readonly inputs: number;
  readonly accepted: number;
  readonly rejected: number;
  readonly findings: number;
  /** accepted / inputs. */
  readonly acceptedShare: number;
  /** The first few findings: input index, what happened, a preview of the input. */
  readonly examples: readonly { readonly index: number; readonly error: string; readonly input: string }[];
  readonly ms: number;
}

/** Every `*.fuzz.ts` under the source layers, repository-relative, sorted. */
export function fuzzFiles(root = ROOT): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.fuzz.ts')) out.push(relative(root, p));
    }
  };
  for (const layer of LAYERS) {
    try {
      walk(join(root, layer));
    } catch {
      // a layer folder that does not exist yet
    }
  }
  return out.sort();
}

export async function loadTargets(file: string, root = ROOT): Promise<FuzzTarget[]> {
  const mod = (await import(pathToFileURL(join(root, file)).href)) as { targets?: FuzzTarget[] };
  if (!Array.isArray(mod.targets) || mod.targets.length === 0) throw new Error(`${file}: exports no targets`);
  return mod.targets;
}

function show(input: unknown): string {
  let s: string;
  try {
    s = typeof input === 'string' ? JSON.stringify(input) : (JSON.stringify(input) ?? String(input));
  } catch {
    s = '<unprintable>';
  }
  return s.length > 200 ? `${s.slice(0, 197)}...` : s;
}

/** Runs one target on `runs` inputs from `seed`. */
export async function runTarget(
  file: string,
  target: FuzzTarget,
  opts: { runs: number; seed: number; slowMs?: number },
): Promise<TargetReport> {
  const started = performance.now();
  const inputs = fc.sample(target.arbitrary, { seed: opts.seed, numRuns: opts.runs });
  let accepted = 0;
  let rejected = 0;
  let findings = 0;
  const examples: { index: number; error: string; input: string }[] = [];
  const slow = opts.slowMs ?? 2_000;
  for (const [index, input] of inputs.entries()) {
    const t0 = performance.now();
    let error: string | undefined;
    try {
      const outcome = await target.run(input);
      if (outcome === 'accepted') accepted++;
      else if (outcome === 'rejected') rejected++;
      else error = `run returned ${show(outcome)}`;
    } catch (e) {
      error = e instanceof Error ? `${e.name}: ${e.message}` : `threw ${show(e)}`;
    }
    const took = performance.now() - t0;
    if (error === undefined && took > slow) error = `took ${Math.round(took)} ms (slow limit ${slow} ms)`;
    if (error !== undefined) {
      findings++;
      if (examples.length < 5) examples.push({ index, error: error.slice(0, 300), input: show(input) });
    }
  }
  return {
    file,
    target: target.name,
    inputs: inputs.length,
    accepted,
    rejected,
    findings,
    acceptedShare: inputs.length === 0 ? 0 : accepted / inputs.length,
    examples,
    ms: Math.round(performance.now() - started),
  };
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
}

async function main(): Promise<void> {
  const runs = Number(arg('runs') ?? 10_000);
  const seed = Number(arg('seed') ?? DEFAULT_SEED);
  const only = arg('target');
  const json = process.argv.includes('--json');
  const reports: TargetReport[] = [];
  for (const file of fuzzFiles()) {
    for (const t of await loadTargets(file)) {
      if (only !== undefined && !t.name.includes(only)) continue;
      const r = await runTarget(file, t, { runs, seed });
      reports.push(r);
      if (!json) {
        const share = `${(r.acceptedShare * 100).toFixed(1)}% accepted`;
        process.stdout.write(
          `${r.findings === 0 ? 'ok  ' : 'FAIL'} ${r.target.padEnd(28)} ${String(r.inputs).padStart(7)} inputs  ${String(r.accepted).padStart(7)} accepted  ${String(r.rejected).padStart(7)} rejected  ${String(r.findings).padStart(4)} findings  (${share}, ${r.ms} ms)\n`,
        );
        for (const ex of r.examples)
          process.stdout.write(`       #${ex.index} ${ex.error}\n         input ${ex.input}\n`);
      }
    }
  }
  if (json) process.stdout.write(`${JSON.stringify({ seed, runs, targets: reports }, null, 2)}\n`);
  else process.stdout.write(`seed ${seed}, ${runs} runs a target; replay one with --seed ${seed} --target <name>\n`);
  process.exitCode = reports.some((r) => r.findings > 0) ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

/**
 * Test helpers: a scenario written inline, run through the real loader,
 * controller and simulator (or real OVN), as `kovn sim run` runs it; and the
 * `kovn` command itself on such a file.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadScenario } from '../../scenarios/load.ts';
import { type ProbeWorld, runScenario, SimWorld } from '../../scenarios/run.ts';

const exec = promisify(execFile);
export const KOVN = join(import.meta.dirname, '..', '..', 'cli', 'bin', 'kovn.js');

/** A scratch directory for one test file; `done()` removes it. */
export function scratch(prefix: string): {
  dir: string;
  file: (name: string, text: string) => string;
  done: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return {
    dir,
    file: (name, text) => {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    },
    done: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** `docs` (YAML documents, joined with ---) run as a scenario on `world` (default: the simulator). */
export async function runYaml(path: string, world: ProbeWorld = new SimWorld()) {
  try {
    return await runScenario(loadScenario(path), { world });
  } finally {
    await world.close();
  }
}

/** `kovn <args>`: exit code, stdout, stderr (never throws on a non-zero exit). */
export async function kovn(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await exec(process.execPath, [KOVN, ...args], { maxBuffer: 64 << 20 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

/** A Scenario document with the given probes. */
export function scenarioDoc(name: string, probes: readonly string[]): string {
  return `apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: {name: ${name}}
spec:
  expect:
${probes.map((p) => `  - ${p}`).join('\n')}
`;
}

/** A pod document (namespace default unless given), with labels and one TCP container port 80. */
export function pod(name: string, ns = 'default', extra = ''): string {
  return `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${ns}, labels: {app: ${name}}${extra ? `, ${extra}` : ''}}
spec: {containers: [{name: c, image: x, ports: [{containerPort: 80}]}]}
`;
}

export const join3 = (...docs: string[]) => docs.join('---\n');

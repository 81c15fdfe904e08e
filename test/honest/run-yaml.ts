/**
 * Test helpers: a scenario written inline, run through the real loader,
 * controller and simulator (or real OVN), as `kovn sim run` runs it; and the
 * `kovn` command itself on such a file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKovn } from '../../cli/testing/index.ts';
import { loadScenario } from '../../scenarios/load.ts';
import { type ProbeWorld, runScenario, SimWorld } from '../../scenarios/run.ts';

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

/** `kovn <args>` run to its end (cli/testing's startKovn): exit code, stdout, stderr. */
export async function kovn(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const k = startKovn(args, { tmp: tmpdir() });
  const { code } = await k.exited;
  await k.closed;
  return { code: code ?? -1, stdout: k.stdout(), stderr: k.stderr() };
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

/** A kubeovn.io/v1 object (cluster-scoped) with its spec written in YAML flow style. */
export function kubeovn(kind: string, name: string, spec: string): string {
  return `apiVersion: kubeovn.io/v1\nkind: ${kind}\nmetadata: {name: ${name}}\nspec: ${spec}\n`;
}

export const join3 = (...docs: string[]) => docs.join('---\n');

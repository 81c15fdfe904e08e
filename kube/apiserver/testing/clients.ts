/**
 * The real Kubernetes clients the API front is tested with, found as CI
 * installs them (scripts/test-all.mjs): Debian's kubectl 1.20
 * (kubernetes-client, unpacked under /var/cache/kovn; `KOVN_KUBECTL`
 * overrides) and Python's `kubernetes` module for Debian's /usr/bin/python3
 * (python3-kubernetes). Under `KOVN_REQUIRE_OVN=1` (CI) a missing client is
 * a failure, never a skip.
 */
import { execFile, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { promisify } from 'node:util';

export const DEFAULT_KUBECTL = '/var/cache/kovn/kubernetes-client/usr/bin/kubectl';
export const PYTHON = '/usr/bin/python3';

const executable = (p: string): boolean => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** Debian's kubectl 1.20, or undefined when it is absent (CI: an error). */
export function kubectlBinary(): string | undefined {
  const p = process.env.KOVN_KUBECTL ?? DEFAULT_KUBECTL;
  if (executable(p)) return p;
  if (process.env.KOVN_REQUIRE_OVN === '1') {
    throw new Error(
      `kubectl not found at ${p}: run the test command (scripts/test-all.mjs) to unpack Debian's kubernetes-client`,
    );
  }
  return undefined;
}

/** /usr/bin/python3 when it imports `kubernetes`, else undefined (CI: an error). */
export function pythonWithKubernetes(): string | undefined {
  const ok = executable(PYTHON) && spawnSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0;
  if (ok) return PYTHON;
  if (process.env.KOVN_REQUIRE_OVN === '1') {
    throw new Error(
      `${PYTHON} cannot import kubernetes: install Debian's python3-kubernetes (scripts/test-all.mjs does)`,
    );
  }
  return undefined;
}

export interface KubectlRun {
  readonly stdout: string;
  readonly stderr: string;
  /** kubectl's exit code (0: success). */
  readonly code: number;
}

/**
 * kubectl 1.20 against `kubeconfig`, never the host's own (HOME is `home`);
 * a refusal is returned with its exit code, not thrown.
 *
 * @example const r = await runKubectl(kubeconfig, dir, ['get', 'pods', '-A']); // r.code === 0
 */
export async function runKubectl(kubeconfig: string, home: string, args: readonly string[]): Promise<KubectlRun> {
  const kubectl = kubectlBinary();
  if (kubectl === undefined) throw new Error('kubectl 1.20 is not installed (scripts/test-all.mjs unpacks it)');
  try {
    const r = await promisify(execFile)(kubectl, ['--kubeconfig', kubeconfig, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: home },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { ...r, code: 0 };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; code?: number };
    return {
      stdout: err.stdout ?? '',
      stderr: err.stderr ?? String(e),
      code: typeof err.code === 'number' ? err.code : 1,
    };
  }
}

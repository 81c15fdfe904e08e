/**
 * `kovn sim serve` in the test's own process over scenario files, with its
 * kubeconfig in a temp dir, and kubectl 1.20 pointed at it: what the serve,
 * Python-client and deploy-apply tests each started for themselves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KubectlRun, runKubectl } from '../../kube/apiserver/testing/clients.ts';
import { type Serving, startServe } from '../serve.ts';

export interface ServedForTest {
  readonly dir: string;
  readonly kubeconfig: string;
  readonly serving: Serving;
  /** kubectl against it (HOME is the temp dir); the exit code kept. */
  kubectl(...args: string[]): Promise<KubectlRun>;
  /** Stops serving and removes the temp dir. */
  close(): Promise<void>;
}

/**
 * @example const s = await serveForTest(['scenarios/quickstart.yaml'], 'kovn-serve-test-'); await s.kubectl('get', 'pods', '-A'); await s.close();
 */
export async function serveForTest(files: readonly string[], prefix: string): Promise<ServedForTest> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const kubeconfig = join(dir, 'kubeconfig.yaml');
  try {
    const serving = await startServe({
      files: [...files],
      port: 0,
      kubeconfigOut: kubeconfig,
      controller: true,
      seed: 1,
    });
    return {
      dir,
      kubeconfig,
      serving,
      kubectl: (...args) => runKubectl(kubeconfig, dir, args),
      close: async () => {
        await serving.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

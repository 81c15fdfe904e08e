/**
 * `kovn sim serve` as a process: it writes its kubeconfig once it serves,
 * answers through it, and ends on SIGTERM and SIGINT as every kovn command
 * does (143, 130), leaving no run dir and no daemon of its OVN control plane.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvn } from '../backends/ovn/control-plane/index.ts';
import { runDirs, startKovn } from './testing/index.ts';

let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'serve-process-test-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The kubeconfig once the process wrote it (real time: the process starts a controller). */
async function kubeconfigOf(
  file: string,
  stderr: () => string,
): Promise<{ server: string; ca: string; token: string }> {
  for (let i = 0; i < 600 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
  if (!existsSync(file)) throw new Error(`no kubeconfig after 60 s; stderr: ${stderr()}`);
  const k = JSON.parse(readFileSync(file, 'utf8'));
  return {
    server: k.clusters[0].cluster.server,
    ca: Buffer.from(k.clusters[0].cluster['certificate-authority-data'], 'base64').toString(),
    token: k.users[0].user.token,
  };
}

function get(
  k: { server: string; ca: string; token: string },
  path: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${k.server}${path}`, { ca: k.ca, headers: { authorization: `Bearer ${k.token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A process that runs (a zombie waiting for its reaper has ended). */
const running = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** The pids still running after up to 15 s (a generous bound: the outcome is asserted, not the speed). */
async function stillRunning(pids: readonly number[]): Promise<number[]> {
  for (let i = 0; i < 150 && pids.some(running); i++) await new Promise((r) => setTimeout(r, 100));
  return pids.filter(running);
}

describe('kovn sim serve as a process', () => {
  it('serves through the kubeconfig it wrote and ends on SIGTERM with 143', async () => {
    const file = join(tmp, 'sim.kubeconfig');
    const kovn = startKovn(['sim', 'serve', 'scenarios/quickstart.yaml', '--port', '0', '--kubeconfig-out', file], {
      tmp,
    });
    const k = await kubeconfigOf(file, kovn.stderr);
    const nodes = await get(k, '/api/v1/nodes');
    expect(nodes.status).toBe(200);
    expect(JSON.parse(nodes.body).items.map((n: { metadata: { name: string } }) => n.metadata.name)).toEqual([
      'kovn-node-1',
      'kovn-node-2',
    ]);
    kovn.child.kill('SIGTERM');
    expect(await kovn.exited).toEqual({ code: 143, signal: null });
  }, 90_000);

  it.skipIf(!requireOvn('kovn sim serve --backend ovn as a process'))(
    'with --backend ovn, ends on SIGINT with 130 and leaves no OVN daemon and no run dir',
    async () => {
      const file = join(tmp, 'ovn.kubeconfig');
      const args = ['sim', 'serve', 'scenarios/quickstart.yaml', '--port', '0', '--backend', 'ovn'];
      const kovn = startKovn([...args, '--kubeconfig-out', file], { tmp });
      const k = await kubeconfigOf(file, kovn.stderr);
      const cm = JSON.parse((await get(k, '/api/v1/namespaces/kube-system/configmaps/kovn-ovn')).body);
      const dirs = runDirs(tmp);
      expect(dirs.length).toBeGreaterThan(0);
      const pids = dirs.flatMap((d) =>
        ['nb.pid', 'sb.pid', 'northd.pid']
          .map((p) => join(d, p))
          .filter(existsSync)
          .map((p) => Number(readFileSync(p, 'utf8').trim())),
      );
      expect(pids.length).toBe(3);
      expect(cm.data.nb).toMatch(/^unix:/);
      kovn.child.kill('SIGINT');
      expect(await kovn.exited).toEqual({ code: 130, signal: null });
      expect(runDirs(tmp)).toEqual([]);
      expect(await stillRunning(pids)).toEqual([]);
    },
    90_000,
  );
});

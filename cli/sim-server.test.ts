import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinary } from '../kube/apiserver/testing/clients.ts';
import { type ServedLive, serveLive, startSimLive } from '../scenarios/ko/testing/live.ts';
import { startKovn } from './testing/index.ts';

async function kovn(args: readonly string[], tmp: string) {
  const k = startKovn(args, { tmp });
  const { code } = await k.exited;
  await k.closed;
  return { code, stdout: k.stdout(), stderr: k.stderr() };
}

const QUICKSTART = 'scenarios/quickstart.yaml';
const kubectl = kubectlBinary();

describe('sim run, sim connectivity and trace asking a served cluster (--kubeconfig, --server)', () => {
  let live: Awaited<ReturnType<typeof startSimLive>>;
  let served: ServedLive;
  let tmp: string;
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'sim-server-'));
    live = await startSimLive(QUICKSTART);
    served = await serveLive(live, tmp);
  });
  afterAll(async () => {
    await served?.close();
    live?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it("sim run: the scenario's probes over the served objects, all as expected", async () => {
    const r = await kovn(['sim', 'run', QUICKSTART, '--kubeconfig', served.kubeconfig, '--json'], tmp);
    expect(r.stderr).not.toContain('kovn:');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.results.length).toBe(13);
    expect(out.results.every((x: { ok: boolean }) => x.ok)).toBe(true);
  });

  it("--server overrides the kubeconfig's address", async () => {
    const wrong = join(tmp, 'wrong.yaml');
    writeFileSync(wrong, readFileSync(served.kubeconfig, 'utf8').replace(served.url, 'https://127.0.0.1:1'));
    const bad = await kovn(['sim', 'run', QUICKSTART, '--kubeconfig', wrong, '--json'], tmp);
    expect(bad.code).toBe(1);
    const r = await kovn(['sim', 'run', QUICKSTART, '--kubeconfig', wrong, '--server', served.url, '--json'], tmp);
    expect(r.code).toBe(0);
  });

  it('trace and connectivity with no file: the objects from the cluster', async () => {
    const args = ['--from', 'default/debug', '--to', 'data/db-0', '--protocol', 'TCP', '--port', '5432', '--json'];
    const t = await kovn(['trace', '--kubeconfig', served.kubeconfig, ...args], tmp);
    expect(t.code).toBe(1);
    expect(JSON.parse(t.stdout)).toMatchObject({ verdict: 'dropped' });
    const c = await kovn(
      [
        'sim',
        'connectivity',
        '--kubeconfig',
        served.kubeconfig,
        '--from',
        'default',
        '--to',
        'data',
        '--ports',
        'TCP/5432',
        '--json',
      ],
      tmp,
    );
    expect(c.code).toBe(0);
    expect(JSON.parse(c.stdout).pairs).toEqual([
      expect.objectContaining({ from: 'default/debug', to: 'data/db-0', protocol: 'TCP', port: 5432, allowed: false }),
    ]);
  });

  it.skipIf(kubectl === undefined)(
    "kubectl 1.20 applies a deny-all policy: the quickstart's allowed probe into shop is denied",
    async () => {
      const policy = join(tmp, 'deny-all.yaml');
      writeFileSync(
        policy,
        'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny-all, namespace: shop}\nspec: {podSelector: {}, policyTypes: [Ingress]}\n',
      );
      // Schema validation (/openapi/v2) is the API front's own test; here only the write matters.
      const apply = ['--kubeconfig', served.kubeconfig, 'apply', '--validate=false', '-f', policy];
      await promisify(execFile)(kubectl!, apply);
      const r = await kovn(['sim', 'run', QUICKSTART, '--kubeconfig', served.kubeconfig, '--json'], tmp);
      expect(r.code).toBe(1);
      const failed = JSON.parse(r.stdout).results.filter((x: { ok: boolean }) => !x.ok);
      expect(failed.map((x: { to: string; port: number; allowed: boolean }) => [x.to, x.port, x.allowed])).toEqual([
        ['svc/shop/web', 80, false],
      ]);
    },
  );
});

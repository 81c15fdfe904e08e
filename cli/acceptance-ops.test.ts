/**
 * The path with real processes: `kovn sim serve --backend ovn`, kubectl 1.20 against it, and
 * `kovn sim run --kubeconfig/--server` and `kovn ko` asking it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvn } from '../backends/ovn/control-plane/index.ts';
import { kubectlBinary } from '../kube/apiserver/testing/clients.ts';
import { type Kovn, startKovn } from './testing/index.ts';

const kubectl = kubectlBinary();
const QUICKSTART = 'scenarios/quickstart.yaml';

async function kovn(args: readonly string[], tmp: string) {
  const k = startKovn(args, { tmp });
  const { code } = await k.exited;
  await k.closed;
  return { code, stdout: k.stdout(), stderr: k.stderr() };
}

describe.skipIf(!requireOvn('serve, sim run and ko as processes') || kubectl === undefined)(
  'kovn sim serve --backend ovn, asked by kubectl, kovn sim run and kovn ko',
  () => {
    let tmp = '';
    let serve: Kovn;
    let kubeconfig = '';
    let server = '';
    beforeAll(async () => {
      tmp = mkdtempSync(join(tmpdir(), 'ops-acceptance-'));
      kubeconfig = join(tmp, 'k.yaml');
      serve = startKovn(
        ['sim', 'serve', QUICKSTART, '--port', '0', '--backend', 'ovn', '--kubeconfig-out', kubeconfig],
        { tmp },
      );
      for (let i = 0; i < 600 && !existsSync(kubeconfig); i++) await new Promise((r) => setTimeout(r, 100));
      if (!existsSync(kubeconfig)) throw new Error(`no kubeconfig after 60 s: ${serve.stderr()}`);
      server = JSON.parse(readFileSync(kubeconfig, 'utf8')).clusters[0].cluster.server;
    }, 90_000);
    afterAll(async () => {
      serve?.child.kill('SIGTERM');
      await serve?.exited;
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    });

    it('sim run over the served objects; kubectl applies deny-all; sim run --server sees it', async () => {
      const before = await kovn(['sim', 'run', QUICKSTART, '--kubeconfig', kubeconfig], tmp);
      expect(before.stdout).toContain('13/13 probes as expected');
      expect(before.code).toBe(0);
      const policy = join(tmp, 'deny-all.yaml');
      writeFileSync(
        policy,
        'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny-all, namespace: shop}\nspec: {podSelector: {}, policyTypes: [Ingress]}\n',
      );
      await promisify(execFile)(kubectl!, ['--kubeconfig', kubeconfig, 'apply', '-f', policy]);
      const after = await kovn(
        ['sim', 'run', QUICKSTART, '--kubeconfig', kubeconfig, '--server', server, '--json'],
        tmp,
      );
      expect(after.code).toBe(1);
      const failed = JSON.parse(after.stdout).results.filter((r: { ok: boolean }) => !r.ok);
      expect(failed.map((r: { to: string; port: number; allowed: boolean }) => [r.to, r.port, r.allowed])).toEqual([
        ['svc/shop/web', 80, false],
      ]);
    }, 90_000);

    it('kovn ko over the ConfigMap serve wrote: status, diagnose, trace, nbctl', async () => {
      const status = await kovn(['ko', 'status', '--kubeconfig', kubeconfig], tmp);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain('standalone');
      const d = await kovn(['ko', 'diagnose', '--kubeconfig', kubeconfig], tmp);
      expect(d.stdout).toMatch(/^no findings \(\d+ objects, \d+ rows of kovn in NB\)$/m);
      expect(d.code).toBe(0);
      const t = await kovn(
        ['ko', 'trace', '--kubeconfig', kubeconfig, 'default/debug', 'svc/shop/web', 'tcp', '80', '--json'],
        tmp,
      );
      expect(t.code).toBe(0);
      // deny-all of the test above: both sides drop it.
      expect(JSON.parse(t.stdout)).toMatchObject({ sim: { allowed: false }, ovn: { allowed: false }, agree: true });
      const acl = await kovn(
        ['ko', 'nbctl', '--kubeconfig', kubeconfig, '--bare', '--columns=name', 'list', 'Port_Group'],
        tmp,
      );
      expect(acl.stdout.split('\n')).toContain('deny.all.shop');
    }, 90_000);
  },
);

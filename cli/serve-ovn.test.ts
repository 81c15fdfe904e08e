import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvn } from '../backends/ovn/control-plane/index.ts';
import { kubectlBinary } from '../kube/apiserver/testing/clients.ts';
import { type Serving, startServe } from './serve.ts';

const run = promisify(execFile);
const enabled = requireOvn('kovn sim serve --backend ovn');
const kubectl = kubectlBinary();
let serving: Serving | undefined;
let dir = '';

beforeAll(async () => {
  if (!enabled) return;
  dir = mkdtempSync(join(tmpdir(), 'kovn-serve-ovn-'));
  serving = await startServe({
    kubeconfigOut: join(dir, 'kubeconfig'),
    files: ['scenarios/quickstart.yaml'],
    port: 0,
    backend: 'ovn',
    controller: true,
    seed: 1,
  });
});
afterAll(async () => {
  await serving?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Polls NB (real time: the controller commits on its own) until `f` holds of `ovn-nbctl` output, or 20 s pass. */
async function nbUntil(nb: string, args: string[], f: (out: string) => boolean): Promise<string> {
  let out = '';
  for (let i = 0; i < 200; i++) {
    out = (await run('ovn-nbctl', [`--db=${nb}`, ...args])).stdout;
    if (f(out)) return out;
    await new Promise((r) => setTimeout(r, 100));
  }
  return out;
}

describe.skipIf(!enabled)('kovn sim serve --backend ovn', () => {
  it('runs the controller on a local NB and names the databases in ConfigMap kube-system/kovn-ovn', async () => {
    const cm = await serving!.cluster.get({ kind: 'ConfigMap', namespace: 'kube-system', name: 'kovn-ovn' });
    const data = cm?.['data'] as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual(['nb', 'nbCtl', 'sb', 'sbCtl']);
    // The pod's port is in NB, where the ConfigMap says NB is.
    let ports = '';
    for (let i = 0; i < 100 && !ports.includes('db-0.data'); i++) {
      ports = (
        await run('ovn-nbctl', [`--db=${data['nb']}`, '--columns=name', '--bare', 'list', 'Logical_Switch_Port'])
      ).stdout;
      if (!ports.includes('db-0.data')) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ports).toContain('db-0.data');
    const status = await run('ovs-appctl', ['-t', data['nbCtl']!, 'ovsdb-server/list-dbs']);
    expect(status.stdout).toContain('OVN_Northbound');
  });

  it.skipIf(kubectl === undefined)(
    'kubectl apply of a NetworkPolicy reaches NB through the controller inside, and its delete removes it',
    async () => {
      const cm = await serving!.cluster.get({ kind: 'ConfigMap', namespace: 'kube-system', name: 'kovn-ovn' });
      const nb = (cm?.['data'] as Record<string, string> | undefined)?.['nb'];
      if (nb === undefined) throw new Error('ConfigMap kube-system/kovn-ovn names no NB');
      const file = join(dir, 'deny.yaml');
      writeFileSync(
        file,
        'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: deny-all\n  namespace: data\nspec:\n  podSelector: {}\n  policyTypes: [Ingress]\n',
      );
      const k = (...args: string[]) =>
        run(kubectl!, ['--kubeconfig', join(dir, 'kubeconfig'), ...args], { env: { HOME: dir } });
      await k('apply', '-f', file);
      const groups = ['--columns=name', '--bare', 'list', 'Port_Group'];
      // Kube-OVN's port group for a policy: <name>.<namespace>, dashes as dots.
      expect(await nbUntil(nb, groups, (o) => o.includes('deny.all.data'))).toContain('deny.all.data');
      await k('delete', '-f', file);
      expect(await nbUntil(nb, groups, (o) => !o.includes('deny.all.data'))).not.toContain('deny.all.data');
    },
  );
});

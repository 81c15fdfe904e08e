import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinary } from '../kube/apiserver/testing/clients.ts';
import type { Serving } from './serve.ts';
import { type ServedForTest, serveForTest } from './testing/serve.ts';

const kubectl = kubectlBinary();
let served: ServedForTest;
let dir: string;
let serving: Serving;
let kubeconfig: string;
const k = (...args: string[]) => served.kubectl(...args);

/** Polls (real time: the controller and kubelet run on it) until `f` holds or 20 s pass. */
async function eventually(f: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await f()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not reached in 20 s');
}

beforeAll(async () => {
  served = await serveForTest(['scenarios/quickstart.yaml'], 'kovn-serve-test-');
  ({ dir, serving, kubeconfig } = served);
});
afterAll(async () => {
  await served?.close();
});

describe.skipIf(kubectl === undefined)('kovn sim serve with kubectl 1.20', () => {
  it('writes a kubeconfig naming the endpoint, and kubectl shows the pods with the addresses IPAM gave', async () => {
    expect(readFileSync(kubeconfig, 'utf8')).toContain(serving.url);
    await eventually(async () => {
      const pods = JSON.parse((await k('get', 'pods', '-A', '-o', 'json')).stdout);
      return pods.items.length === 4 && pods.items.every((p: { status?: { podIP?: string } }) => p.status?.podIP);
    });
    const wide = await k('get', 'pods', '-A', '-o', 'wide');
    expect(wide.code).toBe(0);
    const db = wide.stdout.split('\n').find((l) => l.includes('db-0'));
    expect(db).toMatch(/Running/);
    expect(db).toMatch(/10\.17\.0\.\d+/);
  });

  it('applies, labels, patches and deletes through kubectl, and get -w follows changes', async () => {
    const policy = join(dir, 'deny.yaml');
    writeFileSync(
      policy,
      'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: deny-all\n  namespace: data\nspec:\n  podSelector: {}\n  policyTypes: [Ingress]\n',
    );
    const applied = await k('apply', '-f', policy);
    expect(applied.code, applied.stderr).toBe(0);
    // A second apply of a changed file is a strategic merge patch.
    writeFileSync(policy, readFileSync(policy, 'utf8').replace('[Ingress]', '[Ingress, Egress]'));
    const again = await k('apply', '-f', policy);
    expect(again.stdout).toContain('configured');
    const np = JSON.parse((await k('get', 'networkpolicy', '-n', 'data', 'deny-all', '-o', 'json')).stdout);
    expect(np.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect((await k('label', 'pod', '-n', 'data', 'db-0', 'extra=yes')).code).toBe(0);
    const patched = await k('patch', 'subnet', 'data', '--type', 'merge', '-p', '{"spec":{"private":true}}');
    expect(patched.code, patched.stderr).toBe(0);
    const yaml = await k('get', 'subnet', 'data', '-o', 'yaml');
    expect(yaml.stdout).toMatch(/private: true/);
    // Ends by its request timeout (an error exit), with what it watched on stdout.
    const watcher = k('get', 'pods', '-n', 'data', '-w', '--request-timeout=3s');
    await new Promise((r) => setTimeout(r, 500));
    expect((await k('label', 'pod', '-n', 'data', 'db-0', 'extra-')).code).toBe(0);
    const deleted = await k('delete', 'networkpolicy', '-n', 'data', 'deny-all');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await k('get', 'networkpolicy', '-n', 'data', 'deny-all')).stderr).toContain('NotFound');
    const watched = (await watcher).stdout;
    expect(watched).toContain('db-0');
  });

  it('kubectl apply of a changed Deployment leaves exactly the new manifest (its strategic merge patch applied)', async () => {
    const file = join(dir, 'deploy.yaml');
    const manifest = (containers: object[], labels: object) =>
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'smp', namespace: 'default', labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'smp' } },
          template: { metadata: { labels: { app: 'smp' } }, spec: { containers } },
        },
      });
    const v1 = [
      {
        name: 'a',
        image: 'nginx:1',
        ports: [{ containerPort: 80 }, { containerPort: 81 }],
        env: [
          { name: 'X', value: '1' },
          { name: 'Y', value: '2' },
        ],
      },
      { name: 'b', image: 'busybox' },
    ];
    const v2 = [
      { name: 'c', image: 'redis' },
      { name: 'a', image: 'nginx:2', ports: [{ containerPort: 81 }], env: [{ name: 'Y', value: '3' }] },
    ];
    writeFileSync(file, manifest(v1, { keep: 'me', drop: 'me' }));
    expect((await k('apply', '-f', file)).code).toBe(0);
    writeFileSync(file, manifest(v2, { keep: 'me' }));
    const r = await k('apply', '-f', file);
    expect(r.code, r.stderr).toBe(0);
    const got = JSON.parse((await k('get', 'deployment', 'smp', '-o', 'json')).stdout);
    expect(got.spec.template.spec.containers).toEqual(v2);
    expect(got.metadata.labels).toEqual({ keep: 'me' });
  });

  it('kubectl create makes objects, refuses a taken name, and delete -f removes them', async () => {
    const made = await k('create', 'configmap', 'made', '--from-literal=a=b');
    expect(made.code, made.stderr).toBe(0);
    const taken = await k('create', 'configmap', 'made', '--from-literal=a=c');
    expect(taken.stderr).toContain('AlreadyExists');
    const file = join(dir, 'pod.json');
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'made-pod', namespace: 'default' },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      }),
    );
    expect((await k('create', '-f', file)).code).toBe(0);
    const cm = JSON.parse((await k('get', 'configmap', 'made', '-o', 'json')).stdout);
    expect(cm.data).toEqual({ a: 'b' });
    expect((await k('delete', '-f', file)).code).toBe(0);
    expect((await k('get', 'pod', 'made-pod')).stderr).toContain('NotFound');
  });

  it('answers kubectl an error body for what is not served', async () => {
    const r = await k('get', 'widgets');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/the server doesn't have a resource type "widgets"/);
  });
});

/**
 * The API source against kovn's own API front (what `kovn sim serve`
 * serves) over HTTPS, in process: every verb of the ClusterSource contract,
 * selectors, watches with 410 Gone, events deduplicated on the server.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiDescription } from '../../apiserver/describe/index.ts';
import { type ApiServer, renderKubeconfig, selfSignedCertificate, startApiServer } from '../../apiserver/http/index.ts';
import { realClock } from '../../runtime/clock.ts';
import { Informer } from '../../runtime/informer.ts';
import { MemoryCluster } from '../memory.ts';
import { ClusterError, type KubeObject, type WatchEvent } from '../types.ts';
import { connectApiSource } from './connect.ts';
import type { ApiClusterSource } from './source.ts';

let dir: string;
let cluster: MemoryCluster;
let api: ApiServer;
let source: ApiClusterSource;
let shortWatches: ApiClusterSource;
let tlsCert: string;

const pod = (name: string, node: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'shop', labels },
  spec: { nodeName: node, containers: [{ name: 'app', image: 'nginx' }] },
});

const error = (p: Promise<unknown>): Promise<ClusterError> =>
  p.then(
    () => {
      throw new Error('expected a ClusterError');
    },
    (e: unknown) => {
      expect(e).toBeInstanceOf(ClusterError);
      return e as ClusterError;
    },
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kovn-api-serve-'));
  // A short history, so a watch from an old version is Gone.
  cluster = new MemoryCluster({ now: () => Date.now(), historyLimit: 50 });
  await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
  const description = await createApiDescription(cluster, { crdFiles: [], now: () => Date.now() });
  const tls = await selfSignedCertificate();
  tlsCert = tls.cert;
  api = await startApiServer({
    ...{ cluster, description, clock: realClock, random: () => 0.5, token: 't0k', tls, port: 0 },
    bookmarkIntervalMs: 200,
  });
  const kubeconfig = join(dir, 'k.yaml');
  writeFileSync(kubeconfig, renderKubeconfig({ server: api.url, caCert: tls.cert, token: 't0k' }));
  source = await connectApiSource({ kubeconfig, clock: realClock, random: Math.random });
  // Streams the server ends after a second: the watch must carry on across them.
  shortWatches = await connectApiSource({ kubeconfig, clock: realClock, random: () => 0, watchTimeoutSeconds: 1 });
});

afterAll(async () => {
  source?.close();
  shortWatches?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the API source against the API front', () => {
  it('creates, reads, patches, updates status and deletes, with the cluster’s refusals as reasons', async () => {
    const made = await source.create(pod('web', 'n1', { app: 'web' }));
    expect(made).toMatchObject({ apiVersion: 'v1', kind: 'Pod', metadata: { uid: expect.any(String) } });
    expect((await error(source.create(pod('web', 'n1')))).reason).toBe('AlreadyExists');
    const patched = await source.patch(
      { kind: 'Pod', namespace: 'shop', name: 'web' },
      { metadata: { annotations: { 'ovn.kubernetes.io/allocated': 'true' } } },
    );
    expect(patched.metadata.annotations).toEqual({ 'ovn.kubernetes.io/allocated': 'true' });
    const running = await source.patch(
      { kind: 'Pod', namespace: 'shop', name: 'web' },
      { status: { phase: 'Running' } },
      { subresource: 'status' },
    );
    expect(running.status).toEqual({ phase: 'Running' });
    const stale = { ...made, status: { phase: 'Failed' } };
    expect((await error(source.updateStatus(stale))).reason).toBe('Conflict');
    const current = (await source.get({ kind: 'Pod', namespace: 'shop', name: 'web' }))!;
    const updated = await source.update({ ...current, metadata: { ...current.metadata, labels: { app: 'v2' } } });
    expect(updated.metadata.labels).toEqual({ app: 'v2' });
    expect(updated.status).toEqual({ phase: 'Running' });
    await source.delete({ kind: 'Pod', namespace: 'shop', name: 'web' });
    expect(await source.get({ kind: 'Pod', namespace: 'shop', name: 'web' })).toBeUndefined();
    expect((await error(source.delete({ kind: 'Pod', namespace: 'shop', name: 'web' }))).reason).toBe('NotFound');
  });

  it('lists with label and field selectors applied by the server, and refuses one it cannot apply', async () => {
    await source.create(pod('a', 'n1', { app: 'a' }));
    await source.create(pod('b', 'n2', { app: 'b' }));
    const names = async (o: Parameters<ApiClusterSource['list']>[1]) =>
      (await source.list('Pod', o)).items.map((p) => p.metadata.name);
    expect(await names({ namespace: 'shop', fieldSelector: 'spec.nodeName=n2' })).toEqual(['b']);
    expect(await names({ labelSelector: 'app in (a,b),app!=b' })).toEqual(['a']);
    expect((await error(source.list('Pod', { fieldSelector: 'spec.color=red' }))).reason).toBe('Invalid');
    const { resourceVersion } = await source.list('Pod');
    expect(resourceVersion).toBe(cluster.resourceVersion);
  });

  it('watches from a version with a field selector, and a version past the history is Gone', async () => {
    const { resourceVersion } = await source.list('Pod');
    const seen: string[] = [];
    const w = source.watch(
      'Pod',
      resourceVersion,
      (e: WatchEvent) => seen.push(`${e.type} ${e.object.kind} ${e.object.metadata.name}`),
      undefined,
      { fieldSelector: 'spec.nodeName=n1' },
    );
    await source.create(pod('c', 'n2'));
    await source.create(pod('d', 'n1'));
    await source.delete({ kind: 'Pod', namespace: 'shop', name: 'd' });
    await until(() => seen.length >= 2);
    w.stop();
    expect(seen).toEqual(['ADDED Pod d', 'DELETED Pod d']);
    for (let i = 0; i < 60; i++)
      await cluster.patch({ kind: 'Namespace', name: 'shop' }, { metadata: { labels: { i: `${i}` } } });
    const gone = await new Promise<ClusterError>((resolve) => source.watch('Pod', resourceVersion, () => {}, resolve));
    expect(gone.reason).toBe('Gone');
  });

  it('a watch goes on across streams the server ends, from the last version it saw: nothing lost or repeated', async () => {
    const { resourceVersion } = await source.list('Pod', { namespace: 'shop' });
    const seen: string[] = [];
    const errors: ClusterError[] = [];
    const w = shortWatches.watch(
      'Pod',
      resourceVersion,
      (e) => seen.push(`${e.type} ${e.object.metadata.name}`),
      (e) => errors.push(e),
      { namespace: 'shop' },
    );
    const watches = () => api.handler.stats().byVerb['watch'] ?? 0;
    const before = watches();
    await source.create(pod('f', 'n1'));
    await until(() => seen.length === 1);
    // Two streams ended by the server (after 1 s each) and taken up again.
    await until(() => watches() >= before + 2, 5_000);
    await source.create(pod('g', 'n1'));
    await until(() => seen.length === 2);
    w.stop();
    expect(seen).toEqual(['ADDED f', 'ADDED g']);
    expect(errors).toEqual([]);
  });

  it('in-cluster: the address from the environment, the token and CA from the service account’s files', async () => {
    const root = join(dir, 'pod');
    const sa = join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), 't0k');
    writeFileSync(join(sa, 'ca.crt'), tlsCert);
    writeFileSync(join(sa, 'namespace'), 'kube-system');
    const saved = { host: process.env['KUBERNETES_SERVICE_HOST'], port: process.env['KUBERNETES_SERVICE_PORT'] };
    process.env['KUBERNETES_SERVICE_HOST'] = '127.0.0.1';
    process.env['KUBERNETES_SERVICE_PORT'] = String(api.port);
    try {
      const s = await connectApiSource({
        kubeconfig: 'in-cluster',
        serviceAccountPrefix: root,
        clock: realClock,
        random: Math.random,
      });
      expect((await s.get({ kind: 'Namespace', name: 'shop' }))?.metadata.name).toBe('shop');
      s.close();
    } finally {
      for (const [k, v] of [
        ['KUBERNETES_SERVICE_HOST', saved.host],
        ['KUBERNETES_SERVICE_PORT', saved.port],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('an informer over the source fills its cache and follows the cluster', async () => {
    const inf = new Informer(source, 'Pod', { clock: realClock, namespace: 'shop' });
    await inf.start();
    await source.create(pod('e', 'n1'));
    await until(() => inf.get('shop/e') !== undefined);
    inf.stop();
    expect(inf.stats.lists).toBe(1);
  });

  it('the same event three times is one Event with count 3 on the server', async () => {
    const e = {
      involved: { kind: 'Pod', namespace: 'shop', name: 'a' },
      type: 'Warning' as const,
      reason: 'AcquireAddressFailed',
      message: 'subnet ovn-default has no free address',
    };
    for (let i = 0; i < 3; i++) await source.recordEvent(e);
    const events = (await source.list('Event', { namespace: 'shop' })).items.filter(
      (x) => x['reason'] === 'AcquireAddressFailed',
    );
    expect(events.map((x) => [x['count'], x['message']])).toEqual([[3, e.message]]);
  });
});

async function until(f: () => boolean, ms = 5_000): Promise<void> {
  for (let i = 0; i < ms / 10 && !f(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(f()).toBe(true);
}

/**
 * The streams of the API front: watch events from a version or with the
 * initial objects, timeouts, 410 as an ERROR event, bookmarks, a stalled
 * client dropped; and a list written in chunks arriving whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../cluster/memory.ts';
import { realClock } from '../../runtime/clock.ts';
import { type ApiServer, startApiServer } from './server.ts';
import { testDescription } from './testing/description.ts';
import { withTestServer } from './testing/server.ts';
import { type TestClient, testClient } from './testing/client.ts';
import { selfSignedCertificate, type TlsIdentity } from './tls.ts';

const TOKEN = 'test-token';
let tls: TlsIdentity;
let cluster: MemoryCluster;
let api: ApiServer;
let c: TestClient;

beforeAll(async () => {
  tls = await selfSignedCertificate();
  cluster = new MemoryCluster();
  await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  api = await startApiServer({
    cluster,
    description: testDescription(),
    clock: realClock,
    random: () => 0.5,
    token: TOKEN,
    tls,
  });
  c = testClient(api.url, tls.cert, TOKEN);
});
afterAll(async () => {
  await api?.close();
});

describe('watch and list streams of the API front', () => {
  it('streams watch events from a version, with the initial objects when none is given', async () => {
    const list = await c.call('GET', '/api/v1/namespaces/default/configmaps');
    const rv = list.body.metadata.resourceVersion;
    const w = await c.watch(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: '1' } };
    await c.call('POST', '/api/v1/namespaces/default/configmaps', cm);
    await c.call(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/c1',
      { data: { a: '2' } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    await c.call('DELETE', '/api/v1/namespaces/default/configmaps/c1');
    const events = await w.take(3);
    expect(events.map((e) => [e.type, e.object.data?.a])).toEqual([
      ['ADDED', '1'],
      ['MODIFIED', '2'],
      ['DELETED', '2'],
    ]);
    w.close();
    await c.call('POST', '/api/v1/namespaces/default/configmaps', { ...cm, metadata: { name: 'c2' } });
    const fresh = await c.watch('/api/v1/namespaces/default/configmaps?watch=true');
    expect(await fresh.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'c2' } } });
    fresh.close();
  });

  it('ends a watch after timeoutSeconds, and a too-old version with an ERROR event carrying a 410 Status', async () => {
    const small = new MemoryCluster({ historyLimit: 1 });
    await withTestServer(small, tls, {}, async (c2) => {
      for (const n of ['a', 'b', 'c'])
        await c2.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
      const old = await c2.watch('/api/v1/namespaces?watch=1&resourceVersion=1');
      expect(await old.next()).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410 } });
      expect(await old.next()).toBeUndefined();
      const timed = await c2.watch('/api/v1/namespaces?watch=1&resourceVersion=3&timeoutSeconds=1');
      expect(await timed.next()).toBeUndefined();
    });
  });

  it('sends BOOKMARK events carrying the last version when the client allows them', async () => {
    await withTestServer(cluster, tls, { bookmarkIntervalMs: 50 }, async (c3) => {
      const rv = (await c3.call('GET', '/api/v1/namespaces')).body.metadata.resourceVersion;
      const w = await c3.watch(`/api/v1/namespaces?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`);
      await c3.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bm' } });
      const added = await w.next();
      expect(added.type).toBe('ADDED');
      const bm = await w.next();
      expect(bm).toEqual({
        type: 'BOOKMARK',
        object: {
          kind: 'Namespace',
          apiVersion: 'v1',
          metadata: { resourceVersion: added.object.metadata.resourceVersion },
        },
      });
      w.close();
    });
  });

  it("bookmarks a quiet kind's watch at the cluster's version, so it resumes after other kinds churn past the history", async () => {
    const small = new MemoryCluster({ historyLimit: 5 });
    await withTestServer(small, tls, { bookmarkIntervalMs: 50 }, async (c5) => {
      const rv = (await c5.call('GET', '/api/v1/namespaces')).body.metadata.resourceVersion;
      const w = await c5.watch(`/api/v1/namespaces?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`);
      let last = '';
      for (let i = 0; i < 20; i++) {
        const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm${i}`, namespace: 'default' } };
        last = (await c5.call('POST', '/api/v1/namespaces/default/configmaps', cm)).body.metadata.resourceVersion;
      }
      // A few bookmarks come while nothing of the kind changes; one of them must be at the cluster's version.
      let bm = await w.next();
      for (let i = 0; i < 5 && Number(bm.object.metadata.resourceVersion) < Number(last); i++) bm = await w.next();
      expect(bm.type).toBe('BOOKMARK');
      expect(Number(bm.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(last));
      w.close();
      // Resuming from the bookmark is not Gone, though the history no longer holds the namespaces' last change.
      const again = await c5.watch(`/api/v1/namespaces?watch=1&resourceVersion=${bm.object.metadata.resourceVersion}`);
      await c5.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'late' } });
      const e = await again.next();
      expect([e.type, e.object.metadata.name]).toEqual(['ADDED', 'late']);
      again.close();
    });
  });

  it('drops a watch whose client does not read once its backlog passes the bound', async () => {
    await withTestServer(cluster, tls, { maxWatchBufferBytes: 64 * 1024 }, async (c4, api4) => {
      const w = await c4.watch('/api/v1/namespaces?watch=1');
      w.res.pause();
      const big = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 400; i++)
        await c4.call('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: `slow-${i}`, annotations: { big } },
        });
      let open = 1;
      for (let i = 0; i < 100 && open !== 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
        open = api4.handler.stats().watchesOpen;
      }
      expect(open).toBe(0);
      w.close();
    });
  });

  it('writes a list larger than its write chunks whole', async () => {
    const data = { v: 'y'.repeat(1024) };
    for (let i = 0; i < 300; i++)
      await c.call('POST', '/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `many-${i}` },
        data,
      });
    const r = await c.call('GET', '/api/v1/namespaces/default/configmaps?labelSelector=');
    expect(r.status).toBe(200);
    const want = await cluster.list('ConfigMap', { namespace: 'default' });
    expect(r.body).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: want.resourceVersion },
      items: JSON.parse(JSON.stringify(want.items)),
    });
    expect(r.text.length).toBeGreaterThan(300 * 1024);
  });
});

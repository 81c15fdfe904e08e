import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../cluster/memory.ts';
import { realClock } from '../../runtime/clock.ts';
import { type ApiServer, startApiServer } from './server.ts';
import { testDescription } from './testing/description.ts';
import { type Json, type TestClient, testClient } from './testing/client.ts';
import { selfSignedCertificate, type TlsIdentity } from './tls.ts';

const TOKEN = 'test-token';
let tls: TlsIdentity;
let cluster: MemoryCluster;
let api: ApiServer;
let c: TestClient;

const pod = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }] }] },
});

beforeAll(async () => {
  tls = await selfSignedCertificate();
  cluster = new MemoryCluster();
  await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  api = await startApiServer({
    cluster,
    description: testDescription({
      unknownFields: ['spec.bogus', 'metadata.name', 'metadata.labels', 'metadata.bogus', 'kind'],
      invalidFields: ['spec.refuseMe'],
    }),
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

describe('the API front over HTTPS', () => {
  it('refuses a request without the token with a 401 Status, and answers health probes without one', async () => {
    const anon = testClient(api.url, tls.cert);
    const r = await anon.call('GET', '/api/v1/namespaces/default/pods');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    expect((await anon.call('GET', '/healthz')).text).toBe('ok');
  });

  it('creates, gets, lists, updates and deletes a pod', async () => {
    const created = await c.call('POST', '/api/v1/namespaces/default/pods', pod('web', { app: 'web' }));
    expect(created.status).toBe(201);
    expect(created.body.metadata).toMatchObject({ name: 'web', namespace: 'default', uid: expect.any(String) });
    const got = await c.call('GET', '/api/v1/namespaces/default/pods/web');
    expect(got.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    const list = await c.call('GET', '/api/v1/namespaces/default/pods');
    expect(list.body).toMatchObject({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: /\d+/ } });
    expect(list.body.items.map((p: Json) => p.metadata.name)).toContain('web');
    const all = await c.call('GET', '/api/v1/pods');
    expect(all.body.items.map((p: Json) => p.metadata.name)).toContain('web');
    const next = { ...got.body, metadata: { ...got.body.metadata, labels: { app: 'web2' } } };
    const upd = await c.call('PUT', '/api/v1/namespaces/default/pods/web', next);
    expect(upd.status).toBe(200);
    expect(upd.body.metadata.labels).toEqual({ app: 'web2' });
    const stale = await c.call('PUT', '/api/v1/namespaces/default/pods/web', next);
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ kind: 'Status', reason: 'Conflict' });
    const del = await c.call('DELETE', '/api/v1/namespaces/default/pods/web');
    expect(del.status).toBe(200);
    const gone = await c.call('GET', '/api/v1/namespaces/default/pods/web');
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ reason: 'NotFound', message: 'pods "web" not found', code: 404 });
  });

  it('answers the API Status for what it does not serve, never hangs', async () => {
    expect((await c.call('GET', '/api/v1/namespaces/default/widgets')).status).toBe(404);
    expect((await c.call('GET', '/apis/nope.io/v1/things')).body).toMatchObject({ kind: 'Status', code: 404 });
    expect((await c.call('POST', '/api/v1/namespaces/default/pods/web')).status).toBe(405);
    expect((await c.call('POST', '/api/v1/watch/namespaces/default/pods', pod('via-watch'))).status).toBe(405);
    expect((await c.call('GET', '/api/v1/namespaces/default/pods/via-watch')).status).toBe(404);
    expect((await c.call('GET', '/api/v1/pods/web')).status).toBe(404);
    // A target starting with // is a path (found by robust.test.ts: it was read as a host, a 500).
    expect((await c.call('GET', '//%2F')).body).toMatchObject({ kind: 'Status', code: 404 });
    expect((await c.call('GET', '/api/v1/namespaces/default/configmaps/x/status')).status).toBe(404);
    const dup = pod('dup');
    expect((await c.call('POST', '/api/v1/namespaces/default/pods', dup)).status).toBe(201);
    const again = await c.call('POST', '/api/v1/namespaces/default/pods', dup);
    expect(again.body).toMatchObject({ reason: 'AlreadyExists', code: 409 });
    const wrongNs = await c.call('POST', '/api/v1/namespaces/default/pods', {
      ...pod('x'),
      metadata: { name: 'x', namespace: 'other' },
    });
    expect(wrongNs.status).toBe(400);
    const notJson = await c.call(
      'PATCH',
      '/api/v1/namespaces/default/pods/dup',
      { a: 1 },
      {
        'content-type': 'application/apply-patch+yaml',
      },
    );
    expect(notJson.status).toBe(415);
    expect((await c.call('POST', '/api/v1/namespaces/default/pods?dryRun=All', pod('dry'))).status).toBe(400);
    // ObjectMeta decodes as the server's type or not at all.
    for (const metadata of [
      { name: 'm1', labels: { a: 1 } },
      { name: 'm2', finalizers: 'x' },
      { name: 'm3', ownerReferences: [{ name: 'o' }] },
      { name: 4 },
    ]) {
      const r = await c.call('POST', '/api/v1/namespaces/default/pods', { ...pod('m'), metadata });
      expect(r.body, JSON.stringify(metadata)).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    }
  });

  it('refuses an invalid object with a 422 naming the field, and prunes an unknown one with a Warning', async () => {
    const bad = await c.call('POST', '/api/v1/namespaces/default/pods', {
      ...pod('bad'),
      spec: { ...pod('bad').spec, refuseMe: 1 },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.refuseMe', message: 'Invalid value' },
    ]);
    const odd = await c.call('POST', '/api/v1/namespaces/default/pods', {
      ...pod('odd'),
      metadata: { name: 'odd', labels: { a: 'b' }, bogus: 1 },
      spec: { bogus: 1 },
    });
    expect(odd.status).toBe(201);
    // A validator's word on ObjectMeta, apiVersion or kind is not acted on: they are the server's fields.
    expect(odd.headers.warning).toBe(
      '299 - "unknown field \\"spec.bogus\\"", 299 - "unknown field \\"metadata.bogus\\""',
    );
    expect(odd.body.spec).toEqual({});
    expect(odd.body.metadata).toMatchObject({ name: 'odd', labels: { a: 'b' } });
    expect(odd.body.metadata.bogus).toBeUndefined();
    const strict = await c.call('POST', '/api/v1/namespaces/default/pods?fieldValidation=Strict', {
      ...pod('strict'),
      spec: { bogus: 1 },
    });
    expect(strict.status).toBe(422);
  });

  it('stores what the description prunes, never ObjectMeta, apiVersion or kind', async () => {
    const api5 = await startApiServer({
      cluster,
      description: {
        ...testDescription(),
        // A pruner that drops too much: the server's own fields survive it.
        prune: (_r, o) => ({ spec: {}, metadata: { annotations: o.metadata.annotations } }) as never,
      },
      clock: realClock,
      random: () => 0,
      tls,
    });
    try {
      const r = await testClient(api5.url, tls.cert).call('POST', '/api/v1/namespaces/default/pods', {
        ...pod('pruned', { a: 'b' }),
        metadata: { name: 'pruned', labels: { a: 'b' }, annotations: { x: 'y' } },
      });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'pruned', namespace: 'default', labels: { a: 'b' }, annotations: { x: 'y' } },
        spec: {},
      });
    } finally {
      await api5.close();
    }
  });

  it('patches with JSON merge, strategic merge and JSON patch, and the status subresource', async () => {
    await c.call('POST', '/api/v1/namespaces/default/pods', pod('p'));
    const path = '/api/v1/namespaces/default/pods/p';
    const merge = await c.call(
      'PATCH',
      path,
      { metadata: { labels: { a: '1' } } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(merge.body.metadata.labels).toEqual({ a: '1' });
    const smp = await c.call(
      'PATCH',
      path,
      { spec: { containers: [{ name: 'side', image: 'busybox' }] } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    expect(smp.body.spec.containers.map((x: Json) => x.name)).toEqual(['app', 'side']);
    const jp = await c.call('PATCH', path, [{ op: 'replace', path: '/spec/containers/0/image', value: 'nginx:2' }], {
      'content-type': 'application/json-patch+json',
    });
    expect(jp.body.spec.containers[0].image).toBe('nginx:2');
    const failed = await c.call('PATCH', path, [{ op: 'test', path: '/spec/nodeName', value: 'other' }], {
      'content-type': 'application/json-patch+json',
    });
    expect(failed.status).toBe(422);
    const st = await c.call(
      'PATCH',
      `${path}/status`,
      { status: { phase: 'Running' }, spec: { nodeName: 'x' } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(st.body.status.phase).toBe('Running');
    expect(st.body.spec.nodeName).toBe('n1');
    const main = await c.call(
      'PATCH',
      path,
      { status: { phase: 'Failed' } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(main.body.status.phase).toBe('Running');
    const subnetSmp = await c.call(
      'PATCH',
      '/apis/kubeovn.io/v1/subnets/none',
      {},
      {
        'content-type': 'application/strategic-merge-patch+json',
      },
    );
    expect(subnetSmp.status).toBe(404);
  });

  it('refuses a strategic merge patch on a CRD kind with 415', async () => {
    await c.call('POST', '/apis/kubeovn.io/v1/subnets', {
      apiVersion: 'kubeovn.io/v1',
      kind: 'Subnet',
      metadata: { name: 's1' },
      spec: { cidrBlock: '10.1.0.0/24' },
    });
    const r = await c.call(
      'PATCH',
      '/apis/kubeovn.io/v1/subnets/s1',
      { metadata: { labels: { a: 'b' } } },
      {
        'content-type': 'application/strategic-merge-patch+json',
      },
    );
    expect(r.status).toBe(415);
    const m = await c.call(
      'PATCH',
      '/apis/kubeovn.io/v1/subnets/s1',
      { metadata: { labels: { a: 'b' } } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(m.body.metadata.labels).toEqual({ a: 'b' });
  });

  it('applies label and field selectors to lists and watches, and refuses an unsupported field with 400', async () => {
    for (const [n, app] of [
      ['s1', 'a'],
      ['s2', 'b'],
    ] as const)
      await c.call('POST', '/api/v1/namespaces/default/pods', pod(n, { sel: app }));
    const byLabel = await c.call('GET', '/api/v1/namespaces/default/pods?labelSelector=sel%3Da');
    expect(byLabel.body.items.map((p: Json) => p.metadata.name)).toEqual(['s1']);
    const byField = await c.call('GET', '/api/v1/pods?fieldSelector=metadata.name%3Ds2');
    expect(byField.body.items.map((p: Json) => p.metadata.name)).toEqual(['s2']);
    const bad = await c.call('GET', '/api/v1/pods?fieldSelector=spec.bogus%3D1');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    const badWatch = await c.call('GET', '/api/v1/pods?watch=1&labelSelector=a%20b');
    expect(badWatch.status).toBe(400);
    // A watch of one object (what `kubectl delete` waits with), and an object leaving a label selector.
    const one = await c.watch('/api/v1/namespaces/default/pods/s1?watch=1');
    expect(await one.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 's1' } } });
    const rv = byLabel.body.metadata.resourceVersion;
    const scoped = await c.watch(`/api/v1/pods?watch=1&resourceVersion=${rv}&labelSelector=sel%3Da`);
    await c.call(
      'PATCH',
      '/api/v1/namespaces/default/pods/s2',
      { metadata: { labels: { sel: 'a' } } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    await c.call(
      'PATCH',
      '/api/v1/namespaces/default/pods/s1',
      { metadata: { labels: { sel: 'z' } } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect((await scoped.take(2)).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
      'ADDED s2',
      'DELETED s1',
    ]);
    await c.call('DELETE', '/api/v1/namespaces/default/pods/s1');
    expect((await one.take(2)).map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
    one.close();
    scoped.close();
  });

  it('refuses to start on a port in use, naming it', async () => {
    await expect(
      startApiServer({
        cluster,
        description: testDescription(),
        clock: realClock,
        random: () => 0,
        tls,
        port: api.port,
      }),
    ).rejects.toMatchObject({ code: 'ListenFailed', message: expect.stringContaining(`127.0.0.1:${api.port}`) });
  });

  it('answers a Table when the client asks as=Table, and counts requests and watch events', async () => {
    const t = await c.call('GET', '/api/v1/namespaces', undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    expect(t.body.kind).toBe('Table');
    const s = await c.call('GET', '/kovn/stats');
    expect(s.body.requests).toBeGreaterThan(10);
    expect(s.body.byVerb.create).toBeGreaterThan(3);
    expect(s.body.watchEvents).toBeGreaterThanOrEqual(4);
    // Every watch above was closed by its client: none is left open on the server.
    let open = s.body.watchesOpen;
    for (let i = 0; i < 50 && open !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      open = (await c.call('GET', '/kovn/stats')).body.watchesOpen;
    }
    expect(open).toBe(0);
  });
});

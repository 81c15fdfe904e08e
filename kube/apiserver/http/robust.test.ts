/**
 * Whatever a client sends, the front answers: random methods, paths built
 * from the pieces of real ones, query parameters and bodies (not JSON, not
 * an object, wrong kinds) each get a response, and every refusal is a
 * `Status` body with its code, never a 500 and never a hang; and nothing
 * stored has a metadata its readers cannot decode.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../cluster/memory.ts';
import { realClock } from '../../runtime/clock.ts';
import { type ApiServer, startApiServer } from './server.ts';
import { testDescription } from './testing/description.ts';
import { type TestClient, testClient } from './testing/client.ts';
import { selfSignedCertificate } from './tls.ts';
import { metaTypeProblem } from './object-meta.ts';

let api: ApiServer;
let c: TestClient;
let cluster: MemoryCluster;

beforeAll(async () => {
  const tls = await selfSignedCertificate();
  cluster = new MemoryCluster();
  for (const name of ['default', 'prod'])
    await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await cluster.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'prod' }, spec: {} });
  api = await startApiServer({ cluster, description: testDescription(), clock: realClock, random: () => 0.3, tls });
  c = testClient(api.url, tls.cert);
});
afterAll(async () => {
  await api?.close();
});

const segment = fc.constantFrom(
  'api',
  'apis',
  'v1',
  'v2',
  'apps',
  'kubeovn.io',
  'namespaces',
  'prod',
  'default',
  'pods',
  'subnets',
  'deployments',
  'web',
  'status',
  'log',
  'watch',
  '%2F',
  '..',
  '',
);
const path = fc.oneof(
  fc.array(segment, { maxLength: 7 }).map((s) => `/${s.join('/')}`),
  fc.constantFrom(
    '/api/v1/namespaces/prod/pods',
    '/api/v1/namespaces/prod/pods/web',
    '/api/v1/namespaces/prod/pods/web/status',
    '/api/v1/namespaces/prod',
    '/api/v1/namespaces',
    '/apis/kubeovn.io/v1/subnets',
  ),
);
const query = fc.constantFrom(
  '',
  '?watch=1&timeoutSeconds=0',
  '?labelSelector=a%20b',
  '?fieldSelector=nope',
  '?resourceVersion=abc&watch=true&timeoutSeconds=0',
  '?timeoutSeconds=-1&watch=1',
  '?includeObject=Everything',
  '?fieldValidation=Loud',
);
const body = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('{', '[]', 'null', '"x"', '{"kind":"Pod"}', '{"metadata":[]}', '{"metadata":{"name":"Bad Name"}}'),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
  // Objects of the right shape with fields of any type where the server reads them.
  fc
    .record(
      {
        apiVersion: fc.constantFrom('v1', 'apps/v1', 'kubeovn.io/v1'),
        kind: fc.constantFrom('Pod', 'Namespace', 'Subnet'),
        metadata: fc.record(
          {
            name: fc.oneof(fc.constantFrom('web', 'x', 'prod'), fc.jsonValue({ maxDepth: 1 })),
            namespace: fc.oneof(fc.constantFrom('prod', 'other'), fc.jsonValue({ maxDepth: 1 })),
            generateName: fc.jsonValue({ maxDepth: 1 }),
            labels: fc.jsonValue({ maxDepth: 2 }),
            annotations: fc.jsonValue({ maxDepth: 2 }),
            finalizers: fc.jsonValue({ maxDepth: 2 }),
            resourceVersion: fc.jsonValue({ maxDepth: 1 }),
            uid: fc.jsonValue({ maxDepth: 1 }),
            ownerReferences: fc.jsonValue({ maxDepth: 2 }),
          },
          { requiredKeys: [] },
        ),
        spec: fc.jsonValue({ maxDepth: 2 }),
        status: fc.jsonValue({ maxDepth: 2 }),
        preconditions: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: ['metadata'] },
    )
    .map((v) => JSON.stringify(v)),
  // JSON patches with any paths and values.
  fc
    .array(
      fc.record({
        op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'),
        path: fc.constantFrom('', '/', '/metadata', '/metadata/name', '/metadata/labels/a', '/spec/-', '/status'),
        from: fc.constantFrom('/metadata', '/spec', '/nope'),
        value: fc.jsonValue({ maxDepth: 2 }),
      }),
      { maxLength: 3 },
    )
    .map((v) => JSON.stringify(v)),
);
const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD');
const contentType = fc.constantFrom(
  'application/json',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
  'text/plain',
);

describe('the front answers whatever it is sent', () => {
  it('with a response, a Status for every refusal, and never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(method, path, query, body, contentType, async (m, p, q, b, ct) => {
        const r = await c.raw(m, `${p}${q}`, b, { 'content-type': ct });
        expect(r.status, `${m} ${p}${q} ${b ?? ''}: ${r.text}`).not.toBe(500);
        if (r.status >= 400 && m !== 'HEAD') {
          expect(r.body, `${m} ${p}${q}: ${r.text}`).toMatchObject({ kind: 'Status', code: r.status });
        }
      }),
      { numRuns: 400 },
    );
    for (const kind of ['Pod', 'Namespace', 'Subnet'])
      for (const o of (await cluster.list(kind)).items)
        expect(metaTypeProblem(o.metadata as never), `${kind} ${o.metadata.name}`).toBeUndefined();
  });
});

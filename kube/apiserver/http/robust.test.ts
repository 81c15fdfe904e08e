/**
 * Whatever a client sends, the front answers: random methods, paths built
 * from the pieces of real ones, query parameters and bodies (not JSON, not
 * an object, wrong kinds) each get a response, and every refusal is a
 * `Status` body with its code, never a 500 and never a hang.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../cluster/memory.ts';
import { realClock } from '../../runtime/clock.ts';
import { type ApiServer, startApiServer } from './server.ts';
import { testDescription } from './testing/description.ts';
import { type TestClient, testClient } from './testing/client.ts';
import { selfSignedCertificate } from './tls.ts';

let api: ApiServer;
let c: TestClient;

beforeAll(async () => {
  const tls = await selfSignedCertificate();
  const cluster = new MemoryCluster();
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
  fc.constantFrom('/api/v1/namespaces/prod/pods', '/api/v1/namespaces/prod/pods/web', '/apis/kubeovn.io/v1/subnets'),
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
  });
});

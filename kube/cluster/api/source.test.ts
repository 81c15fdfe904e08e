import { describe, expect, it } from 'vitest';
import { SimClock } from '../../runtime/clock.ts';
import { ClusterError, type WatchEvent } from '../types.ts';
import { ApiClusterSource } from './source.ts';
import { FakeTransport, status } from './testing/fake-transport.ts';
import type { ApiRequest, ApiResponse } from './transport.ts';

const pod = (name: string, rv: string) => ({ metadata: { name, namespace: 'shop', resourceVersion: rv } });

function source(answer?: (req: ApiRequest) => ApiResponse, pageSize?: number) {
  const clock = new SimClock(Date.UTC(2026, 0, 1));
  const t = new FakeTransport(answer);
  const retries: number[] = [];
  const s = new ApiClusterSource(t, {
    clock,
    random: () => 0.5,
    ...(pageSize ? { pageSize } : {}),
    onRetry: (_k, _e, ms) => retries.push(ms),
  });
  return { clock, t, s, retries };
}

const failure = async (p: Promise<unknown>): Promise<ClusterError> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ClusterError);
  return err as ClusterError;
};

describe('the API source: requests', () => {
  it('lists in pages, with the selectors, giving items their kind and the last page’s resourceVersion', async () => {
    const { s, t } = source((req) => {
      const q = new URLSearchParams(req.path.split('?')[1]);
      return q.get('continue') === null
        ? { status: 200, body: { items: [pod('a', '5')], metadata: { resourceVersion: '9', continue: 'tok' } } }
        : { status: 200, body: { items: [pod('b', '7')], metadata: { resourceVersion: '9' } } };
    }, 1);
    const r = await s.list('Pod', { namespace: 'shop', labelSelector: 'app=web', fieldSelector: 'spec.nodeName=n1' });
    expect(r.resourceVersion).toBe('9');
    expect(r.items.map((o) => [o.apiVersion, o.kind, o.metadata.name])).toEqual([
      ['v1', 'Pod', 'a'],
      ['v1', 'Pod', 'b'],
    ]);
    expect(t.requests.map((q) => decodeURIComponent(q.path))).toEqual([
      '/api/v1/namespaces/shop/pods?limit=1&labelSelector=app=web&fieldSelector=spec.nodeName=n1',
      '/api/v1/namespaces/shop/pods?limit=1&continue=tok&labelSelector=app=web&fieldSelector=spec.nodeName=n1',
    ]);
    expect(s.stats().requests).toBe(2);
  });

  it('starts a list again when its page token expired (410), once', async () => {
    let calls = 0;
    const { s } = source((req) => {
      calls++;
      if (req.path.includes('continue=')) return calls === 2 ? status(410, 'Expired') : status(410, 'Expired');
      return { status: 200, body: { items: [pod('a', '5')], metadata: { resourceVersion: '9', continue: 'tok' } } };
    });
    const err = await failure(s.list('Pod'));
    expect(calls).toBe(4);
    expect(err.reason).toBe('Gone');
  });

  it('maps the Status of a refusal to the error reason, with the field of its first cause', async () => {
    const answers: Record<string, ApiResponse> = {
      POST: status(409, 'AlreadyExists', 'pods "web" already exists'),
      PUT: status(409, 'Conflict'),
      PATCH: {
        status: 422,
        body: { kind: 'Status', code: 422, reason: 'Invalid', details: { causes: [{ field: 'spec.cidrBlock' }] } },
      },
      DELETE: status(403, 'Forbidden'),
    };
    const { s } = source((req) => answers[req.method] ?? status(500, 'InternalError'));
    const web = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' } };
    expect((await failure(s.create(web))).reason).toBe('AlreadyExists');
    expect((await failure(s.create(web))).message).toContain('already exists');
    expect((await failure(s.update(web))).reason).toBe('Conflict');
    const invalid = await failure(s.patch({ kind: 'Subnet', name: 'net1' }, { spec: {} }));
    expect([invalid.reason, invalid.field]).toEqual(['Invalid', 'spec.cidrBlock']);
    expect((await failure(s.delete({ kind: 'Pod', namespace: 'shop', name: 'web' }))).reason).toBe('Forbidden');
    expect((await failure(s.list('Node'))).reason).toBe('ServiceUnavailable');
  });

  it('get answers undefined for 404; a request with no answer is ServiceUnavailable', async () => {
    const { s } = source(() => status(404, 'NotFound'));
    expect(await s.get({ kind: 'Node', name: 'n1' })).toBeUndefined();
    const broken = new ApiClusterSource(
      Object.assign(new FakeTransport(), {
        request: async () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
        },
      }),
      { clock: new SimClock(), random: () => 0 },
    );
    const err = await failure(broken.get({ kind: 'Node', name: 'n1' }));
    expect(err.reason).toBe('ServiceUnavailable');
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('writes to the right paths: merge patches, the status subresource, cluster-scoped kinds', async () => {
    const { s, t } = source((req) => ({
      status: req.method === 'POST' ? 201 : 200,
      body: { metadata: { name: 'x' } },
    }));
    await s.patch({ kind: 'Pod', namespace: 'shop', name: 'web' }, { metadata: { annotations: { a: 'b' } } });
    await s.patch({ kind: 'Subnet', name: 'net1' }, { status: { v4availableIPs: 3 } }, { subresource: 'status' });
    await s.updateStatus({ apiVersion: 'kubeovn.io/v1', kind: 'Subnet', metadata: { name: 'net1' }, status: {} });
    const made = await s.create({ apiVersion: '', kind: 'NetworkPolicy', metadata: { name: 'deny' } });
    expect(made.kind).toBe('NetworkPolicy');
    expect(t.requests.map((r) => [r.method, r.path, r.contentType ?? ''])).toEqual([
      ['PATCH', '/api/v1/namespaces/shop/pods/web', 'application/merge-patch+json'],
      ['PATCH', '/apis/kubeovn.io/v1/subnets/net1/status', 'application/merge-patch+json'],
      ['PUT', '/apis/kubeovn.io/v1/subnets/net1/status', ''],
      ['POST', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', ''],
    ]);
    expect((t.requests[3]!.body as { apiVersion: string }).apiVersion).toBe('networking.k8s.io/v1');
    expect((await failure(s.get({ kind: 'Widget', name: 'w' }))).reason).toBe('Invalid');
    // Leader election's requests go on connections of their own; the rest share the pool.
    await s.patch({ kind: 'Lease', namespace: 'kube-system', name: 'kovn-controller' }, { spec: {} });
    expect(t.requests.map((r) => r.lane ?? '-')).toEqual(['-', '-', '-', '-', 'priority']);
  });
});

describe('the API source: watch', () => {
  const events = () => {
    const seen: string[] = [];
    const errors: ClusterError[] = [];
    return {
      seen,
      errors,
      onEvent: (e: WatchEvent) => seen.push(`${e.type} ${e.object.kind} ${e.object.metadata.name}`),
      onError: (e: ClusterError) => errors.push(e),
    };
  };

  it('delivers events, keeps the bookmark’s version, and after the server ends the stream starts again from it', async () => {
    const { s, t, clock } = source();
    const e = events();
    s.watch('Pod', '10', e.onEvent, e.onError, { fieldSelector: 'spec.nodeName=n1' });
    await clock.settle();
    const first = t.streams[0]!;
    expect(first.path).toBe('/api/v1/pods');
    expect(Object.fromEntries(first.query)).toMatchObject({
      watch: '1',
      resourceVersion: '10',
      allowWatchBookmarks: 'true',
      timeoutSeconds: '450',
      fieldSelector: 'spec.nodeName=n1',
    });
    first.push({ type: 'ADDED', object: pod('a', '11') });
    first.push({ type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '20' } } });
    first.end();
    await clock.settle();
    expect(e.seen).toEqual(['ADDED Pod a']);
    expect(t.streams[1]?.query.get('resourceVersion')).toBe('20');
    expect(s.stats().watchEvents).toBe(1);
    expect(e.errors).toEqual([]);
  });

  it('retries a broken connection after a backoff with jitter, doubled per failure in a row, reset by an event', async () => {
    const { s, t, clock, retries } = source();
    const e = events();
    t.nextStart = [new Error('ECONNREFUSED'), status(503, 'ServiceUnavailable')];
    s.watch('Pod', '10', e.onEvent, e.onError);
    await clock.settle();
    await clock.tick(1_200);
    await clock.tick(2_400);
    expect(t.streams.length).toBe(3);
    t.streams[2]!.push({ type: 'MODIFIED', object: pod('a', '12') });
    t.streams[2]!.end(new Error('socket hang up'));
    await clock.tick(1_200);
    // 800 ms and 1.6 s, each plus half again (random 0.5); the event reset the count.
    expect(retries).toEqual([1_200, 2_400, 1_200]);
    expect(t.streams.length).toBe(4);
    expect(t.streams[3]?.query.get('resourceVersion')).toBe('12');
    expect(e.errors).toEqual([]);
  });

  it('a stream that ends at once with nothing in it counts as a failure, not a tight loop', async () => {
    const { s, t, clock, retries } = source();
    s.watch('Pod', '10', () => {});
    await clock.settle();
    t.streams[0]!.end();
    await clock.settle();
    expect(t.streams.length).toBe(1);
    expect(retries).toEqual([1_200]);
  });

  it('410 Gone, as an ERROR event or as the answer, goes to onError once and ends the watch', async () => {
    const { s, t, clock } = source();
    const e = events();
    s.watch('Pod', '10', e.onEvent, e.onError);
    await clock.settle();
    t.streams[0]!.push({ type: 'ERROR', object: status(410, 'Expired', 'too old resource version: 10 (42)').body });
    t.nextStart = [status(410, 'Gone')];
    s.watch('Node', '3', e.onEvent, e.onError);
    await clock.tick(60_000);
    expect(e.errors.map((x) => [x.reason, x.ref.kind])).toEqual([
      ['Gone', 'Pod'],
      ['Gone', 'Node'],
    ]);
    expect(t.streams.length).toBe(2);
  });

  it('a refusal a retry cannot change (403, a bad selector) ends the watch with its error', async () => {
    const { s, t, clock } = source();
    const e = events();
    t.nextStart = [status(400, 'BadRequest', '"spec.color" is not a known field selector')];
    s.watch('Pod', '10', e.onEvent, e.onError, { fieldSelector: 'spec.color=red' });
    await clock.tick(60_000);
    expect(e.errors.map((x) => x.reason)).toEqual(['Invalid']);
    expect(t.streams.length).toBe(1);
  });

  it('stop ends delivery and retries', async () => {
    const { s, t, clock } = source();
    const e = events();
    t.nextStart = [new Error('ECONNREFUSED')];
    const w = s.watch('Pod', '10', e.onEvent, e.onError);
    await clock.settle();
    w.stop();
    await clock.tick(60_000);
    expect(t.streams.length).toBe(1);
    expect(clock.pending()).toBe(0);
  });
});

describe('the API source: events, deduplicated as client-go’s correlator', () => {
  const ev = (message: string) => ({
    involved: { kind: 'Pod', namespace: 'shop', name: 'web', uid: 'u1' },
    type: 'Warning' as const,
    reason: 'AcquireAddressFailed',
    message,
  });

  it('the same event again patches count and lastTimestamp; another message is a new Event', async () => {
    const { s, t, clock } = source((req) => ({ status: req.method === 'POST' ? 201 : 200, body: {} }));
    await Promise.all([s.recordEvent(ev('no address')), s.recordEvent(ev('no address'))]);
    await clock.tick(5_000);
    await s.recordEvent(ev('no address'));
    await s.recordEvent(ev('subnet full'));
    const [create, p1, p2, create2] = t.requests;
    expect(t.requests.map((r) => r.method)).toEqual(['POST', 'PATCH', 'PATCH', 'POST']);
    expect(create?.path).toBe('/api/v1/namespaces/shop/events');
    expect(create?.body).toMatchObject({
      metadata: { namespace: 'shop' },
      involvedObject: { kind: 'Pod', name: 'web', namespace: 'shop', uid: 'u1' },
      count: 1,
      firstTimestamp: '2026-01-01T00:00:00Z',
      source: { component: 'kube-ovn-controller' },
    });
    const name = (create!.body as { metadata: { name: string } }).metadata.name;
    expect(name).toMatch(/^web\.[0-9a-f]+$/);
    expect(p1?.path).toBe(`/api/v1/namespaces/shop/events/${name}`);
    expect([p1?.body, p2?.body]).toEqual([
      { count: 2, lastTimestamp: '2026-01-01T00:00:00Z' },
      { count: 3, lastTimestamp: '2026-01-01T00:00:05Z' },
    ]);
    expect((create2!.body as { message: string }).message).toBe('subnet full');
  });

  it('when the Event it would patch is gone, it creates a new one', async () => {
    const { s, t } = source((req) => (req.method === 'PATCH' ? status(404, 'NotFound') : { status: 201, body: {} }));
    await s.recordEvent(ev('no address'));
    await s.recordEvent(ev('no address'));
    await s.recordEvent(ev('no address'));
    expect(t.requests.map((r) => r.method)).toEqual(['POST', 'PATCH', 'POST', 'PATCH', 'POST']);
  });
});

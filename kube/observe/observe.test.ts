import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { SimClock } from '../runtime/clock.ts';
import { WorkQueue } from '../runtime/queue.ts';
import { MemoryCluster } from '../cluster/memory.ts';
import { FaultyCluster } from '../cluster/faults.ts';
import { meteredCluster } from './cluster-metrics.ts';
import { jsonLogger } from './log.ts';
import { workQueueMetrics } from './queue-metrics.ts';
import { type ObserveServer, ObserveServerError, parseListenAddress, startObserveServer } from './server.ts';
import { parsePrometheusText, sampleValue } from './testing/prom-text.ts';

describe('the Prometheus text reader the tests use', () => {
  it('reads families, labels with escapes, special values', () => {
    const f = parsePrometheusText(
      '# HELP a_total A.\n# TYPE a_total counter\na_total{x="q\\"uo\\\\te\\n"} 3\n# TYPE g gauge\ng NaN\ng{y="1"} +Inf 1700000000\n',
    );
    expect(f.get('a_total')!.samples[0]).toEqual({ name: 'a_total', labels: { x: 'q"uo\\te\n' }, value: 3 });
    expect(sampleValue(f, 'g', { y: '1' })).toBe(Number.POSITIVE_INFINITY);
    // prom-client writes NaN as `Nan`; Prometheus reads special values in any case (Go's ParseFloat).
    expect(sampleValue(parsePrometheusText('# TYPE g gauge\ng Nan\n'), 'g')).toBeNaN();
  });

  it.each([
    ['a sample of no declared family', 'x 1\n'],
    ['a bad escape', '# TYPE x gauge\nx{a="\\t"} 1\n'],
    ['an unquoted label value', '# TYPE x gauge\nx{a=1} 1\n'],
    ['a repeated series', '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n'],
    ['a value that is no number', '# TYPE x gauge\nx 1,5\n'],
    ['buckets that fall', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'],
    ['a +Inf bucket that is not the count', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n'],
  ])('refuses %s', (_why, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});

describe('jsonLogger', () => {
  it('writes one JSON object per line naming the object, with the error and its code', () => {
    const lines: string[] = [];
    const log = jsonLogger({ write: (l) => lines.push(l), now: () => 0, component: 'controller', level: 'info' });
    const err = Object.assign(new Error('pod web-0: no address'), { code: 'exhausted' });
    log.warn('reconcile failed', { object: { kind: 'Pod', namespace: 'prod', name: 'web-0' }, err });
    log.debug('dropped below the level');
    log.with({ node: 'node-1' }).info('up', { big: 1n });
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
    expect(JSON.parse(lines[0]!)).toEqual({
      ts: '1970-01-01T00:00:00.000Z',
      level: 'warn',
      component: 'controller',
      msg: 'reconcile failed',
      kind: 'Pod',
      namespace: 'prod',
      name: 'web-0',
      error: 'pod web-0: no address',
      errorCode: 'exhausted',
    });
    expect(JSON.parse(lines[1]!)).toMatchObject({ level: 'info', msg: 'up', node: 'node-1', big: '1' });
  });
});

describe('work queue metrics', () => {
  it("reports client-go's names: depth, adds, the wait before a worker took a key, the work, retries", async () => {
    const registry = new Registry();
    const clock = new SimClock();
    const q = new WorkQueue<string>({ clock, metrics: workQueueMetrics(registry)('Pod'), initialMs: 100 });
    q.add('a');
    q.add('b');
    q.add('a');
    let failOnce = true;
    clock.advance(250);
    q.run(async (k) => {
      if (k === 'b' && failOnce) {
        failOnce = false;
        throw new Error('once');
      }
    }, 1);
    await clock.tick(1_000);
    const f = parsePrometheusText(await registry.metrics());
    const l = { name: 'Pod' };
    expect(sampleValue(f, 'workqueue_adds_total', l)).toBe(3);
    expect(sampleValue(f, 'workqueue_retries_total', l)).toBe(1);
    expect(sampleValue(f, 'workqueue_depth', l)).toBe(0);
    expect(sampleValue(f, 'workqueue_queue_duration_seconds_count', l)).toBe(3);
    // a and b waited 250 ms for the worker; b's retry was taken the moment its backoff ended.
    expect(sampleValue(f, 'workqueue_queue_duration_seconds_sum', l)).toBeCloseTo(0.5, 9);
    expect(sampleValue(f, 'workqueue_work_duration_seconds_count', l)).toBe(3);
    expect(sampleValue(f, 'workqueue_unfinished_work_seconds', l)).toBe(0);
  });

  it('reports the work in progress at scrape time: its summed age and the oldest run', async () => {
    const registry = new Registry();
    const clock = new SimClock();
    const q = new WorkQueue<string>({ clock, metrics: workQueueMetrics(registry)('Subnet') });
    const release: (() => void)[] = [];
    q.run(() => new Promise<void>((r) => release.push(r)), 2);
    q.add('a');
    await clock.settle();
    clock.advance(3_000);
    q.add('b');
    await clock.settle();
    clock.advance(1_000);
    const f = parsePrometheusText(await registry.metrics());
    const l = { name: 'Subnet' };
    expect(sampleValue(f, 'workqueue_unfinished_work_seconds', l)).toBe(5);
    expect(sampleValue(f, 'workqueue_longest_running_processor_seconds', l)).toBe(4);
    for (const r of release) r();
    await clock.settle();
    const g = parsePrometheusText(await registry.metrics());
    expect(sampleValue(g, 'workqueue_longest_running_processor_seconds', l)).toBe(0);
  });
});

describe('REST client metrics', () => {
  it('counts requests by method and status code, and times them by collection', async () => {
    const registry = new Registry();
    const faulty = new FaultyCluster(new MemoryCluster());
    const c = meteredCluster(faulty, { registry, clock: new SimClock(), host: 'api:6443' });
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } });
    await expect(c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } })).rejects.toThrow();
    faulty.fail('get');
    await expect(c.get({ kind: 'Pod', namespace: 'prod', name: 'x' })).rejects.toThrow();
    await c.list('Pod', { namespace: 'prod' });
    const f = parsePrometheusText(await registry.metrics());
    expect(sampleValue(f, 'rest_client_requests_total', { method: 'POST', code: '201' })).toBeUndefined();
    expect(sampleValue(f, 'rest_client_requests_total', { method: 'POST', code: '200' })).toBe(1);
    expect(sampleValue(f, 'rest_client_requests_total', { method: 'POST', code: '409' })).toBe(1);
    expect(sampleValue(f, 'rest_client_requests_total', { method: 'GET', code: '503', host: 'api:6443' })).toBe(1);
    expect(
      sampleValue(f, 'rest_client_request_latency_seconds_count', { verb: 'GET', url: '/api/v1/namespaces/prod/pods' }),
    ).toBe(2);
  });
});

describe('the observe server', () => {
  let server: ObserveServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves /metrics as Prometheus text and /healthz, /readyz as their checks say', async () => {
    const registry = new Registry();
    workQueueMetrics(registry)('Pod');
    let ready: string | undefined = 'not leading';
    server = await startObserveServer({ registry, host: '127.0.0.1', port: 0, readyz: () => ready });
    const base = `http://${server.address}`;
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sampleValue(parsePrometheusText(await metrics.text()), 'workqueue_depth', { name: 'Pod' })).toBe(0);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const r = await fetch(`${base}/readyz`);
    expect([r.status, await r.text()]).toEqual([503, 'not leading\n']);
    ready = undefined;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('reads --metrics-addr as host:port', () => {
    expect(parseListenAddress(':10660')).toEqual({ host: '0.0.0.0', port: 10660 });
    expect(parseListenAddress('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseListenAddress('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
    expect(() => parseListenAddress('10660')).toThrow(ObserveServerError);
    expect(() => parseListenAddress('a:70000')).toThrow(/--metrics-addr/);
  });
});

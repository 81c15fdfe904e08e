/**
 * client-go's REST client metrics, as a wrapper around any cluster source
 * (STYLE 7): `rest_client_requests_total{code,method,host}` and
 * `rest_client_request_latency_seconds{verb,url}` (Kube-OVN's names, from
 * its client-go adapter). A request is named as the API would see it: the
 * HTTP method of the verb, the collection's path (the parent directory of
 * the request's path, as Kube-OVN's adapter labels it), and the status code
 * a `ClusterError` reason stands for. Watches count once, when opened.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { kindDef } from '../registry.ts';
import type { Clock } from '../runtime/clock.ts';
import { ClusterError, type ClusterSource, type ObjectRef, refOf } from '../cluster/types.ts';

/** The status code each ClusterError reason stands for (`Forbidden`: 403, as the API answers both 401 and 403 so). */
const CODE: Readonly<Record<string, string>> = {
  NotFound: '404',
  AlreadyExists: '409',
  Conflict: '409',
  Invalid: '422',
  Gone: '410',
  ServiceUnavailable: '503',
  Forbidden: '403',
};

const codeOf = (err: unknown): string => (err instanceof ClusterError ? (CODE[err.reason] ?? '<error>') : '<error>');

/**
 * The collection path of a kind, in a namespace when given (`/api/v1/namespaces/prod/pods`).
 *
 * @example collectionPath('Lease', 'kube-system') // '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases'
 */
export function collectionPath(kind: string, namespace?: string): string {
  const d = kindDef(kind);
  if (d === undefined) return `/<${kind}>`;
  const root = d.group === '' ? `/api/${d.version}` : `/apis/${d.group}/${d.version}`;
  return `${root}${d.namespaced && namespace !== undefined ? `/namespaces/${namespace}` : ''}/${d.plural}`;
}

export interface MeteredClusterOptions {
  readonly registry: Registry;
  readonly clock: Clock;
  /** The API server's host:port, the `host` label. */
  readonly host: string;
}

/**
 * @example
 * const cluster = meteredCluster(apiSource, { registry, clock: realClock, host: '10.96.0.1:443' });
 */
export function meteredCluster(inner: ClusterSource, o: MeteredClusterOptions): ClusterSource {
  const registers = [o.registry];
  const requests = new Counter({
    name: 'rest_client_requests_total',
    help: 'Number of HTTP requests, partitioned by status code, method, and host.',
    labelNames: ['code', 'method', 'host'],
    registers,
  });
  const latency = new Histogram({
    name: 'rest_client_request_latency_seconds',
    help: 'Request latency in seconds. Broken down by verb and URL.',
    labelNames: ['verb', 'url'],
    buckets: Array.from({ length: 10 }, (_, i) => 0.001 * 2 ** i),
    registers,
  });
  const timed = async <T>(method: string, ref: ObjectRef, call: () => Promise<T>): Promise<T> => {
    const start = o.clock.now();
    let code = '200';
    try {
      return await call();
    } catch (err) {
      code = codeOf(err);
      throw err;
    } finally {
      requests.inc({ code, method, host: o.host });
      latency.observe({ verb: method, url: collectionPath(ref.kind, ref.namespace) }, (o.clock.now() - start) / 1000);
    }
  };
  const all = (kind: string, namespace?: string): ObjectRef => ({
    kind,
    name: '',
    ...(namespace !== undefined ? { namespace } : {}),
  });
  return {
    list: (kind, opts) => timed('GET', all(kind, opts?.namespace), () => inner.list(kind, opts)),
    get: (ref) => timed('GET', ref, () => inner.get(ref)),
    create: (obj) => timed('POST', refOf(obj), () => inner.create(obj)),
    update: (obj) => timed('PUT', refOf(obj), () => inner.update(obj)),
    updateStatus: (obj) => timed('PUT', refOf(obj), () => inner.updateStatus(obj)),
    patch: (ref, p, opts) => timed('PATCH', ref, () => inner.patch(ref, p, opts)),
    delete: (ref) => timed('DELETE', ref, () => inner.delete(ref)),
    recordEvent: (e) => timed('POST', all('Event', e.involved.namespace ?? 'default'), () => inner.recordEvent(e)),
    watch: (kind, rv, onEvent, onError, opts) => {
      requests.inc({ code: '200', method: 'WATCH', host: o.host });
      return inner.watch(kind, rv, onEvent, onError, opts);
    },
  };
}

/**
 * The node daemon's metrics (docs/metrics.md): Kube-OVN's
 * `cni_op_latency_seconds` {node_name, method, status_code} for every
 * request of the CNI plugin (method ADD, DEL, CHECK, STATUS, GC), and a log
 * line per request naming its pod. Kube-OVN's cniserver answers HTTP, so
 * its status_code is an HTTP status; kovn's daemon answers a JSON line, and
 * status_code is `0` for success or the CNI error code it answered
 * (node/cni/protocol.ts).
 */
import { Histogram, type Registry } from 'prom-client';
import type { Logger } from '../../kube/observe/log.ts';
import type { DaemonRequest, DaemonResponse } from '../cni/protocol.ts';

/** What the daemon reports of each request it answered (or failed to: `undefined`). */
export type RequestObserver = (req: DaemonRequest, res: DaemonResponse | undefined, ms: number) => void;

/**
 * @example
 * const observe = daemonRequestObserver({ registry, node: 'node-1', log });
 * await startNodeDaemon({ ..., onRequest: observe });
 */
export function daemonRequestObserver(o: {
  readonly registry: Registry;
  readonly node: string;
  readonly log?: Logger;
}): RequestObserver {
  const latency = new Histogram({
    name: 'cni_op_latency_seconds',
    help: 'The latency seconds for cni operations',
    labelNames: ['node_name', 'method', 'status_code'],
    buckets: Array.from({ length: 10 }, (_, i) => 0.001 * 2 ** i),
    registers: [o.registry],
  });
  return (req, res, ms) => {
    const code = res === undefined ? '999' : res.ok ? '0' : String(res.error.code);
    latency.observe({ node_name: o.node, method: req.command, status_code: code }, ms / 1000);
    const object = req.podName
      ? { kind: 'Pod', namespace: req.podNamespace || 'default', name: req.podName }
      : undefined;
    const fields = { ...(object ? { object } : {}), command: req.command, containerId: req.containerId, ms };
    if (res !== undefined && !res.ok)
      o.log?.warn('cni request failed', { ...fields, code: res.error.code, error: res.error.msg });
    else if (res === undefined) o.log?.error('cni request failed', fields);
    else o.log?.info('cni request', fields);
  };
}

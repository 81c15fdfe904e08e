/**
 * kube/observe: what the controller and daemon processes show of
 * themselves: structured JSON-line logs naming the object each line is
 * about, client-go's work queue and REST client metrics (Kube-OVN's names),
 * and the /metrics, /healthz and /readyz endpoint. docs/metrics.md lists
 * every metric.
 */
export { collectionPath, meteredCluster, type MeteredClusterOptions } from './cluster-metrics.ts';
export { isLogLevel, jsonLogger, type JsonLoggerOptions, type LogFields, type Logger, type LogLevel } from './log.ts';
export { workQueueMetrics } from './queue-metrics.ts';
export {
  type Check,
  type ObserveServer,
  ObserveServerError,
  type ObserveServerOptions,
  parseListenAddress,
  startObserveServer,
} from './server.ts';

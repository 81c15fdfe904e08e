/**
 * client-go's work queue metrics (k8s.io/client-go/util/workqueue, as
 * controller-runtime registers them and Kube-OVN's Grafana board reads
 * them), per queue `name`: `workqueue_depth`, `workqueue_adds_total`,
 * `workqueue_queue_duration_seconds`, `workqueue_work_duration_seconds`,
 * `workqueue_retries_total`, and, read at each scrape from the runs in
 * progress, `workqueue_unfinished_work_seconds` (their summed age) and
 * `workqueue_longest_running_processor_seconds` (the oldest's). The queue (kube/runtime/queue.ts) reports to
 * a `QueueMetrics`; this file makes one over a prom-client registry.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { QueueMetrics } from '../runtime/queue.ts';

/** client-go's buckets: 1 ns × 10^i, i = 0..9 (1e-8 s to 10 s). */
const BUCKETS = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);

/**
 * A factory of per-queue metrics, registered once on `registry`.
 *
 * @example
 * const forQueue = workQueueMetrics(registry);
 * new WorkQueue({ clock, metrics: forQueue('Pod') });
 */
export function workQueueMetrics(registry: Registry): (name: string) => QueueMetrics {
  const registers = [registry];
  const depth = new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames: ['name'],
    registers,
  });
  const adds = new Counter({
    name: 'workqueue_adds_total',
    help: 'Total number of adds handled by workqueue',
    labelNames: ['name'],
    registers,
  });
  const latency = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested.',
    labelNames: ['name'],
    buckets: BUCKETS,
    registers,
  });
  const work = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes.',
    labelNames: ['name'],
    buckets: BUCKETS,
    registers,
  });
  const retries = new Counter({
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    labelNames: ['name'],
    registers,
  });
  type Running = { readonly startTimes: () => Iterable<number>; readonly now: () => number };
  const attached = new Map<string, Running>();
  const ages = (r: Running): number[] => {
    const now = r.now();
    return [...r.startTimes()].map((t) => (now - t) / 1000);
  };
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration.",
    labelNames: ['name'],
    registers,
    collect() {
      for (const [name, r] of attached)
        this.set(
          { name },
          ages(r).reduce((a, b) => a + b, 0),
        );
    },
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames: ['name'],
    registers,
    collect() {
      for (const [name, r] of attached) this.set({ name }, Math.max(0, ...ages(r)));
    },
  });
  return (name) => {
    const labels = { name };
    depth.set(labels, 0);
    return {
      attach: (running) => void attached.set(name, running),
      added: () => adds.inc(labels),
      depth: (n) => depth.set(labels, n),
      started: (waitedMs) => latency.observe(labels, waitedMs / 1000),
      finished: (workedMs) => work.observe(labels, workedMs / 1000),
      retried: () => retries.inc(labels),
    };
  };
}

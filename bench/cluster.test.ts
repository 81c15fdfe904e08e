/**
 * `kovn bench cluster` as it runs: sim serve and kovn controller as their
 * own processes, the hollow nodes and kubelets here, small sizes. The
 * figures are measured, not judged; what is checked is that every pod was
 * routed and ran, and that the counters came from the processes.
 */
import { describe, expect, it } from 'vitest';
import { realClock } from '../kube/runtime/clock.ts';
import { runClusterBench } from './cluster.ts';

describe('kovn bench cluster', () => {
  it('two hollow nodes, 30 pods: every pod routed, figures from the API server and the controller process', async () => {
    const r = await runClusterBench({ nodes: 2, pods: 30, concurrency: 8, clock: realClock, random: Math.random });
    expect(r.name).toBe('cluster');
    expect(r.params).toMatchObject({ nodes: 2, pods: 30, concurrency: 8 });
    expect(r.metrics.missing).toBe(0);
    for (const k of [
      'pods_per_s',
      'ready_p50_ms',
      'ready_p99_ms',
      'controller_rss_mb',
      'controller_peak_rss_mb',
    ] as const)
      expect(r.metrics[k]).toBeGreaterThan(0);
    expect(r.metrics.ready_p50_ms).toBeLessThanOrEqual(r.metrics.ready_p99_ms);
    // Each pod: created (1), annotated by the controller (1 patch), its status written by the kubelet (1).
    expect(r.metrics.api_requests_per_pod).toBeGreaterThanOrEqual(3);
    expect(r.metrics.controller_requests_per_pod).toBeGreaterThanOrEqual(1);
    // Each pod's ADDED and two MODIFIED reach at least the controller's and the bench's watches.
    expect(r.metrics.watch_events_per_pod).toBeGreaterThanOrEqual(3);
  }, 180_000);
});

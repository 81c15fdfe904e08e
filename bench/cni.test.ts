import { describe, expect, it } from 'vitest';
import { requireOvn } from '../backends/ovn/control-plane/binaries.ts';
import { requireRuntime } from '../scenarios/runtime/support.ts';
import { percentile, runCniBench } from './cni.ts';

describe('percentile', () => {
  it('takes the nearest rank of the sorted samples', () => {
    const s = [5, 1, 4, 2, 3];
    expect(percentile(s, 50)).toBe(3);
    expect(percentile(s, 99)).toBe(5);
    expect(percentile(s, 1)).toBe(1);
    expect(percentile([], 50)).toBe(0);
    expect(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        99,
      ),
    ).toBe(99);
  });
});

const runs = requireOvn('bench cni') && requireRuntime(['netns'], 'bench cni');

describe.skipIf(!runs)('bench cni', () => {
  it('reports every figure of docs/architecture.md as a finite positive number', async () => {
    const report = await runCniBench({ pods: 3, versionRuns: 2, connects: 3 });
    expect(report.name).toBe('cni');
    expect(report.params).toEqual({ pods: 3, version_runs: 2, connects: 3 });
    for (const key of ['add_p50_ms', 'add_p99_ms', 'del_p50_ms', 'plugin_start_ms', 'tcp_connect_p50_ms'])
      expect(Object.keys(report.metrics)).toContain(key);
    for (const [name, value] of Object.entries(report.metrics)) {
      expect(Number.isFinite(value), name).toBe(true);
      expect(value, name).toBeGreaterThan(0);
    }
    expect(report.metrics.add_p99_ms).toBeGreaterThanOrEqual(report.metrics.add_p50_ms);
  });
});

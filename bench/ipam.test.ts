import { describe, expect, it } from 'vitest';
import { runIpamBench } from './ipam.ts';

describe('bench ipam', () => {
  it('reports every figure as a finite positive number, in the shape of docs/architecture.md', async () => {
    const report = await runIpamBench({ allocations: 2000, restoreRecords: 2000, rounds: 1 });
    expect(report.name).toBe('ipam');
    expect(report.params).toMatchObject({ allocations: 2000, restore_records: 2000, rounds: 1 });
    expect(Object.keys(report.metrics).sort()).toEqual([
      'alloc_per_s',
      'alloc_per_s_slash8',
      'bytes_per_ip',
      'release_per_s',
      'restore_150k_ms',
    ]);
    for (const [name, value] of Object.entries(report.metrics)) {
      expect(Number.isFinite(value), name).toBe(true);
      expect(value, name).toBeGreaterThan(0);
    }
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });
});

import { describe, expect, it } from 'vitest';
import { requireOvn } from '../backends/ovn/control-plane/index.ts';
import { runOvsdbBench } from './ovsdb.ts';

describe.skipIf(!requireOvn('bench ovsdb'))('bench ovsdb', () => {
  it('reports every figure as a finite positive number, in the shape of docs/architecture.md', async () => {
    const report = await runOvsdbBench({ ports: 200, switches: 10, batch: 50, nbctlSample: 20, rounds: 1 });
    expect(report.name).toBe('ovsdb');
    expect(report.params).toMatchObject({
      ports: 200,
      switches: 10,
      batch: 50,
      nbctl_sample: 20,
      cluster: false,
      kovn_transactions: 5,
      raw_transactions: 5,
    });
    expect(Object.keys(report.metrics).sort()).toEqual([
      'kovn_ports_per_s',
      'nbctl_ports_per_s',
      'ratio_vs_raw',
      'raw_ports_per_s',
      'speedup_vs_nbctl',
    ]);
    for (const [name, value] of Object.entries(report.metrics)) {
      expect(Number.isFinite(value), name).toBe(true);
      expect(value, name).toBeGreaterThan(0);
    }
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it('runs against 3-member clusters', async () => {
    const report = await runOvsdbBench({
      ports: 100,
      switches: 5,
      batch: 40,
      nbctlSample: 5,
      cluster: true,
      rounds: 1,
    });
    expect(report.params).toMatchObject({ cluster: true, kovn_transactions: 3, raw_transactions: 3 });
    for (const value of Object.values(report.metrics)) expect(value).toBeGreaterThan(0);
  });
});

import { describe, expect, it } from 'vitest';
import { requireOvn } from '../backends/ovn/control-plane/index.ts';
import { runControllerBench } from './controller.ts';

/** A small cluster: the drift phase's counts, not its speed (measured, never asserted). */
async function driftRun(backend: 'sim' | 'ovn') {
  const report = await runControllerBench({ nodes: 3, pods: 40, backend, drift: 20 });
  expect(report.params).toEqual({ nodes: 3, pods: 40, backend, drift: 20 });
  // The simulator holds no rows but kovn's: no foreign figure is given there.
  expect(report.metrics).toMatchObject({ drift_repaired: 20, foreign_touched: backend === 'ovn' ? 0 : null });
  for (const name of ['drift_repair_p50_ms', 'drift_repair_p99_ms'] as const)
    expect(Number.isFinite(report.metrics[name]), name).toBe(true);
  expect(JSON.parse(JSON.stringify(report))).toEqual(report);
}

describe('bench controller --drift', () => {
  it('on the simulator: every drifted row of ours is put back, no foreign row touched', async () => {
    await driftRun('sim');
  }, 60_000);

  it.skipIf(!requireOvn('bench controller --drift on NB'))(
    'on real NB: every drifted row of ours is put back, no foreign row touched',
    async () => {
      await driftRun('ovn');
    },
    60_000,
  );
});

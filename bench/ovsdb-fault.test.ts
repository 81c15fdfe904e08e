/**
 * The fault bench, small, once per fault, on a real 3-member raft NB: nothing
 * acknowledged is lost, nothing is written twice, every figure is reported,
 * and the writer's events say how it got over the fault. No timing asserted.
 */
import { describe, expect, it } from 'vitest';
import { requireOvn } from '../backends/ovn/control-plane/index.ts';
import { type Fault, runOvsdbFaultBench } from './ovsdb-fault.ts';

describe.skipIf(!requireOvn('bench ovsdb --fault'))('bench ovsdb --cluster --fault', () => {
  it.each<Fault>(['kill-leader', 'freeze-leader', 'freeze-follower'])('%s', { timeout: 120_000 }, async (fault) => {
    const r = await runOvsdbFaultBench({ fault, ports: 300, freezeMs: 6000, seed: 3, log: () => {} });
    expect(r.metrics.lost).toBe(0);
    expect(r.metrics.duplicated).toBe(0);
    expect(r.metrics.resume_ms).toBeGreaterThanOrEqual(0);
    if (fault === 'freeze-follower') {
      // The writer talks to the leader: nothing to recover from; the reader on the follower moves.
      expect(r.metrics.election_ms).toBe(0);
      expect(r.metrics.reader_stale_ms).toBeGreaterThan(0);
    } else {
      expect(r.metrics.election_ms).toBeGreaterThan(0);
      // The writer lost its connection to the old leader, said why, and synced with another member.
      expect(r.events.some((e) => /closed/.test(e))).toBe(true);
      expect(r.events.some((e) => /synced/.test(e))).toBe(true);
    }
  });
});

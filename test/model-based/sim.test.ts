/**
 * The controller proven level-driven, on the simulator backend: random
 * sequences of Kubernetes events, crashes, restarts and watch faults
 * (ops.ts), each checked against the invariants (invariants.ts). CI runs a
 * fixed seed; `npm test -- --seed N --runs N test/model-based` runs more,
 * and MBT_LENGTH=80 longer sequences (default 30 ops at most).
 */
import { afterAll, describe, it } from 'vitest';
import { fcParams } from '../fc.ts';
import { assertSequences, summary } from './run.ts';

describe('the controller under random event sequences (simulator backend)', () => {
  afterAll(() => console.log(summary('sim')));

  it('ends level: incremental = from scratch, no address twice, every pod its port, nothing without an owner', {
    timeout: 600_000,
  }, async () => {
    await assertSequences(fcParams(200), Number(process.env.MBT_LENGTH ?? 30));
  });
});

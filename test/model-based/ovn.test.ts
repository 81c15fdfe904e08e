/**
 * The model-based sequences on real OVN: the controller writes a real
 * Northbound database (ovsdb-server of a local control plane, through our
 * OVSDB client), and what it holds after each sequence is checked against
 * the same invariants, the from-scratch build made on the simulator backend
 * (the backends hold the same rows for the same plan: their contract). A few
 * short sequences: the simulator run (sim.test.ts) is the wide one.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type ControlPlane, requireOvn, startControlPlane } from '../../backends/ovn/control-plane/index.ts';
import { OvnBackend } from '../../backends/ovn/nb/backend.ts';
import { emptyTopology, plan } from '../../model/topology/index.ts';
import { fcParams } from '../fc.ts';
import { assertSequences, summary } from './run.ts';

describe.skipIf(!requireOvn('model-based sequences on real NB'))(
  'the controller under random event sequences (real OVN NB)',
  () => {
    let cp: ControlPlane;
    beforeAll(async () => {
      cp = await startControlPlane({ northd: false });
    });
    afterAll(async () => {
      console.log(summary('ovn'));
      await cp?.stop();
    });

    it('ends level on a real NB: the same invariants as on the simulator', { timeout: 300_000 }, async () => {
      // Every sequence starts from an empty NB: what the last one left of ours is removed first.
      const backend = async () => {
        const be = await OvnBackend.connect({ remotes: cp.nb.remote });
        await be.apply(plan(await be.read(), emptyTopology()));
        return be;
      };
      await assertSequences(fcParams(20), 30, backend);
    });
  },
);

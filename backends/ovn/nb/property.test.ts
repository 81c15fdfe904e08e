/**
 * Property: for random topology pairs (a, b), applying plan(empty, a) and
 * then plan(read(), b) to a real NB leaves exactly b, with nothing left to
 * do. Runs with tiny batches as well as the default, so that references
 * across transaction boundaries (rows inserted by a batch still in flight)
 * and batches of mixed kinds are exercised.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fcParams } from '../../../test/fc.ts';
import { arbitraryTopologyPair } from '../../../model/topology/arbitrary.ts';
import { type Topology, emptyTopology, plan } from '../../../model/topology/index.ts';
import { type ControlPlane, requireOvn, startControlPlane } from '../control-plane/index.ts';
import { OvnBackend } from './backend.ts';
import { topologyDiff } from './testing.ts';

describe.skipIf(!requireOvn('ovn backend property'))('OvnBackend: plan(read(), b) after a leaves b', () => {
  let cp: ControlPlane;
  let big: OvnBackend;
  let tiny: OvnBackend;

  beforeAll(async () => {
    cp = await startControlPlane({ northd: false });
    big = await OvnBackend.connect({ remotes: cp.nb.remote });
    tiny = await OvnBackend.connect({ remotes: cp.nb.remote, maxOpsPerTransaction: 3 });
  });
  afterAll(async () => {
    await big?.close();
    await tiny?.close();
    await cp?.stop();
  });

  async function check(be: OvnBackend, other: OvnBackend, a: Topology, b: Topology): Promise<void> {
    await be.apply(plan(await be.read(), emptyTopology()), { label: 'reset' });
    expect(topologyDiff(await be.read(), emptyTopology())).toEqual([]);
    await be.apply(plan(emptyTopology(), a), { label: 'a' });
    expect(topologyDiff(await be.read(), a)).toEqual([]);
    await be.apply(plan(await be.read(), b), { label: 'a→b' });
    const back = await be.read();
    expect(topologyDiff(back, b)).toEqual([]);
    expect(plan(back, b)).toEqual([]);
    // Another client's cache converges on the same rows.
    await other.session.cache.waitFor(() => topologyDiff(other.readCached(), b).length === 0, { timeoutMs: 5000 });
  }

  it('realistic matches, default and tiny batches', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryTopologyPair(), fc.boolean(), async ([a, b], small) => {
        await check(small ? tiny : big, small ? big : tiny, a, b);
      }),
      fcParams(40),
    );
  });

  it('random matches from the match generator survive NB', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryTopologyPair({ randomMatches: true, maxAcls: 10 }), async ([a, b]) => {
        await check(big, tiny, a, b);
      }),
      fcParams(20),
    );
  });
});

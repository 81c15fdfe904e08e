/**
 * Test-only: a control plane, our NB backend and a datapath oracle holding one
 * topology, set up in `beforeAll` and stopped in `afterAll` of the calling
 * describe block (the real-packet tests of LB affinity and MAC learning).
 */
import { afterAll, beforeAll } from 'vitest';
import { plan, type Topology } from '../../model/topology/index.ts';
import { emptyTopology } from '../../model/topology/build.ts';
import { startControlPlane, type ControlPlane } from '../../backends/ovn/control-plane/index.ts';
import { OvnBackend } from '../../backends/ovn/nb/index.ts';
import { DatapathOracle } from './oracle.ts';

export interface LoadedChassis {
  readonly cp: ControlPlane;
  readonly be: OvnBackend;
  readonly dp: DatapathOracle;
}

/** Call inside `describe`; the returned getter is valid inside its tests. */
export function loadedChassis(topology: Topology, label: string): () => LoadedChassis {
  let world: Partial<LoadedChassis> = {};
  beforeAll(async () => {
    const cp = await startControlPlane();
    world = { cp };
    const be = await OvnBackend.connect({ remotes: cp.nb.remote });
    world = { cp, be };
    await be.apply(plan(emptyTopology(), topology), { label });
    await be.waitForNorthd({ timeoutMs: 60_000 });
    const dp = await DatapathOracle.start({ controlPlane: cp });
    world = { cp, be, dp };
    await dp.load(topology);
  }, 120_000);
  afterAll(async () => {
    await world.dp?.stop();
    await world.be?.close();
    await world.cp?.stop();
  });
  return () => world as LoadedChassis;
}

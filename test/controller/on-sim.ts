/**
 * The controller tests' start: objects created in a fresh in-memory cluster,
 * the real controller over the simulator backend, settled; every controller
 * started this way is stopped after each test of the file that made it.
 */
import { afterEach } from 'vitest';
import { SimBackend } from '../../backends/sim/index.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { realClock } from '../../kube/runtime/clock.ts';

/**
 * Call once at a test file's top level (it registers the afterEach).
 *
 * @example const setup = controllerOnSim(); const { cluster, backend } = await setup([subnet]);
 */
export function controllerOnSim(seed = 5) {
  const running: Controller[] = [];
  afterEach(async () => {
    for (const c of running.splice(0)) await c.stop();
  });
  return async (objects: readonly KubeObject[]) => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    for (const o of objects) await cluster.create(o);
    const c = new Controller({ cluster, backend, clock: realClock, random: seededRandomBytes(seed) });
    running.push(c);
    await c.start();
    await settled(c);
    return { cluster, backend, c };
  };
}

/**
 * IPPool enableAddressSet end to end on the simulator: the shipped scenario's
 * probes flip without it (so the scenario cannot pass by accident); the set
 * is Kube-OVN's (name, entries, external_ids) and follows the pool: turned
 * off or deleted, it goes; a pool whose set cannot be written (mixed
 * families) is refused whole and keeps what it had.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimBackend } from '../../backends/sim/index.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import { type LoadedScenario, loadScenario } from '../../scenarios/load.ts';
import { runScenario, SimWorld } from '../../scenarios/run.ts';

const FILE = join(import.meta.dirname, '..', '..', 'scenarios', 'ippool-address-set.yaml');

async function run(s: LoadedScenario) {
  const world = new SimWorld();
  const r = await runScenario(s, { world });
  const t = await world.backend.read();
  await world.close();
  return { r, t };
}

const verdict = (r: Awaited<ReturnType<typeof run>>['r'], from: string, to: string) =>
  r.results.filter((x) => x.from === from && x.to === to).map((x) => x.allowed);

describe('IPPool enableAddressSet (scenarios/ippool-address-set.yaml)', () => {
  const s = loadScenario(FILE);

  it("with it: every probe as expected, and the sets are Kube-OVN's", async () => {
    const { r, t } = await run(s);
    expect(r.results.filter((x) => !x.ok)).toEqual([]);
    expect(t.addressSet.get('ops.pool')).toMatchObject({
      addresses: ['10.16.0.200/30'],
      externalIds: { ippool: 'ops-pool' },
    });
    expect(t.addressSet.get('t.quarantine')?.addresses).toEqual(['10.90.0.100', '10.90.0.101']);
  });

  it('without it: ops/admin -> data/db is denied and quarantine/q -> tenant2/app2 allowed', async () => {
    const off: LoadedScenario = {
      ...s,
      objects: s.objects.map((o) =>
        o.kind === 'IPPool'
          ? { ...o, object: { ...o.object, spec: { ...(o.object.spec as object), enableAddressSet: false } } }
          : o,
      ),
    };
    const { r, t } = await run(off);
    expect(t.addressSet.get('ops.pool')).toBeUndefined();
    expect(verdict(r, 'ops/admin', 'data/db')).toEqual([false, false]);
    expect(verdict(r, 'quarantine/q', 'tenant2/app2')).toEqual([true, true]);
  });
});

describe('the pool address set follows the pool, through the controller', () => {
  const running: Controller[] = [];
  afterEach(async () => {
    for (const c of running.splice(0)) await c.stop();
  });
  const pool = (spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'kubeovn.io/v1',
    kind: 'IPPool',
    metadata: { name: 'my-pool' },
    spec: { subnet: 'ovn-default', ...spec },
  });

  it('created, refused when mixed (keeping the old set), turned off, deleted', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await cluster.create(pool({ ips: ['10.16.5.0/30'], enableAddressSet: true }));
    const c = new Controller({ cluster, backend, clock: realClock, random: seededRandomBytes(5) });
    running.push(c);
    await c.start();
    await settled(c);
    expect((await backend.read()).addressSet.get('my.pool')?.addresses).toEqual(['10.16.5.0/30']);
    await cluster.update(pool({ ips: ['10.16.5.0/30', 'fd00::5'], enableAddressSet: true }));
    await settled(c);
    expect((await backend.read()).addressSet.get('my.pool')?.addresses).toEqual(['10.16.5.0/30']);
    expect(c.diagnostics.list().map((w) => [w.code, w.name, w.field])).toEqual([
      ['InvalidIPPool', 'my-pool', 'spec.ips'],
    ]);
    await cluster.update(pool({ ips: ['10.16.5.0/30'], enableAddressSet: false }));
    await settled(c);
    expect((await backend.read()).addressSet.get('my.pool')).toBeUndefined();
    await cluster.update(pool({ ips: ['10.16.5.4..10.16.5.5'], enableAddressSet: true }));
    await settled(c);
    expect((await backend.read()).addressSet.get('my.pool')?.addresses).toEqual(['10.16.5.4/31']);
    await cluster.delete({ kind: 'IPPool', name: 'my-pool' });
    await settled(c);
    expect((await backend.read()).addressSet.get('my.pool')).toBeUndefined();
  });
});

/**
 * The controller against real OVN: the scenario runner's `ovn` world (NB,
 * northd, ovn-trace) gives the shipped scenario and a sample of the
 * NetworkPolicy conformance suite the verdicts they expect, the same as the
 * simulator; NB holds what Kube-OVN would write; and a restart after an
 * orphan row of ours was injected, a foreign row added and a pod deleted
 * while the controller was down writes exactly the operations those need.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Recording } from '../recording-backend.ts';
import { type ControlPlane, requireOvn, startControlPlane } from '../../backends/ovn/control-plane/index.ts';
import { OvnBackend } from '../../backends/ovn/nb/backend.ts';
import { nbColumn, nbctl } from '../../backends/ovn/nb/testing.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { loadScenario } from '../../scenarios/load.ts';
import { OvnWorld } from '../../scenarios/ovn-world.ts';
import { runScenario, SimWorld } from '../../scenarios/run.ts';
import { files } from '../netpol-suite.ts';

const SCENARIOS = join(import.meta.dirname, '..', '..', 'scenarios');

describe.skipIf(!requireOvn('controller on real OVN'))('the controller on real OVN', () => {
  let world: OvnWorld;
  beforeAll(async () => {
    world = await OvnWorld.start();
  });
  afterAll(async () => {
    await world?.close();
  });

  it('every shipped scenario: every probe as expected, the same verdicts as the simulator', {
    timeout: 300_000,
  }, async () => {
    const shipped = readdirSync(SCENARIOS).filter((f) => f.endsWith('.yaml'));
    expect(shipped.length).toBeGreaterThanOrEqual(12);
    for (const f of shipped) {
      const s = loadScenario(join(SCENARIOS, f));
      const sim = new SimWorld();
      const a = await runScenario(s, { world: sim });
      await sim.close();
      // A fresh control plane per scenario, as `kovn sim run --backend ovn` has: pods of the same name in an
      // earlier scenario would otherwise be restored with that scenario's addresses (a restart, for the controller).
      const own = await OvnWorld.start();
      const b = await runScenario(s, { world: own }).finally(() => own.close());
      expect(b.results.map((r) => [f, r.step, r.from, r.to, r.port, r.allowed])).toEqual(
        a.results.map((r) => [f, r.step, r.from, r.to, r.port, r.allowed]),
      );
      expect(b.results.filter((r) => !r.ok)).toEqual([]);
      expect(b.results.length).toBeGreaterThanOrEqual(5);
    }
    // The last one loaded was quickstart or another; load quickstart again to inspect NB.
    await runScenario(loadScenario(join(SCENARIOS, 'quickstart.yaml')), { world });
    // NB holds Kube-OVN's names.
    const lsps = await nbColumn(world.nbRemote, 'Logical_Switch_Port', 'name');
    expect(lsps).toEqual(
      expect.arrayContaining(['db-0.data', 'debug.default', 'node-kovn-node-1', 'data-ovn-cluster']),
    );
    const lbs = await nbColumn(world.nbRemote, 'Load_Balancer', 'name');
    expect(lbs).toEqual(expect.arrayContaining(['cluster-tcp-loadbalancer', 'cluster-tcp-session-loadbalancer']));
  });

  it('a sample of the NetworkPolicy conformance suite through the controller: every probe as expected', {
    timeout: 600_000,
  }, async () => {
    const sample = files().filter((_, i) => i % 5 === 0);
    let probes = 0;
    const wrong: string[] = [];
    for (const file of sample) {
      const r = await runScenario(loadScenario(file), { world });
      for (const x of r.results) {
        probes++;
        if (!x.ok)
          wrong.push(
            `${file.split('/').slice(-2).join('/')} step ${x.step}: ${x.from} → ${x.to} ${x.protocol}/${x.port}`,
          );
      }
    }
    console.log(`netpol conformance on ovn-trace: ${probes - wrong.length}/${probes} probes (${sample.length} files)`);
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(probes).toBeGreaterThan(5000);
  });
});

describe.skipIf(!requireOvn('controller restart on real NB'))('a controller restart on a real NB', () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await startControlPlane({ northd: false });
  });
  afterAll(async () => {
    await cp?.stop();
  });

  const pod = (name: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName: 'node-1', containers: [] },
  });

  async function boot(cluster: MemoryCluster) {
    const be = new Recording(await OvnBackend.connect({ remotes: cp.nb.remote }));
    const c = new Controller({ cluster, backend: be, clock: realClock, random: seededRandomBytes(3) });
    const report = await c.start();
    await settled(c);
    return { be, c, report };
  }

  it('writes nothing when nothing changed; then exactly the orphan, the deleted pod, nothing of a foreign row', {
    timeout: 60_000,
  }, async () => {
    const cluster = new MemoryCluster({ now: () => Date.now() });
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } });
    for (let i = 0; i < 10; i++) await cluster.create(pod(`web-${i}`));
    const first = await boot(cluster);
    expect(first.report.operations).toBeGreaterThan(10);
    await first.c.stop();
    await first.be.close();

    const again = await boot(cluster);
    expect(again.report.operations).toBe(0);
    expect(again.be.plans).toEqual([]);
    await again.c.stop();
    // While the controller is down: an orphan row of ours, a row that is not ours, a pod deleted.
    await again.be.apply([
      {
        op: 'create',
        table: 'switch',
        key: 'orphan',
        row: { name: 'orphan', loadBalancers: [], otherConfig: {}, externalIds: {} },
      },
    ]);
    await again.be.close();
    await nbctl(cp.nb.remote, 'ls-add', 'not-ours');
    await cluster.delete({ kind: 'Pod', namespace: 'default', name: 'web-0' });

    const third = await boot(cluster);
    const ops = third.be.plans.flat();
    expect(ops).toEqual(
      expect.arrayContaining([
        { op: 'mutate', table: 'portGroup', key: 'node.node.1', delete: { ports: ['web-0.default'] } },
        { op: 'mutate', table: 'portGroup', key: 'ovn.default.node.1', delete: { ports: ['web-0.default'] } },
        { op: 'delete', table: 'switchPort', key: 'web-0.default' },
        { op: 'delete', table: 'switch', key: 'orphan' },
      ]),
    );
    expect(third.report.operations).toBe(4);
    expect((await nbColumn(cp.nb.remote, 'Logical_Switch', 'name')).sort()).toEqual([
      'join',
      'not-ours',
      'ovn-default',
    ]);
    // The address is free again, and its IP object is gone.
    expect(third.c.ipam.lookup('web-0.default')).toBeUndefined();
    expect(await cluster.get({ kind: 'IP', name: 'web-0.default' })).toBeUndefined();
    await third.c.stop();
    await third.be.close();
  });
});

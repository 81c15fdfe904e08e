/**
 * QoSPolicy: Kube-OVN writes no NB row for it (tc rules in the NAT gateway
 * pod), so neither does kovn; the policy is checked as Kube-OVN checks it
 * and copied to its status; the shipped scenario's verdicts are the same
 * without the policies.
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
import { loadScenario } from '../../scenarios/load.ts';
import { runScenario, SimWorld } from '../../scenarios/run.ts';

const FILE = join(import.meta.dirname, '..', '..', 'scenarios', 'qos-policy.yaml');

describe('QoSPolicy', () => {
  const running: Controller[] = [];
  afterEach(async () => {
    for (const c of running.splice(0)) await c.stop();
  });

  it('the scenario: no NB QoS row, and the same verdicts without the policies', async () => {
    const s = loadScenario(FILE);
    const run = async (objects: typeof s.objects) => {
      const world = new SimWorld();
      const r = await runScenario({ ...s, objects }, { world });
      const t = await world.backend.read();
      await world.close();
      return { verdicts: r.results.map((x) => [x.from, x.to, x.port, x.allowed]), qos: t.qos.size };
    };
    const withIt = await run(s.objects);
    const without = await run(s.objects.filter((o) => o.kind !== 'QoSPolicy'));
    expect(withIt.qos).toBe(0);
    expect(withIt.verdicts).toEqual(without.verdicts);
  });

  it('status as Kube-OVN patches it; a policy that does not check is refused and its status left alone', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const q = (name: string, spec: Record<string, unknown>): KubeObject => ({
      apiVersion: 'kubeovn.io/v1',
      kind: 'QoSPolicy',
      metadata: { name },
      spec,
    });
    const rules = [
      { name: 'b', rateMax: '5', direction: 'egress' },
      { name: 'a', rateMax: '10', burstMax: '10', direction: 'ingress', matchType: 'ip', matchValue: 'src 10.0.0.0/8' },
    ];
    await cluster.create(q('ok', { shared: true, bindingType: 'NATGW', bandwidthLimitRules: rules }));
    await cluster.create(q('unshared-gw', { shared: false, bindingType: 'NATGW', bandwidthLimitRules: [] }));
    await cluster.create(
      q('bad-rate', { shared: true, bindingType: 'EIP', bandwidthLimitRules: [{ name: 'x', rateMax: '1;reboot' }] }),
    );
    const c = new Controller({ cluster, backend: new SimBackend(), clock: realClock, random: seededRandomBytes(5) });
    running.push(c);
    await c.start();
    await settled(c);
    expect((await cluster.get({ kind: 'QoSPolicy', name: 'ok' }))?.status).toEqual({
      shared: true,
      bindingType: 'NATGW',
      bandwidthLimitRules: [rules[1], rules[0]],
    });
    expect((await cluster.get({ kind: 'QoSPolicy', name: 'unshared-gw' }))?.status).toBeUndefined();
    expect(
      c.diagnostics
        .list()
        .filter((w) => w.code === 'InvalidQoSPolicy')
        .map((w) => [w.name, w.field]),
    ).toEqual([
      ['bad-rate', 'spec.bandwidthLimitRules[0].rateMax'],
      ['unshared-gw', 'spec.shared'],
    ]);
  });
});

/**
 * SwitchLBRule and Vip through the whole controller (scenarios/switch-lb-rule.yaml
 * on the simulator): the NB rows and objects Kube-OVN writes for them, the
 * probes that flip without them, and a malformed rule failing closed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../kube/cluster/types.ts';
import type { Topology } from '../../model/topology/index.ts';
import { expandObjects } from '../../scenarios/expand.ts';
import { type LoadedScenario, loadScenario } from '../../scenarios/load.ts';
import { runScenario, SimWorld } from '../../scenarios/run.ts';

const FILE = join(import.meta.dirname, '..', '..', 'scenarios', 'switch-lb-rule.yaml');

/** The scenario's step 0 with objects left out (`drop`) or replaced (`edit`), on the simulator. */
async function run(edit: (o: KubeObject) => KubeObject | undefined = (o) => o) {
  const s = loadScenario(FILE);
  const objects = s.objects.flatMap((o) => edit(o.object as unknown as KubeObject) ?? []);
  const expanded = await expandObjects(objects as unknown as Record<string, unknown>[], {});
  const world = new SimWorld();
  let topology: Topology | undefined;
  const scenario: LoadedScenario = { ...s, steps: [] };
  const r = await runScenario(scenario, {
    world,
    expanded,
    // Without the rule its Service is gone: a probe naming it is denied, not an error.
    unresolvable: 'deny',
    onConverged: async (step, ix) => {
      if (step === 0) topology = ix.topology;
    },
  });
  await world.close();
  return { ...r, topology: topology!, cluster: expanded.cluster };
}

const verdict = (r: Awaited<ReturnType<typeof run>>, to: string, port?: number, from = 'lb-web/client') =>
  r.results.find((x) => x.step === 0 && x.to === to && x.from === from && x.port === port)?.allowed;

const named = (kind: string, name: string) => (o: KubeObject) =>
  o.kind === kind && o.metadata.name === name ? undefined : o;

describe('SwitchLBRule and Vip (scenarios/switch-lb-rule.yaml)', () => {
  it("writes the rule's Service, the VIPs on the VPC's load balancers, the Vip's port and statuses", async () => {
    const r = await run();
    expect(r.results.filter((x) => !x.ok)).toEqual([]);
    const lb = (name: string) => r.topology.loadBalancer.get(name)?.vips;
    expect(lb('vpc-lb-vpc-tcp-load')).toEqual({ '10.140.0.100:8080': '10.140.0.3:80,10.140.0.4:80' });
    expect(lb('vpc-lb-vpc-udp-load')).toEqual({ '10.140.0.100:53': '10.140.0.3:5353,10.140.0.4:5353' });
    expect(lb('vpc-lb-vpc-tcp-sess-load')).toEqual({ '10.140.0.101:3306': '10.141.0.10:3306' });
    // The default VPC's load balancers do not carry them.
    expect(Object.keys(lb('cluster-tcp-loadbalancer') ?? {})).not.toContain('10.140.0.100:8080');
    // Kube-OVN's virtual port for a Vip with a namespace; none for the switch_lb_vip without one.
    const spare = r.topology.switchPort.get('spare');
    expect(spare).toMatchObject({ switch: 'lb-net', type: 'virtual', options: { 'virtual-ip': '10.140.0.2' } });
    expect(r.topology.switchPort.get('web-vip')).toBeUndefined();
    const svc = (await r.cluster.get({ kind: 'Service', namespace: 'lb-web', name: 'slr-web' }))!;
    expect(svc.metadata.annotations?.['ovn.kubernetes.io/switch_lb_vip']).toBe('10.140.0.100');
    expect(svc.spec).toMatchObject({ clusterIP: 'None', selector: { app: 'web' }, ipFamilies: ['IPv4'] });
    const slices = (await r.cluster.list('EndpointSlice')).items.filter(
      (x) => x.metadata.labels?.['kubernetes.io/service-name'] === 'slr-db',
    );
    expect(slices.map((x) => [x.metadata.name, x.endpoints])).toEqual([
      ['slr-db-ipv4', [{ addresses: ['10.141.0.10'], conditions: { ready: true } }]],
    ]);
    const slr = await r.cluster.get({ kind: 'SwitchLBRule', name: 'web' });
    expect(slr?.status).toMatchObject({ service: 'lb-web/slr-web', ports: '8080/TCP,53/UDP' });
    const vip = await r.cluster.get({ kind: 'Vip', name: 'web-vip' });
    expect(vip?.status).toMatchObject({ v4ip: '10.140.0.100', type: 'switch_lb_vip' });
  });

  it('without the rule, its VIP answers nothing; without the Vip, a pod is given its address; without naming the Vip, a pod does not get its address', async () => {
    // From the VPC's other subnet (on the VIP's own subnet nothing answers ARP for it: the scenario says so).
    expect(verdict(await run(), '10.140.0.100', 8080, 'lb-db/db')).toBe(true);
    const noRule = await run(named('SwitchLBRule', 'web'));
    expect(verdict(noRule, '10.140.0.100', 8080, 'lb-db/db')).toBe(false);
    const noVip = await run(named('Vip', 'spare'));
    expect(verdict(noVip, '10.140.0.2')).toBe(true);
    // The pod naming the Vip pinned takes 10.140.0.50; without the annotation the Vip keeps it, unused.
    const unpinned = await run((o) =>
      o.kind === 'Pod' && o.metadata.name === 'pinned' ? { ...o, metadata: { ...o.metadata, annotations: {} } } : o,
    );
    expect(verdict(unpinned, '10.140.0.50', 80)).toBe(false);
    const pinned = await run();
    expect(verdict(pinned, '10.140.0.50', 80)).toBe(true);
  });

  it('a rule with a malformed VIP writes no Service and is reported on its field', async () => {
    const r = await run((o) =>
      o.kind === 'SwitchLBRule' && o.metadata.name === 'web'
        ? { ...o, spec: { ...(o.spec as object), vip: '10.140.0.300' } }
        : o,
    );
    expect(await r.cluster.get({ kind: 'Service', namespace: 'lb-web', name: 'slr-web' })).toBeUndefined();
    expect(verdict(r, '10.140.0.100', 8080, 'lb-db/db')).toBe(false);
    expect(r.warnings).toContainEqual(
      expect.objectContaining({ kind: 'SwitchLBRule', name: 'web', field: 'spec.vip', code: 'InvalidSwitchLBRule' }),
    );
  });
});

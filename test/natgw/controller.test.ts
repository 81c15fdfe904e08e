/**
 * VpcNatGateway and the Iptables kinds through the controller: the gateway
 * pod's StatefulSet and port, the statuses Kube-OVN writes, fail closed on
 * bad input (the field named, nothing half-applied), and the NB rows on a
 * real NB (the gateway pod's logical switch port with the lanIp, the VPC's
 * route to it).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimBackend } from '../../backends/sim/index.ts';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { nbctl } from '../../backends/ovn/nb/testing.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import { type Expanded, expandObjects } from '../../scenarios/expand.ts';
import { loadScenario } from '../../scenarios/load.ts';
import { OvnWorld } from '../../scenarios/ovn-world.ts';
import { runScenario } from '../../scenarios/run.ts';

const FILE = join(import.meta.dirname, '..', '..', 'scenarios', 'vpc-nat-gateway.yaml');
const objects = () => loadScenario(FILE).objects.map((o) => o.object as unknown as KubeObject);

const running: { c: Controller; x: Expanded }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.c.stop();
    r.x.workloads.stop();
  }
});

async function start(input: readonly KubeObject[]) {
  const x = await expandObjects(input as unknown as Record<string, unknown>[], {});
  const backend = new SimBackend();
  const c = new Controller({ cluster: x.cluster, backend, clock: realClock, random: seededRandomBytes(1) });
  running.push({ c, x });
  await c.start();
  await settled(c);
  const get = async (kind: string, name: string, namespace?: string) =>
    (await x.cluster.get({ kind, name, ...(namespace ? { namespace } : {}) })) as
      | (KubeObject & { status?: Record<string, unknown>; spec?: Record<string, unknown> })
      | undefined;
  return { c, x, backend, get };
}

const replace = (list: readonly KubeObject[], kind: string, name: string, spec: Record<string, unknown>) =>
  list.map((o) => (o.kind === kind && o.metadata.name === name ? ({ ...o, spec } as KubeObject) : o));

describe('VpcNatGateway and its rules through the controller', () => {
  it('makes the StatefulSet, its pod and port with the lanIp, and writes the statuses', async () => {
    const { backend, get } = await start(objects());
    const sts = await get('StatefulSet', 'vpc-nat-gw-gw1', 'kube-system');
    const template = ((sts?.spec ?? {}) as { template: { metadata: { labels: unknown; annotations: unknown } } })
      .template;
    expect(template.metadata.labels).toEqual({ app: 'vpc-nat-gw-gw1', 'ovn.kubernetes.io/vpc-nat-gw': 'true' });
    expect(template.metadata.annotations).toEqual({
      'ovn.kubernetes.io/vpc_nat_gw': 'gw1',
      'ovn.kubernetes.io/logical_switch': 'net1',
      'ovn.kubernetes.io/ip_address': '10.0.1.254',
    });
    const pod = await get('Pod', 'vpc-nat-gw-gw1-0', 'kube-system');
    expect(pod?.metadata.annotations?.['ovn.kubernetes.io/ip_address']).toBe('10.0.1.254');
    const lsp = (await backend.read()).switchPort.get('vpc-nat-gw-gw1-0.kube-system');
    expect(lsp?.switch).toBe('net1');
    expect(lsp?.addresses[0]).toMatch(/ 10\.0\.1\.254$/);
    expect((await get('VpcNatGateway', 'gw1'))?.status).toMatchObject({
      lanIp: '10.0.1.254',
      externalSubnets: ['ovn-vpc-external-network'],
      selector: ['kubernetes.io/os: linux'],
    });
    expect((await get('IptablesEIP', 'eip-snat'))?.status).toMatchObject({
      ready: true,
      ip: '172.18.0.10',
      nat: 'snat',
    });
    expect((await get('IptablesEIP', 'eip-fip'))?.status).toMatchObject({ ready: true, nat: 'fip' });
    expect((await get('IptablesSnatRule', 'snat-net1'))?.status).toMatchObject({
      ready: true,
      v4ip: '172.18.0.10',
      natGwDp: 'gw1',
      internalCIDR: '10.0.1.0/24',
    });
    expect((await get('IptablesDnatRule', 'dnat-web'))?.status).toMatchObject({
      ready: true,
      v4ip: '172.18.0.12',
      protocol: 'tcp',
      internalIp: '10.0.1.30',
      internalPort: '80',
      externalPort: '8888',
    });
  });

  it('a lanIp outside the subnet: no StatefulSet, the field named in an event and a warning', async () => {
    const gw = objects().find((o) => o.kind === 'VpcNatGateway')!;
    const bad = { ...(gw.spec as object), lanIp: '10.0.9.254' };
    const { c, x, get } = await start(replace(objects(), 'VpcNatGateway', 'gw1', bad));
    expect(await get('StatefulSet', 'vpc-nat-gw-gw1', 'kube-system')).toBeUndefined();
    expect(c.diagnostics.list()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'InvalidVpcNatGateway', name: 'gw1', field: 'spec.lanIp' }),
      ]),
    );
    const events = (await x.cluster.list('Event')).items.map((e) => (e as { reason?: string }).reason);
    expect(events).toContain('InvalidVpcNatGateway');
    // Nothing is ready: the EIPs' gateway has no pod.
    expect((await get('IptablesEIP', 'eip-snat'))?.status).toMatchObject({ ready: false });
  });

  it('a gateway changed to a bad spec keeps its StatefulSet as it was', async () => {
    const { c, x, get } = await start(objects());
    const before = await get('StatefulSet', 'vpc-nat-gw-gw1', 'kube-system');
    await x.cluster.patch({ kind: 'VpcNatGateway', name: 'gw1' }, { spec: { subnet: 'nope' } });
    await settled(c);
    expect((await get('StatefulSet', 'vpc-nat-gw-gw1', 'kube-system'))?.spec).toEqual(before?.spec);
    expect(c.diagnostics.list()).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'InvalidVpcNatGateway', field: 'spec.subnet' })]),
    );
  });

  it('an EIP without v4ip and a second FIP on a bound EIP are refused, naming the field', async () => {
    const extra: KubeObject[] = [
      { apiVersion: 'kubeovn.io/v1', kind: 'IptablesEIP', metadata: { name: 'eip-none' }, spec: { natGwDp: 'gw1' } },
      {
        apiVersion: 'kubeovn.io/v1',
        kind: 'IptablesFIPRule',
        metadata: { name: 'fip-z-second' },
        spec: { eip: 'eip-fip', internalIp: '10.0.2.99' },
      },
    ] as KubeObject[];
    const { c, get } = await start([...objects(), ...extra]);
    expect((await get('IptablesEIP', 'eip-none'))?.status).toMatchObject({ ready: false, ip: '' });
    expect((await get('IptablesFIPRule', 'fip-z-second'))?.status).toMatchObject({ ready: false });
    expect((await get('IptablesFIPRule', 'fip-vm'))?.status).toMatchObject({ ready: true });
    const d = c.diagnostics.list();
    expect(d).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'InvalidNatRule', kind: 'IptablesEIP', name: 'eip-none', field: 'spec.v4ip' }),
        expect.objectContaining({ code: 'InvalidNatRule', name: 'fip-z-second', field: 'spec.eip' }),
      ]),
    );
  });
});

describe.skipIf(!requireOvn('natgw NB rows'))('the NB rows for a VPC NAT gateway, on a real NB', () => {
  it("the gateway pod's port on net1 with the lanIp, the VPC's default route to it", { timeout: 120_000 }, async () => {
    const world = await OvnWorld.start();
    try {
      const s = loadScenario(FILE);
      const r = await runScenario({ ...s, steps: [] }, { world });
      expect(r.results.filter((x) => !x.ok)).toEqual([]);
      const addresses = await nbctl(
        world.nbRemote,
        'get',
        'Logical_Switch_Port',
        'vpc-nat-gw-gw1-0.kube-system',
        'addresses',
      );
      expect(addresses).toMatch(/10\.0\.1\.254/);
      const ports = await nbctl(world.nbRemote, 'lsp-list', 'net1');
      expect(ports).toContain('vpc-nat-gw-gw1-0.kube-system');
      const routes = await nbctl(world.nbRemote, 'lr-route-list', 'tenant');
      expect(routes).toMatch(/0\.0\.0\.0\/0\s+10\.0\.1\.254 dst-ip/);
    } finally {
      await world.close();
    }
  });
});

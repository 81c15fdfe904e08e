/**
 * OVN-native north-south NAT through the controller on the simulator: a
 * VPC's gateway port on its external subnet (with its lrp EIP), OvnFip,
 * OvnSnatRule and OvnDnatRule as NAT rows and a router load balancer, the
 * statuses Kube-OVN writes, and rules that cannot apply failing closed.
 */
import { describe, expect, it } from 'vitest';
import type { MemoryCluster } from '../../kube/cluster/memory.ts';
import { ovnNatObjects } from './ovn-nat.fixture.ts';
import { controllerOnSim } from './on-sim.ts';

const setup = controllerOnSim();

const status = async (cluster: MemoryCluster, kind: string, name: string) =>
  (await cluster.get({ kind, name }))?.status as Record<string, unknown> | undefined;

describe('OVN-native NAT through the controller', () => {
  it("a VPC's gateway port on the external subnet, with its lrp EIP and gateway chassis", async () => {
    const { cluster, backend } = await setup(ovnNatObjects());
    const t = await backend.read();
    const lrp = t.routerPort.get('vpc1-external');
    expect(lrp).toMatchObject({
      router: 'vpc1',
      networks: ['172.18.0.10/24'],
      gatewayChassis: [{ chassisName: 'gw1', priority: 100 }],
    });
    expect(t.switchPort.get('external-vpc1')).toMatchObject({
      switch: 'external',
      type: 'router',
      addresses: ['router'],
      options: { 'router-port': 'vpc1-external' },
    });
    // Kube-OVN creates the lrp OvnEip; its address is the port's.
    const lrpEip = await cluster.get({ kind: 'OvnEip', name: 'vpc1-external' });
    expect(lrpEip?.spec).toMatchObject({ externalSubnet: 'external', v4Ip: '172.18.0.10', type: 'lrp' });
    expect((lrpEip?.spec as { macAddress?: string } | undefined)?.macAddress).toBe(lrp?.mac);
    expect(await status(cluster, 'OvnEip', 'vpc1-external')).toMatchObject({ ready: true, type: 'lrp' });
    expect(await status(cluster, 'Vpc', 'vpc1')).toMatchObject({ enableExternal: true, extraExternalSubnets: [] });
  });

  it('FIP, DNAT and SNAT rules: NAT rows and a router load balancer, and their statuses', async () => {
    const { cluster, backend, c } = await setup(ovnNatObjects());
    const t = await backend.read();
    const web = await cluster.get({ kind: 'IP', name: 'web.ns1' });
    const nats = [...t.nat.values()].map(({ externalIds: _e, ...n }) => n);
    expect(nats).toEqual(
      expect.arrayContaining([
        {
          router: 'vpc1',
          type: 'dnat_and_snat',
          externalIp: '172.18.0.20',
          logicalIp: '10.1.0.2',
          logicalPort: 'web.ns1',
          externalMac: (web?.spec as { macAddress?: string } | undefined)?.macAddress,
          options: { stateless: 'false' },
        },
        { router: 'vpc2', type: 'snat', externalIp: '172.18.0.11', logicalIp: '10.2.0.0/24', options: {} },
      ]),
    );
    expect(nats).toHaveLength(2);
    // Settled, nothing is left to say about them.
    expect(c.diagnostics.list().filter((w) => w.kind.startsWith('Ovn') || w.kind === 'Vpc')).toEqual([]);
    expect(t.loadBalancer.get('dnat-app')).toMatchObject({
      vips: { '172.18.0.21:80': '10.1.0.3:8080' },
      protocol: 'tcp',
    });
    expect(t.router.get('vpc1')?.loadBalancers).toContain('dnat-app');
    expect(await status(cluster, 'OvnFip', 'fip-web')).toMatchObject({
      ready: true,
      vpc: 'vpc1',
      v4Eip: '172.18.0.20',
      v4Ip: '10.1.0.2',
    });
    expect(await status(cluster, 'OvnSnatRule', 'snat-net2')).toMatchObject({
      ready: true,
      vpc: 'vpc2',
      v4Eip: '172.18.0.11',
      v4IpCidr: '10.2.0.0/24',
    });
    expect(await status(cluster, 'OvnDnatRule', 'dnat-app')).toMatchObject({
      ready: true,
      vpc: 'vpc1',
      v4Eip: '172.18.0.21',
      v4Ip: '10.1.0.3',
      externalPort: '80',
      internalPort: '8080',
      protocol: 'tcp',
    });
    // An EIP's status says which rules use it; its address is written back to its spec, as Kube-OVN does.
    expect(await status(cluster, 'OvnEip', 'eip-web')).toMatchObject({
      ready: true,
      type: 'nat',
      nat: 'fip',
      v4Ip: '172.18.0.20',
    });
    expect(await status(cluster, 'OvnEip', 'vpc2-external')).toMatchObject({ nat: 'snat' });
    expect((await cluster.get({ kind: 'OvnEip', name: 'eip-app' }))?.spec).toMatchObject({
      externalSubnet: 'external',
      type: 'nat',
    });
  });

  it('a rule that cannot apply writes nothing and says why: no such IP, a protocol OVN refuses, no such EIP', async () => {
    const objects = ovnNatObjects().map((o) => {
      if (o.kind === 'OvnFip') return { ...o, spec: { ...(o.spec as object), ipName: 'nobody.ns1' } };
      if (o.kind === 'OvnDnatRule') return { ...o, spec: { ...(o.spec as object), protocol: 'TCP' } };
      if (o.kind === 'OvnSnatRule') return { ...o, spec: { ovnEip: 'no-such-eip', vpcSubnet: 'net2' } };
      return o;
    });
    const { cluster, backend, c } = await setup(objects);
    const t = await backend.read();
    expect([...t.nat.values()]).toEqual([]);
    expect(t.loadBalancer.get('dnat-app')).toBeUndefined();
    expect(t.router.get('vpc1')?.loadBalancers).not.toContain('dnat-app');
    expect(await status(cluster, 'OvnFip', 'fip-web')).toMatchObject({ ready: false });
    expect(await status(cluster, 'OvnDnatRule', 'dnat-app')).toMatchObject({ ready: false });
    expect(await status(cluster, 'OvnSnatRule', 'snat-net2')).toMatchObject({ ready: false });
    const problems = c.diagnostics
      .list()
      .filter((p) => p.code === 'InvalidNatRule')
      .map((p) => [p.kind, p.name, p.field]);
    expect(problems).toEqual(
      expect.arrayContaining([
        ['OvnFip', 'fip-web', 'spec.ipName'],
        ['OvnDnatRule', 'dnat-app', 'spec.protocol'],
        ['OvnSnatRule', 'snat-net2', 'spec.ovnEip'],
      ]),
    );
    const events = (await cluster.list('Event')).items.filter(
      (e) => (e as { reason?: string }).reason === 'InvalidNatRule',
    );
    expect(events.map((e) => (e as { message?: string }).message)).toEqual(
      expect.arrayContaining([
        'spec.ipName: IP nobody.ns1 does not exist',
        'spec.protocol: "TCP" is not tcp, udp or sctp',
        'spec.ovnEip: OvnEip no-such-eip does not exist',
      ]),
    );
  });

  it('without an external gateway node no gateway port is made, and the VPC says so', async () => {
    const objects = ovnNatObjects().filter((o) => o.metadata.name !== 'gw1');
    const { backend, c } = await setup(objects);
    const t = await backend.read();
    expect(t.routerPort.get('vpc1-external')).toBeUndefined();
    expect(c.diagnostics.list().some((p) => p.code === 'InvalidVpcExternal' && p.name === 'vpc1')).toBe(true);
  });
});

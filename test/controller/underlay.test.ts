/**
 * Underlay subnets through the controller onto the simulator's NB: the rows
 * Kube-OVN writes for a Subnet with `vlan` (the localnet port, no router port
 * with the physical gateway), with `u2oInterconnection` (the router port on
 * the allocated u2o address, the u2o policies and exclude sets, the status),
 * with `logicalGateway` (routed as an overlay subnet), the pod annotations,
 * the ProviderNetwork and Vlan statuses, and what refuses an underlay subnet
 * (a missing Vlan, conflicting Vlans, logicalGateway with u2o).
 */
import { describe, expect, it } from 'vitest';
import type { SimBackend } from '../../backends/sim/index.ts';
import { settled } from '../../controller/settle.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { printMatch } from '../../model/match/index.ts';
import { controllerOnSim } from './on-sim.ts';

const kubeovn = (kind: string, name: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion: 'kubeovn.io/v1', kind, metadata: { name }, spec }) as KubeObject;
const NET = kubeovn('ProviderNetwork', 'net1', { defaultInterface: 'eth1' });
const VLAN = kubeovn('Vlan', 'vlan100', { id: 100, provider: 'net1' });
const subnet = (extra: Record<string, unknown> = {}) =>
  kubeovn('Subnet', 'ul', {
    protocol: 'IPv4',
    cidrBlock: '172.17.0.0/24',
    gateway: '172.17.0.1',
    vlan: 'vlan100',
    namespaces: ['ul'],
    ...extra,
  });
const pod = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ul' },
  spec: { nodeName: 'n1', containers: [] },
});

const start = controllerOnSim(3);
const setup = (objects: readonly KubeObject[]) =>
  start([
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1' },
      status: { addresses: [{ type: 'InternalIP', address: '192.168.0.11' }] },
    } as KubeObject,
    ...objects,
  ]);

const policiesOf = async (backend: SimBackend, subnet: string) =>
  [...(await backend.read()).routerPolicy.values()]
    .filter((p) => p.externalIds.subnet === subnet)
    .map((p) => [p.priority, printMatch(p.match), p.action, p.nexthops.join(',')])
    .sort((a, b) => Number(b[0]) - Number(a[0]));

describe('underlay subnets (Subnet vlan, ProviderNetwork, Vlan)', () => {
  it('vlan: the localnet port Kube-OVN writes, no router port, no subnet policies; pods annotated with the vlan', async () => {
    const { cluster, backend } = await setup([NET, VLAN, subnet(), pod('a')]);
    const t = await backend.read();
    expect(t.switchPort.get('localnet.ul')).toEqual({
      name: 'localnet.ul',
      switch: 'ul',
      type: 'localnet',
      addresses: ['unknown'],
      portSecurity: [],
      options: { network_name: 'net1' },
      tag: 100,
      externalIds: expect.objectContaining({ ls: 'ul', ipv4_network: '172.17.0.0/24' }),
    });
    expect(t.routerPort.has('ovn-cluster-ul')).toBe(false);
    expect(t.switchPort.has('ul-ovn-cluster')).toBe(false);
    expect(await policiesOf(backend, 'ul')).toEqual([]);
    const a = (await cluster.get({ kind: 'Pod', namespace: 'ul', name: 'a' }))!.metadata.annotations!;
    expect(a['ovn.kubernetes.io/vlan_id']).toBe('100');
    expect(a['ovn.kubernetes.io/provider_network']).toBe('net1');
    expect(a['ovn.kubernetes.io/logical_router']).toBeUndefined();
    expect(a['ovn.kubernetes.io/gateway']).toBe('172.17.0.1');
    const vlan = await cluster.get({ kind: 'Vlan', name: 'vlan100' });
    expect((vlan as { status?: unknown }).status).toEqual({ subnets: ['ul'], conflict: false });
    const pn = await cluster.get({ kind: 'ProviderNetwork', name: 'net1' });
    expect((pn as { status?: unknown }).status).toEqual({ ready: true, readyNodes: ['n1'], vlans: ['vlan100'] });
  });

  it('vlan id 0: the localnet port is untagged', async () => {
    const { backend } = await setup([NET, kubeovn('Vlan', 'vlan100', { id: 0, provider: 'net1' }), subnet()]);
    expect((await backend.read()).switchPort.get('localnet.ul')?.tag).toBeUndefined();
  });

  it("u2oInterconnection: the router port on an allocated address, Kube-OVN's u2o policies and exclude sets, the status", async () => {
    const { cluster, backend } = await setup([NET, VLAN, subnet({ u2oInterconnection: true }), pod('a')]);
    const t = await backend.read();
    const s = (await cluster.get({ kind: 'Subnet', name: 'ul' })) as { status?: Record<string, unknown> };
    const u2oIp = s.status?.u2oInterconnectionIP as string;
    expect(u2oIp).toMatch(/^172\.17\.0\.\d+$/);
    expect(u2oIp).not.toBe('172.17.0.1');
    expect(s.status?.u2oInterconnectionVPC).toBe('ovn-cluster');
    const lrp = t.routerPort.get('ovn-cluster-ul');
    expect(lrp?.networks).toEqual([`${u2oIp}/24`]);
    expect(lrp?.mac).toBe(s.status?.u2oInterconnectionMAC);
    expect(t.switchPort.get('ul-ovn-cluster')?.options['router-port']).toBe('ovn-cluster-ul');
    expect(await policiesOf(backend, 'ul')).toEqual([
      [31000, 'ip4.dst == $ul.u2o_exclude_ip.ip4 && ip4.src == 172.17.0.0/24', 'reroute', '172.17.0.1'],
      [29400, 'ip4.dst == 172.17.0.0/24', 'allow', ''],
      [29000, 'ip4.src == 172.17.0.0/24', 'reroute', '172.17.0.1'],
    ]);
    expect(t.addressSet.get('ul.u2o_exclude_ip.ip4')?.addresses).toEqual(['192.168.0.11']);
    const a = (await cluster.get({ kind: 'Pod', namespace: 'ul', name: 'a' }))!.metadata.annotations!;
    expect(a['ovn.kubernetes.io/logical_router']).toBe('ovn-cluster');
    expect(a['ovn.kubernetes.io/ip_address']).not.toBe(u2oIp);
  });

  it('u2oInterconnectionIP given: that address; u2o turned off: the port, policies and address go', async () => {
    const { cluster, backend, c } = await setup([
      NET,
      VLAN,
      subnet({ u2oInterconnection: true, u2oInterconnectionIP: '172.17.0.254' }),
    ]);
    expect((await backend.read()).routerPort.get('ovn-cluster-ul')?.networks).toEqual(['172.17.0.254/24']);
    await cluster.patch({ kind: 'Subnet', name: 'ul' }, { spec: { u2oInterconnection: false } });
    await settled(c);
    const t = await backend.read();
    expect(t.routerPort.has('ovn-cluster-ul')).toBe(false);
    expect(await policiesOf(backend, 'ul')).toEqual([]);
    expect(c.ipam.lookup('u2o-interconnection.ovn-cluster.ul')).toBeUndefined();
    const s = (await cluster.get({ kind: 'Subnet', name: 'ul' })) as { status?: Record<string, unknown> };
    expect(s.status?.u2oInterconnectionIP).toBe('');
  });

  it('logicalGateway: routed as an overlay subnet (router port on the gateway, the 31000 allow) plus the localnet port', async () => {
    const { backend } = await setup([NET, VLAN, subnet({ logicalGateway: true })]);
    const t = await backend.read();
    expect(t.routerPort.get('ovn-cluster-ul')?.networks).toEqual(['172.17.0.1/24']);
    expect(t.switchPort.has('localnet.ul')).toBe(true);
    // The distributed gateway's per-node reroute too, as for an overlay subnet (reconcileOvnDefaultVpcRoute's else branch).
    expect(await policiesOf(backend, 'ul')).toEqual([
      [31000, 'ip4.dst == 172.17.0.0/24', 'allow', ''],
      [29000, 'ip4.src == $ul.n1_ip4', 'reroute', '100.64.0.2'],
    ]);
  });

  it.each([
    ['a Vlan that does not exist', [NET, subnet({ vlan: 'nope' })], 'spec.vlan', /Vlan nope does not exist/],
    ['a Vlan whose provider network does not exist', [VLAN, subnet()], 'spec.vlan', /provider network net1/],
    [
      'two Vlans with one provider and id',
      [NET, VLAN, kubeovn('Vlan', 'vlan100b', { id: 100, provider: 'net1' }), subnet()],
      'spec.vlan',
      /conflict vlan vlan100/,
    ],
    [
      'logicalGateway with u2oInterconnection',
      [NET, VLAN, subnet({ logicalGateway: true, u2oInterconnection: true })],
      'spec.u2oInterconnection',
      /can't be opened at the same time/,
    ],
    [
      'a u2o address outside the subnet',
      [NET, VLAN, subnet({ u2oInterconnection: true, u2oInterconnectionIP: '10.0.0.1' })],
      'spec.u2oInterconnectionIP',
      /not in subnet ul/,
    ],
  ])('refused, nothing written: %s', async (_, objects, field, message) => {
    const { backend, c, cluster } = await setup(objects as KubeObject[]);
    const t = await backend.read();
    expect(t.switch.has('ul')).toBe(false);
    expect(t.switchPort.has('localnet.ul')).toBe(false);
    const found = c.diagnostics.list().find((d) => d.kind === 'Subnet' && d.name === 'ul' && d.field === field);
    expect(found?.message).toMatch(message);
    const s = (await cluster.get({ kind: 'Subnet', name: 'ul' })) as { status?: { conditions?: unknown[] } };
    expect(s.status?.conditions).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'Validated', status: 'False' })]),
    );
  });
});

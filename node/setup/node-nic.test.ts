/**
 * ovn0: the plan from the Node's annotations and the cluster's subnets
 * (pure), and both forms applied: the OVS rows on a real ovsdb-server (read
 * back with ovs-vsctl), the netlink requests through a recorder.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  VSWITCH_SCHEMA,
  makeTempDir,
  removeTempDir,
  requireOvn,
  runTool,
  startOvsdbServer,
  type OvsdbServer,
} from '../../backends/ovn/control-plane/index.ts';
import { encodeNodeNetwork } from '../../kube/annotations.ts';
import type { Netlink } from '../netlink/types.ts';
import { Vswitch, findPort } from '../ovs/index.ts';
import { configureNodeOvs } from './node-ovs.ts';
import { ensureNodeNic, planNodeNic, removeNodeNic, type NodeNicInput, type NodeNicPlan } from './node-nic.ts';
import { RecordingNetlink } from '../netlink/recording.ts';

const annotations = encodeNodeNetwork({
  ips: ['100.64.0.2', 'fd00:100:64::2'],
  mac: '0a:58:64:40:00:02',
  cidrs: ['100.64.0.0/16', 'fd00:100:64::/112'],
  gateways: ['100.64.0.1', 'fd00:100:64::1'],
  logicalSwitch: 'join',
  portName: 'node-node1',
});

const subnet = (name: string, cidrBlock: string, extra: { vpc?: string; provider?: string } = {}) => ({
  name,
  cidrBlock,
  vpc: extra.vpc ?? '',
  provider: extra.provider ?? 'ovn',
});

const input: NodeNicInput = {
  node: 'node1',
  annotations,
  mtu: 1400,
  subnets: [
    subnet('join', '100.64.0.0/16,fd00:100:64::/112', { vpc: 'ovn-cluster' }),
    subnet('ovn-default', '10.16.0.0/16,fd00:10:16::/112'),
    subnet('private', '10.50.0.0/16', { vpc: 'ovn-cluster' }),
    subnet('tenant', '10.60.0.0/16', { vpc: 'vpc-a' }),
    subnet('net1', '10.70.0.0/16', { provider: 'net1.default' }),
    subnet('hostnet', '172.18.0.0/16'),
  ],
  serviceCidrs: ['10.96.0.0/12', 'fd00:10:96::/112'],
  internalIps: ['172.18.0.2'],
};

const planned = (i: NodeNicInput): NodeNicPlan => {
  const p = planNodeNic(i);
  if (!p.ok) throw new Error(p.issue.message);
  return p.value;
};

describe('planNodeNic: ovn0 from the Node and the subnets', () => {
  it('takes the join port, MAC and addresses with the join prefix; routes the default VPC and services via the join gateway', () => {
    expect(planned(input)).toEqual({
      name: 'ovn0',
      ifaceId: 'node-node1',
      mac: '0a:58:64:40:00:02',
      mtu: 1400,
      addresses: ['100.64.0.2/16', 'fd00:100:64::2/112'],
      // From the node's InternalIP where it has one of the family (172.18.0.0/16 holds it: not routed).
      routes: [
        { dst: '10.16.0.0/16', gw: '100.64.0.1', src: '172.18.0.2' },
        { dst: 'fd00:10:16::/112', gw: 'fd00:100:64::1' },
        { dst: '10.50.0.0/16', gw: '100.64.0.1', src: '172.18.0.2' },
        { dst: '10.96.0.0/12', gw: '100.64.0.1', src: '172.18.0.2' },
        { dst: 'fd00:10:96::/112', gw: 'fd00:100:64::1' },
      ],
      unrouted: [],
      externalIds: { ip: '100.64.0.2,fd00:100:64::2' },
    });
  });

  it('without InternalIPs the routes carry no source (the kernel picks the join address)', () => {
    const { internalIps: _, ...rest } = input;
    const routes = planned(rest).routes;
    expect(routes.map((r) => r.src)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
    // The subnet that held the node address is routed now.
    expect(routes.map((r) => r.dst)).toContain('172.18.0.0/16');
  });

  it('names the port node-<node> when the controller wrote no port_name', () => {
    const { 'ovn.kubernetes.io/port_name': _, ...rest } = annotations;
    expect(planned({ ...input, annotations: rest }).ifaceId).toBe('node-node1');
  });

  it('a v4-only join routes the v4 CIDRs and reports the v6 ones; a join family without a gateway fails typed', () => {
    const v4 = encodeNodeNetwork({
      ips: ['100.64.0.3'],
      mac: '0a:58:64:40:00:03',
      cidrs: ['100.64.0.0/16'],
      gateways: ['100.64.0.1'],
      logicalSwitch: 'join',
      portName: 'node-node2',
    });
    const p = planNodeNic({
      ...input,
      node: 'node2',
      annotations: v4,
      subnets: [subnet('ovn-default', '10.16.0.0/16')],
      serviceCidrs: ['10.96.0.0/12'],
    });
    expect(p).toMatchObject({ ok: true, value: { addresses: ['100.64.0.3/16'], unrouted: [] } });
    // Dual-stack subnets and services beside a v4-only join: ovn0 carries IPv4 only, the rest is said, not dropped silently.
    const dual = planned({ ...input, annotations: v4 });
    expect(dual.routes.map((r) => r.dst)).toEqual(['10.16.0.0/16', '10.50.0.0/16', '10.96.0.0/12']);
    expect(dual.unrouted).toEqual([
      // The join subnet's own v6 CIDR too: this node has no address in it.
      { dst: 'fd00:100:64::/112', reason: 'the node has no IPv6 join address' },
      { dst: 'fd00:10:16::/112', reason: 'the node has no IPv6 join address' },
      { dst: 'fd00:10:96::/112', reason: 'the node has no IPv6 join address' },
    ]);
    // A v6 join address without a v6 gateway: the routes of that family have no next hop.
    const noGw6 = planNodeNic({ ...input, annotations: { ...annotations, 'ovn.kubernetes.io/gateway': '100.64.0.1' } });
    expect(noGw6).toMatchObject({
      ok: false,
      issue: {
        code: 'no-node-network',
        path: 'metadata.annotations[ovn.kubernetes.io/gateway]',
        message: 'no IPv6 join gateway for fd00:10:16::/112',
      },
    });
  });

  it('no plan before the controller allocated the join address, or without a MAC or a join CIDR', () => {
    expect(planNodeNic({ ...input, annotations: {} })).toMatchObject({
      ok: false,
      issue: { code: 'no-node-network', path: 'metadata.annotations[ovn.kubernetes.io/allocated]' },
    });
    const { 'ovn.kubernetes.io/mac_address': _m, ...noMac } = annotations;
    expect(planNodeNic({ ...input, annotations: noMac })).toMatchObject({
      ok: false,
      issue: { path: 'metadata.annotations[ovn.kubernetes.io/mac_address]' },
    });
    expect(
      planNodeNic({ ...input, annotations: { ...annotations, 'ovn.kubernetes.io/cidr': '10.0.0.0/8' } }),
    ).toMatchObject({ ok: false, issue: { path: 'metadata.annotations[ovn.kubernetes.io/cidr]' } });
  });
});

/**
 * The veth form's requests go through node/netlink's recorder (it checks them as RtNetlink does);
 * the internal form's configureHostLink, an optional request that recorder lacks, through ours.
 */
describe.skipIf(!requireOvn('node/setup'))('ensureNodeNic: both forms, rows on a real conf.db', () => {
  let dir: string | undefined;
  let server: OvsdbServer;
  let vs: Vswitch;
  const plan = planned(input);
  const vsctl = async (...args: string[]) =>
    (await runTool('ovs-vsctl', [`--db=${server.remote}`, '--no-wait', '--timeout=10', ...args])).stdout.trim();
  const get = async (table: string, row: string, column: string) =>
    (await vsctl('--if-exists', 'get', table, row, column)).replace(/^"(.*)"$/, '$1');

  beforeAll(async () => {
    dir = await makeTempDir('nodesetup-nic');
    server = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
    await vsctl('init');
    vs = await Vswitch.open({ remote: server.remote });
    await configureNodeOvs(vs, { systemId: 'node1', ovnRemote: 'unix:/x', encapIp: '127.0.0.1', profile: 'system' });
  });
  afterAll(async () => {
    vs?.close();
    await server?.stop();
    if (dir !== undefined) await removeTempDir(dir);
  });

  it('internal: ovn0 an internal port with iface-id, ip, MAC and MTU in OVS; addresses and routes by netlink', async () => {
    // vswitchd makes the internal port's netdev: the recorder's host has it.
    const nl = new RecordingNetlink({ hostLinks: ['ovn0'] });
    await ensureNodeNic({ vs, netlink: nl, profile: 'system' }, plan, { kind: 'internal' });
    expect(await vsctl('list-ports', 'br-int')).toBe('ovn0');
    expect(await get('Interface', 'ovn0', 'type')).toBe('internal');
    expect(await get('Interface', 'ovn0', 'external_ids:iface-id')).toBe('node-node1');
    expect(await get('Interface', 'ovn0', 'external_ids:ip')).toBe('100.64.0.2,fd00:100:64::2');
    expect(await get('Interface', 'ovn0', 'mac')).toBe('0a:58:64:40:00:02');
    expect(await get('Interface', 'ovn0', 'mtu_request')).toBe('1400');
    expect(nl.requests).toEqual([
      { op: 'configureHostLink', config: { name: 'ovn0', addresses: plan.addresses, routes: plan.routes, up: true } },
    ]);
  });

  it('internal, again: the same port converges, ovn-controller’s ovn-installed mark kept', async () => {
    const uuid = findPort(vs, 'node-node1')?.port._uuid;
    await vsctl('set', 'Interface', 'ovn0', 'external_ids:ovn-installed="true"');
    await ensureNodeNic(
      { vs, netlink: new RecordingNetlink({ hostLinks: ['ovn0'] }), profile: 'system' },
      { ...plan, mac: '0a:58:64:40:00:09', mtu: 1300 },
      {
        kind: 'internal',
      },
    );
    expect(findPort(vs, 'node-node1')?.port._uuid).toBe(uuid);
    expect(await get('Interface', 'ovn0', 'mac')).toBe('0a:58:64:40:00:09');
    expect(await get('Interface', 'ovn0', 'mtu_request')).toBe('1300');
    expect(await get('Interface', 'ovn0', 'external_ids:ovn-installed')).toBe('true');
    expect(await removeNodeNic({ vs, netlink: new RecordingNetlink(), profile: 'system' }, { kind: 'internal' })).toBe(
      true,
    );
    expect(await vsctl('list-ports', 'br-int')).toBe('');
  });

  it('internal without configureHostLink: typed netlink-unsupported', async () => {
    const minimal: Netlink = {
      addPodLink: async () => {},
      deleteLink: async () => false,
      listLinks: async () => [],
      inspectPodLink: async () => undefined,
    };
    await expect(
      ensureNodeNic({ vs, netlink: minimal, profile: 'system' }, plan, { kind: 'internal' }),
    ).rejects.toMatchObject({
      code: 'netlink-unsupported',
    });
    await removeNodeNic({ vs, netlink: minimal, profile: 'system' }, { kind: 'internal' });
  });

  it('veth (lab): ovn0 inside the node namespace, tx checksum off on netdev, its peer a br-int port with the node iface-id', async () => {
    const nl = new RecordingNetlink();
    const form = { kind: 'veth', netns: '/run/netns/lab-node1', hostIfName: 'kv1-node1' } as const;
    await ensureNodeNic({ vs, netlink: nl, profile: 'netdev' }, plan, form);
    expect(nl.requests).toEqual([
      { op: 'deleteLink', name: 'kv1-node1' },
      {
        op: 'addPodLink',
        link: {
          hostIfName: 'kv1-node1',
          netns: '/run/netns/lab-node1',
          ifName: 'ovn0',
          mac: '0a:58:64:40:00:02',
          mtu: 1400,
          addresses: ['100.64.0.2/16', 'fd00:100:64::2/112'],
          routes: plan.routes,
          // The node's TCP to its pods crosses the userspace datapath (see vswitchd.test.ts).
          txChecksumOff: true,
        },
      },
    ]);
    expect(await vsctl('list-ports', 'br-int')).toBe('kv1-node1');
    expect(await get('Interface', 'kv1-node1', 'type')).toBe('');
    expect(await get('Interface', 'kv1-node1', 'external_ids:iface-id')).toBe('node-node1');
    // The MAC is the namespace end's (the veth), not OVS's to set.
    expect(await get('Interface', 'kv1-node1', 'mac')).toBe('[]');
    expect(await nl.inspectPodLink('/run/netns/lab-node1', 'ovn0')).toMatchObject({ mac: '0a:58:64:40:00:02' });
    expect(await removeNodeNic({ vs, netlink: nl, profile: 'system' }, form)).toBe(true);
    expect(nl.requests.at(-1)).toEqual({ op: 'deleteLink', name: 'kv1-node1' });
    expect(await vsctl('list-ports', 'br-int')).toBe('');
    expect(await removeNodeNic({ vs, netlink: nl, profile: 'system' }, form)).toBe(false);
    // On the kernel datapath the offload stays on.
    const kernel = new RecordingNetlink();
    await ensureNodeNic({ vs, netlink: kernel, profile: 'system' }, plan, form);
    expect(kernel.requests[1]).toMatchObject({ op: 'addPodLink', link: { ifName: 'ovn0' } });
    expect(kernel.requests[1]).not.toHaveProperty('link.txChecksumOff');
    await removeNodeNic({ vs, netlink: kernel, profile: 'system' }, form);
  });

  it('veth whose port cannot be written (no such bridge): the pair is deleted again', async () => {
    const nl = new RecordingNetlink();
    const form = { kind: 'veth', netns: '/run/netns/lab-node1', hostIfName: 'kv1-node1' } as const;
    await expect(
      ensureNodeNic({ vs, netlink: nl, profile: 'system', bridge: 'br-missing' }, plan, form),
    ).rejects.toMatchObject({ code: 'no-bridge' });
    expect(nl.requests.map((r) => r.op)).toEqual(['deleteLink', 'addPodLink', 'deleteLink']);
    expect(nl.links()).toEqual([]);
  });

  it('veth without a profile: the datapath is br-int’s datapath_type in the database', async () => {
    const form = { kind: 'veth', netns: '/run/netns/lab-node1', hostIfName: 'kv1-node1' } as const;
    const linkOf = async () => {
      const nl = new RecordingNetlink();
      await ensureNodeNic({ vs, netlink: nl }, plan, form);
      await removeNodeNic({ vs, netlink: nl }, form);
      return nl.requests[1];
    };
    expect(await get('Bridge', 'br-int', 'datapath_type')).toBe('system');
    expect(await linkOf()).not.toHaveProperty('link.txChecksumOff');
    await configureNodeOvs(vs, { systemId: 'node1', ovnRemote: 'unix:/x', encapIp: '127.0.0.1', profile: 'netdev' });
    expect(await linkOf()).toHaveProperty('link.txChecksumOff', true);
  });
});

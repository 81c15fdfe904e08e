/**
 * A pod's port and link per datapath profile, at the level a kernel, DPDK
 * or offload node can be checked here: the OVS rows on a real ovsdb-server
 * (read back with ovs-vsctl) and the netlink requests through a recorder,
 * with the VF found in a sysfs tree built in a temp dir.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import type { PodLink } from '../netlink/types.ts';
import { type PortSpec, Vswitch } from '../ovs/index.ts';
import { configureNodeOvs } from './node-ovs.ts';
import { type PodPort, type PodPortRequest, decidePodPort, plumbPodPort, unplumbPodPort } from './pod-port.ts';
import type { DatapathProfile } from './profile.ts';
import { addFakeNic } from './testing/fake-sysfs.ts';
import { RecordingNetlink } from '../netlink/recording.ts';

const link: PodLink = {
  hostIfName: '3f2a9c0d81e4_h',
  netns: '/run/netns/cni-1234',
  ifName: 'eth0',
  mac: '0a:58:0a:10:00:05',
  mtu: 1400,
  addresses: ['10.16.0.5/16'],
  routes: [{ dst: 'default', gw: '10.16.0.1' }],
};
const port: PortSpec = {
  name: '3f2a9c0d81e4_h',
  ifaceId: 'web-0.default',
  externalIds: { vendor: 'kube-ovn', pod_name: 'web-0', pod_namespace: 'default', ip: '10.16.0.5' },
};
const SOCKET = '/var/run/openvswitch/vhost_sockets/uid-1/vhostuser-sockets/sock0';
const VF = '0000:03:00.3';

describe('decidePodPort: what each profile gives a pod', () => {
  let sysfs: string;
  beforeAll(async () => {
    sysfs = await mkdtemp(join(tmpdir(), 'kovn-sysfs-'));
    await addFakeNic(sysfs, {
      pf: '0000:03:00.0',
      uplink: { name: 'enp3s0f0np0', switchId: 'aabbcc', portName: 'p0' },
      vfs: [
        { pci: '0000:03:00.2', netdev: 'enp3s0f0v0', rep: { name: 'eth10', portName: 'pf0vf0' } },
        { pci: VF, netdev: 'enp3s0f0v1', rep: { name: 'eth11', portName: 'pf0vf1' } },
      ],
    });
  });
  afterAll(async () => {
    await rm(sysfs, { recursive: true, force: true });
  });
  const decide = (req: Partial<PodPortRequest> & { profile: DatapathProfile }) =>
    decidePodPort({ link, port, ...req }, { sysfsRoot: sysfs });

  it('a plain pod gets the planned veth on every profile, its tx checksum offload off on a userspace datapath', async () => {
    for (const profile of ['system', 'hw-offload'] as const)
      expect(await decide({ profile })).toEqual({ ok: true, value: { kind: 'veth', port, link } });
    for (const profile of ['netdev', 'dpdk'] as const)
      expect(await decide({ profile })).toEqual({
        ok: true,
        value: { kind: 'veth', port, link: { ...link, txChecksumOff: true } },
      });
  });

  it('dpdk: a pod with a vhost-user socket gets a dpdkvhostuserclient port and no link', async () => {
    expect(await decide({ profile: 'dpdk', vhostUserSocket: SOCKET })).toEqual({
      ok: true,
      value: {
        kind: 'vhost-user',
        socket: SOCKET,
        port: { ...port, type: 'dpdkvhostuserclient', options: { 'vhost-server-path': SOCKET } },
      },
    });
  });

  it('hw-offload: a pod with a VF gets its representor as the port and the VF moved into its namespace', async () => {
    const { hostIfName: _, ...podEnd } = link;
    expect(await decide({ profile: 'hw-offload', deviceId: VF })).toEqual({
      ok: true,
      value: {
        kind: 'vf',
        port,
        vf: {
          pciAddress: VF,
          netdev: 'enp3s0f0v1',
          pfPciAddress: '0000:03:00.0',
          vfIndex: 1,
          uplink: 'enp3s0f0np0',
          representor: 'eth11',
        },
        link: { ...podEnd, name: 'enp3s0f0v1' },
      },
    });
  });

  it('refuses, typed, a port the profile cannot give (never a veth in its place)', async () => {
    for (const profile of ['system', 'netdev', 'hw-offload'] as const)
      expect(await decide({ profile, vhostUserSocket: SOCKET })).toMatchObject({
        ok: false,
        issue: { code: 'profile-mismatch', path: 'vhost_user_socket_name', message: /needs the dpdk profile/ },
      });
    for (const profile of ['system', 'netdev', 'dpdk'] as const)
      expect(await decide({ profile, deviceId: VF })).toMatchObject({
        ok: false,
        issue: { code: 'profile-mismatch', path: 'deviceID', message: /web-0\.default.*hw-offload/ },
      });
    await expect(decide({ profile: 'hw-offload', deviceId: '0000:03:00.7' })).rejects.toMatchObject({
      code: 'sriov',
    });
  });
});

describe.skipIf(!requireOvn('node/setup'))('plumbPodPort / unplumbPodPort: rows and requests', () => {
  let dir: string | undefined;
  let server: OvsdbServer;
  let vs: Vswitch;
  let sysfs: string;
  const vsctl = async (...args: string[]) =>
    (await runTool('ovs-vsctl', [`--db=${server.remote}`, '--no-wait', '--timeout=10', ...args])).stdout.trim();
  const get = async (table: string, row: string, column: string) =>
    (await vsctl('--if-exists', 'get', table, row, column)).replace(/^"(.*)"$/, '$1');
  const decided = async (req: Partial<PodPortRequest> & { profile: DatapathProfile }): Promise<PodPort> => {
    const d = await decidePodPort({ link, port, ...req }, { sysfsRoot: sysfs });
    if (!d.ok) throw new Error(d.issue.message);
    return d.value;
  };

  beforeAll(async () => {
    dir = await makeTempDir('nodesetup-pod');
    server = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
    await vsctl('init');
    vs = await Vswitch.open({ remote: server.remote });
    sysfs = join(dir, 'sys');
    await addFakeNic(sysfs, {
      pf: '0000:03:00.0',
      uplink: { name: 'enp3s0f0np0', switchId: 'aabbcc', portName: 'p0' },
      vfs: [{ pci: '0000:03:00.2', netdev: 'enp3s0f0v0', rep: { name: 'eth10', portName: 'pf0vf0' } }],
    });
  });
  afterAll(async () => {
    vs?.close();
    await server?.stop();
    if (dir !== undefined) await removeTempDir(dir);
  });

  it('kernel (system): the veth pair, then its host end on br-int with the iface-id; undone in reverse', async () => {
    await configureNodeOvs(vs, { systemId: 'n1', ovnRemote: 'unix:/x', encapIp: '127.0.0.1', profile: 'system' });
    const nl = new RecordingNetlink();
    const p = await decided({ profile: 'system' });
    await plumbPodPort({ vs, netlink: nl }, p);
    expect(nl.requests).toEqual([{ op: 'addPodLink', link }]);
    expect(await get('Bridge', 'br-int', 'datapath_type')).toBe('system');
    expect(await vsctl('list-ports', 'br-int')).toBe('3f2a9c0d81e4_h');
    expect(await get('Interface', '3f2a9c0d81e4_h', 'type')).toBe('');
    expect(await get('Interface', '3f2a9c0d81e4_h', 'external_ids:iface-id')).toBe('web-0.default');
    await unplumbPodPort({ vs, netlink: nl }, p);
    await unplumbPodPort({ vs, netlink: nl }, p);
    expect(nl.requests.slice(1)).toEqual([
      { op: 'deleteLink', name: '3f2a9c0d81e4_h' },
      { op: 'deleteLink', name: '3f2a9c0d81e4_h' },
    ]);
    expect(await vsctl('list-ports', 'br-int')).toBe('');
  });

  it('a port that cannot be written leaves no link behind: the veth deleted, the representor renamed back and up', async () => {
    const nl = new RecordingNetlink();
    const veth = await decided({ profile: 'system', port: { ...port, bridge: 'br-missing' } });
    await expect(plumbPodPort({ vs, netlink: nl }, veth)).rejects.toBeDefined();
    expect(nl.requests).toEqual([
      { op: 'addPodLink', link },
      { op: 'deleteLink', name: '3f2a9c0d81e4_h' },
    ]);
    const rec = new RecordingNetlink({ hostLinks: ['eth10', 'enp3s0f0v0'] });
    const vf = await decided({
      profile: 'hw-offload',
      deviceId: '0000:03:00.2',
      port: { ...port, bridge: 'br-missing' },
    });
    await expect(plumbPodPort({ vs, netlink: rec }, vf)).rejects.toBeDefined();
    expect(rec.requests).toEqual([
      { op: 'configureHostLink', config: { name: 'eth10', rename: '3f2a9c0d81e4_h', up: false } },
      // Kube-OVN brings it back up so that the VF is not left blackholed.
      { op: 'configureHostLink', config: { name: '3f2a9c0d81e4_h', rename: 'eth10', up: true } },
    ]);
    expect([...rec.hostLinks()].sort()).toEqual(['enp3s0f0v0', 'eth10']);
    expect(await vsctl('list-ports', 'br-int')).toBe('');
  });

  it('dpdk: dpdk-init on a netdev br-int; the vhost-user client port, no netlink request', async () => {
    await configureNodeOvs(vs, { systemId: 'n1', ovnRemote: 'unix:/x', encapIp: '127.0.0.1', profile: 'dpdk' });
    const nl = new RecordingNetlink();
    const p = await decided({ profile: 'dpdk', vhostUserSocket: SOCKET });
    await plumbPodPort({ vs, netlink: nl }, p);
    expect(await get('Open_vSwitch', '.', 'other_config:dpdk-init')).toBe('true');
    expect(await get('Bridge', 'br-int', 'datapath_type')).toBe('netdev');
    expect(await get('Interface', '3f2a9c0d81e4_h', 'type')).toBe('dpdkvhostuserclient');
    expect(await get('Interface', '3f2a9c0d81e4_h', 'options:vhost-server-path')).toBe(SOCKET);
    expect(await get('Interface', '3f2a9c0d81e4_h', 'external_ids:iface-id')).toBe('web-0.default');
    await unplumbPodPort({ vs, netlink: nl }, p);
    expect(nl.requests).toEqual([]);
    expect(await vsctl('list-ports', 'br-int')).toBe('');
  });

  it('hw-offload: representor renamed down, plugged, then up; the VF into the pod; DEL gives the VF back', async () => {
    await configureNodeOvs(vs, {
      systemId: 'n1',
      ovnRemote: 'unix:/x',
      encapIp: '127.0.0.1',
      profile: 'hw-offload',
    });
    const nl = new RecordingNetlink({ hostLinks: ['eth10', 'enp3s0f0v0'] });
    const p = await decided({ profile: 'hw-offload', deviceId: '0000:03:00.2' });
    await plumbPodPort({ vs, netlink: nl }, p);
    const { hostIfName: _, ...podEnd } = link;
    expect(nl.requests).toEqual([
      { op: 'configureHostLink', config: { name: 'eth10', rename: '3f2a9c0d81e4_h', up: false } },
      { op: 'configureHostLink', config: { name: '3f2a9c0d81e4_h', mtu: 1400, up: true } },
      { op: 'movePodLink', link: { ...podEnd, name: 'enp3s0f0v0' } },
    ]);
    expect(await get('Open_vSwitch', '.', 'other_config:hw-offload')).toBe('true');
    expect(await get('Bridge', 'br-int', 'datapath_type')).toBe('system');
    expect(await vsctl('list-ports', 'br-int')).toBe('3f2a9c0d81e4_h');
    expect(await get('Interface', '3f2a9c0d81e4_h', 'type')).toBe('');
    expect(await get('Interface', '3f2a9c0d81e4_h', 'external_ids:iface-id')).toBe('web-0.default');
    expect([...nl.hostLinks()].sort()).toEqual(['3f2a9c0d81e4_h']);
    await unplumbPodPort({ vs, netlink: nl }, p);
    expect(nl.requests.slice(3)).toEqual([
      { op: 'listLinks' },
      { op: 'configureHostLink', config: { name: '3f2a9c0d81e4_h', up: false } },
      { op: 'releasePodLink', netns: link.netns, ifName: 'eth0', name: 'enp3s0f0v0' },
    ]);
    expect(await vsctl('list-ports', 'br-int')).toBe('');
    expect([...nl.hostLinks()].sort()).toEqual(['3f2a9c0d81e4_h', 'enp3s0f0v0']);
  });
});

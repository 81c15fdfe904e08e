/**
 * The node's Open_vSwitch settings per datapath profile, written through our
 * OVSDB client to a real ovsdb-server on the vswitch schema and read back
 * with ovs-vsctl (OVS's own client): the rows a kernel, netdev, DPDK or
 * offload node gets.
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
import { Vswitch } from '../ovs/index.ts';
import { configureNodeOvs, type NodeOvsConfig, readProfile } from './node-ovs.ts';
import { DATAPATH_PROFILES, type DatapathProfile } from './profile.ts';

describe.skipIf(!requireOvn('node/setup'))("node/setup: the node's Open_vSwitch settings on a real conf.db", () => {
  let dir: string | undefined;
  let server: OvsdbServer;
  let vs: Vswitch;
  const vsctl = async (...args: string[]) =>
    (await runTool('ovs-vsctl', [`--db=${server.remote}`, '--no-wait', '--timeout=10', ...args])).stdout.trim();
  const get = async (table: string, row: string, column: string) =>
    (await vsctl('--if-exists', 'get', table, row, column)).replace(/^"(.*)"$/, '$1');

  const cfg = (profile: DatapathProfile): NodeOvsConfig => ({
    systemId: 'node1',
    ovnRemote: 'tcp:127.0.0.1:6642',
    encapIp: '172.18.0.2',
    profile,
  });

  beforeAll(async () => {
    dir = await makeTempDir('nodesetup');
    server = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
    await vsctl('init');
    vs = await Vswitch.open({ remote: server.remote });
  });
  afterAll(async () => {
    vs?.close();
    await server?.stop();
    if (dir !== undefined) await removeTempDir(dir);
  });

  it('writes the keys ovn-controller reads, and br-int in fail-mode secure (netdev)', async () => {
    await vsctl('set', 'Open_vSwitch', '.', 'external_ids:ovn-bridge-mappings=physnet:br-ex');
    await configureNodeOvs(vs, cfg('netdev'));
    expect(await get('Open_vSwitch', '.', 'external_ids:system-id')).toBe('node1');
    expect(await get('Open_vSwitch', '.', 'external_ids:hostname')).toBe('node1');
    expect(await get('Open_vSwitch', '.', 'external_ids:ovn-remote')).toBe('tcp:127.0.0.1:6642');
    expect(await get('Open_vSwitch', '.', 'external_ids:ovn-encap-type')).toBe('geneve');
    expect(await get('Open_vSwitch', '.', 'external_ids:ovn-encap-ip')).toBe('172.18.0.2');
    expect(await get('Open_vSwitch', '.', 'external_ids:ovn-bridge-datapath-type')).toBe('netdev');
    // A key the node does not own is kept.
    expect(await get('Open_vSwitch', '.', 'external_ids:ovn-bridge-mappings')).toBe('physnet:br-ex');
    expect(await vsctl('list-br')).toBe('br-int');
    expect(await get('Bridge', 'br-int', 'datapath_type')).toBe('netdev');
    expect(await get('Bridge', 'br-int', 'fail_mode')).toBe('secure');
    expect(await get('Bridge', 'br-int', 'other_config:disable-in-band')).toBe('true');
    expect(await get('Interface', 'br-int', 'type')).toBe('internal');
    expect(await get('Open_vSwitch', '.', 'other_config:dpdk-init')).toBe('false');
    expect(await get('Open_vSwitch', '.', 'other_config:hw-offload')).toBe('false');
  });

  const expected: Record<DatapathProfile, { dp: string; dpdk: string; offload: string }> = {
    system: { dp: 'system', dpdk: 'false', offload: 'false' },
    netdev: { dp: 'netdev', dpdk: 'false', offload: 'false' },
    dpdk: { dp: 'netdev', dpdk: 'true', offload: 'false' },
    'hw-offload': { dp: 'system', dpdk: 'false', offload: 'true' },
  };
  for (const profile of DATAPATH_PROFILES) {
    it(`profile ${profile}: datapath_type ${expected[profile].dp}, dpdk-init ${expected[profile].dpdk}, hw-offload ${expected[profile].offload}`, async () => {
      // Applied over whatever profile the previous case left: the node converges, one bridge.
      await configureNodeOvs(vs, cfg(profile));
      expect(await get('Bridge', 'br-int', 'datapath_type')).toBe(expected[profile].dp);
      expect(await get('Open_vSwitch', '.', 'external_ids:ovn-bridge-datapath-type')).toBe(expected[profile].dp);
      expect(await get('Open_vSwitch', '.', 'other_config:dpdk-init')).toBe(expected[profile].dpdk);
      expect(await get('Open_vSwitch', '.', 'other_config:hw-offload')).toBe(expected[profile].offload);
      expect(await vsctl('list-br')).toBe('br-int');
      expect(await vsctl('list-ports', 'br-int')).toBe('');
      // Read back from the database by our client: the profile a daemon not told its own finds.
      await expect.poll(() => readProfile(vs)).toBe(profile);
    });
  }

  it('readProfile: none before br-int exists; an operator’s ovs-vsctl counts as much as ours', async () => {
    expect(readProfile(vs, 'br-missing')).toBeUndefined();
    await configureNodeOvs(vs, cfg('netdev'));
    await vsctl('set', 'Open_vSwitch', '.', 'other_config:dpdk-init=true');
    await expect.poll(() => readProfile(vs)).toBe('dpdk');
    await vsctl('set', 'Bridge', 'br-int', 'datapath_type=system');
    await vsctl('set', 'Open_vSwitch', '.', 'other_config:hw-offload=true');
    await expect.poll(() => readProfile(vs)).toBe('hw-offload');
  });

  it('takes the encap type, hostname, bridge name and further keys from the config', async () => {
    await configureNodeOvs(vs, {
      ...cfg('dpdk'),
      hostname: 'node1.example',
      encapType: 'vxlan',
      bridge: 'br-kovn',
      externalIds: { 'ovn-remote-probe-interval': '10000' },
      otherConfig: { 'dpdk-socket-mem': '1024', 'dpdk-hugepage-dir': '/dev/hugepages' },
    });
    expect(await get('Open_vSwitch', '.', 'external_ids:hostname')).toBe('node1.example');
    expect(await get('Open_vSwitch', '.', 'external_ids:ovn-encap-type')).toBe('vxlan');
    expect(await get('Open_vSwitch', '.', 'external_ids:ovn-bridge')).toBe('br-kovn');
    expect(await get('Open_vSwitch', '.', 'external_ids:ovn-remote-probe-interval')).toBe('10000');
    expect(await get('Open_vSwitch', '.', 'other_config:dpdk-socket-mem')).toBe('1024');
    expect(await get('Open_vSwitch', '.', 'other_config:dpdk-init')).toBe('true');
    expect(await get('Bridge', 'br-kovn', 'datapath_type')).toBe('netdev');
    expect(await get('Bridge', 'br-kovn', 'fail_mode')).toBe('secure');
  });
});

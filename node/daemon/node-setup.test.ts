/**
 * The daemon's node set-up in process, against a bare Open_vSwitch database
 * (ovsdb-server, no vswitchd: rows read back with ovs-vsctl), the in-memory
 * cluster and node/netlink's RecordingNetlink standing for the kernel (ovn0
 * exists as vswitchd would make it): the settings, ovn0's port and its
 * address and routes once the Node is annotated, STATUS 50 until then, the
 * routes following the Subnets, and the bounded wait's error.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import type { DaemonRequest } from '../cni/protocol.ts';
import { RecordingNetlink } from '../netlink/recording.ts';
import type { HostLinkConfig } from '../netlink/types.ts';
import { type NodeDaemon, startNodeDaemon } from './daemon.ts';

const status: DaemonRequest = {
  command: 'STATUS',
  cniVersion: '1.1.0',
  network: 'kovn',
  containerId: '',
  netns: '',
  ifName: '',
  podName: '',
  podNamespace: '',
  provider: 'ovn',
};

const subnet = (name: string, cidrBlock: string): KubeObject => ({
  apiVersion: 'kubeovn.io/v1',
  kind: 'Subnet',
  metadata: { name },
  spec: { cidrBlock, protocol: 'IPv4' },
});

const joinAnnotations = (node: string) =>
  encodeNodeNetwork({
    ips: ['100.64.0.2'],
    mac: '0a:58:64:40:00:02',
    cidrs: ['100.64.0.0/16'],
    gateways: ['100.64.0.1'],
    logicalSwitch: 'join',
    portName: `node-${node}`,
  });

const lastHostLink = (nl: RecordingNetlink): HostLinkConfig | undefined =>
  nl.requests.flatMap((r) => (r.op === 'configureHostLink' ? [r.config] : [])).at(-1);

describe.skipIf(!requireOvn('node set-up'))('the daemon sets its node up', () => {
  let dir: string;
  let server: OvsdbServer;
  const vsctl = async (...args: string[]) =>
    (await runTool('ovs-vsctl', [`--db=${server.remote}`, '--no-wait', '--timeout=10', ...args])).stdout.trim();
  /** Values without ovs-vsctl's quotes (which it adds only to some). */
  const get = async (...args: string[]) => (await vsctl('get', ...args)).replace(/"/g, '');

  beforeAll(async () => {
    dir = await makeTempDir('nodesetupd');
    server = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
    await vsctl('init');
  });
  afterAll(async () => {
    await server?.stop();
    if (dir !== undefined) await removeTempDir(dir);
  });

  async function start(node: string, cluster: MemoryCluster, netlink: RecordingNetlink, nodeTimeoutMs = 30_000) {
    return startNodeDaemon({
      node,
      cluster,
      netlink,
      ovsRemote: server.remote,
      socket: join(dir, `${node}.sock`),
      clock: realClock,
      wait: 'none',
      profile: 'netdev',
      setup: { ovnRemote: 'tcp:127.0.0.1:6642', encapIp: '172.18.0.2', nodeTimeoutMs },
    });
  }

  it('writes the settings, answers STATUS 50 until the Node is annotated, then makes ovn0 with its routes; the routes follow the Subnets', async () => {
    const cluster = new MemoryCluster();
    await cluster.create(subnet('ovn-default', '10.16.0.0/16'));
    await cluster.create(subnet('join', '100.64.0.0/16'));
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    const netlink = new RecordingNetlink({ hostLinks: ['ovn0'] });
    const d: NodeDaemon = await start('n1', cluster, netlink);
    try {
      await vi.waitFor(async () => expect(await get('Open_vSwitch', '.', 'external_ids:system-id')).toBe('n1'));
      expect(await get('Open_vSwitch', '.', 'external_ids:ovn-remote')).toBe('tcp:127.0.0.1:6642');
      expect(await get('Open_vSwitch', '.', 'external_ids:ovn-encap-type')).toBe('geneve');
      expect(await get('Open_vSwitch', '.', 'external_ids:ovn-encap-ip')).toBe('172.18.0.2');
      expect(await get('Bridge', 'br-int', 'datapath_type', 'fail_mode')).toBe('netdev\nsecure');
      expect(await d.agent.handle(status)).toMatchObject({
        ok: false,
        error: { code: 50, msg: "node n1: node set-up: waiting for Node n1's join-port annotations" },
      });
      expect(await vsctl('list-ports', 'br-int')).toBe('');

      await cluster.patch({ kind: 'Node', name: 'n1' }, { metadata: { annotations: joinAnnotations('n1') } });
      await d.setup;
      expect(await d.agent.handle(status)).toEqual({ ok: true });
      expect(await get('Interface', 'ovn0', 'type', 'mac', 'mtu_request', 'external_ids:iface-id')).toBe(
        'internal\n0a:58:64:40:00:02\n1400\nnode-n1',
      );
      expect(lastHostLink(netlink)).toEqual({
        name: 'ovn0',
        addresses: ['100.64.0.2/16'],
        routes: [
          { dst: '10.16.0.0/16', gw: '100.64.0.1' },
          { dst: '10.96.0.0/12', gw: '100.64.0.1' },
        ],
        up: true,
      });

      await cluster.create(subnet('private', '10.20.0.0/16'));
      await vi.waitFor(() =>
        expect(lastHostLink(netlink)?.routes).toContainEqual({ dst: '10.20.0.0/16', gw: '100.64.0.1' }),
      );
      await cluster.delete({ kind: 'Subnet', name: 'private' });
      await vi.waitFor(() =>
        expect(lastHostLink(netlink)?.routes?.map((r) => r.dst)).toEqual(['10.16.0.0/16', '10.96.0.0/12']),
      );
      expect(await vsctl('list-ports', 'br-int')).toBe('ovn0');
    } finally {
      await d.close();
    }
  });

  it('a Node never annotated: the set-up fails after its bound naming the node and the annotation; STATUS says so', async () => {
    const cluster = new MemoryCluster();
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } });
    const netlink = new RecordingNetlink({ hostLinks: ['ovn0'] });
    const d = await start('n2', cluster, netlink, 300);
    try {
      await expect(d.setup).rejects.toThrow(
        /^node n2: no ovn0 after 300 ms waiting for the controller's annotations \(metadata\.annotations\[ovn\.kubernetes\.io\/\w+\]: /,
      );
      expect(await d.agent.handle(status)).toMatchObject({
        ok: false,
        error: { code: 50, msg: expect.stringMatching(/^node n2: node set-up failed: node n2: no ovn0 after 300 ms/) },
      });
      expect(netlink.requests.filter((r) => r.op === 'configureHostLink')).toEqual([]);
    } finally {
      await d.close();
    }
  });
});

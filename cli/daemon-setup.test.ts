/**
 * `kovn daemon` sets its node up, as a process: a real ovsdb-server and
 * ovs-vswitchd on the netdev datapath, vswitchd and the daemon both inside a
 * network namespace of the test (the node's host network; a netdev vswitchd
 * in the root namespace would share its ovs-netdev tap with any other, and
 * the machine's own routes are never touched). From --objects (the Node as
 * the controller annotated it, the Subnets) and the set-up flags: the root
 * row's settings, br-int on the netdev datapath, and ovn0 an OVS internal
 * port with its join address, MAC and routes to the pod and service CIDRs in
 * the namespace; STATUS answers once that is done. Without the Node's
 * annotations, STATUS answers 50 and the daemon ends after --node-timeout
 * naming the annotation.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import {
  VSWITCH_SCHEMA,
  makeTempDir,
  removeTempDir,
  requireOvn,
  runTool,
  startOvsdbServer,
  type OvsdbServer,
} from '../backends/ovn/control-plane/index.ts';
import { DaemonProcess } from '../backends/ovn/control-plane/daemon.ts';
import { encodeNodeNetwork } from '../kube/annotations.ts';
import type { KubeObject } from '../kube/cluster/types.ts';
import type { DaemonRequest } from '../node/cni/protocol.ts';
import { call } from '../node/daemon/testing/client.ts';
import { NetnsFixture, ip, requireNetns } from '../node/netlink/testing.ts';
import { startKovn } from './testing/index.ts';

const enabled = requireOvn('kovn daemon set-up') && requireNetns('kovn daemon set-up');

const subnet = (name: string, cidrBlock: string): KubeObject => ({
  apiVersion: 'kubeovn.io/v1',
  kind: 'Subnet',
  metadata: { name },
  spec: { cidrBlock, protocol: 'IPv4' },
});

const node = (name: string, annotated: boolean): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name,
    ...(annotated
      ? {
          annotations: encodeNodeNetwork({
            ips: ['100.64.0.2'],
            mac: '0a:58:64:40:00:02',
            cidrs: ['100.64.0.0/16'],
            gateways: ['100.64.0.1'],
            logicalSwitch: 'join',
            portName: `node-${name}`,
          }),
        }
      : {}),
  },
});

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

describe.skipIf(!enabled)('kovn daemon: the node set-up', () => {
  let dir: string;
  let conf: OvsdbServer;
  let vswitchd: DaemonProcess;
  let fx: NetnsFixture;
  let ns: { name: string; path: string };
  const get = async (...args: string[]) =>
    (await runTool('ovs-vsctl', [`--db=${conf.remote}`, '--no-wait', '--timeout=10', 'get', ...args])).stdout
      .trim()
      .replace(/"/g, '');

  beforeAll(async () => {
    dir = await makeTempDir('clidsetup');
    fx = await NetnsFixture.create();
    ns = await fx.netns();
    conf = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
    await runTool('ovs-vsctl', [`--db=${conf.remote}`, '--no-wait', '--timeout=10', 'init']);
    // No kernel datapath here: only the userspace one; its devices live and die in the namespace.
    vswitchd = new DaemonProcess({
      dir,
      name: 'vswitchd',
      binary: 'ovs-vswitchd',
      args: ['--disable-system', conf.remote],
      netns: ns.name,
    });
    await vswitchd.start();
  });
  afterAll(async () => {
    await vswitchd?.stop();
    await conf?.stop();
    await fx?.cleanup();
    if (dir !== undefined) await removeTempDir(dir);
  });

  async function daemon(name: string, annotated: boolean, more: readonly string[] = []) {
    const objects = join(dir, `${name}.yaml`);
    const docs = [node(name, annotated), subnet('ovn-default', '10.16.0.0/16'), subnet('join', '100.64.0.0/16')];
    await writeFile(objects, docs.map((d) => stringify(d)).join('---\n'));
    const sock = join(dir, `${name}.sock`);
    const args = ['daemon', '--node', name, '--socket', sock, '--ovs-db', conf.remote, '--objects', objects];
    const setup = ['--ovn-remote', 'tcp:127.0.0.1:6642', '--encap-ip', '172.18.0.2', '--profile', 'netdev'];
    return { sock, k: startKovn([...args, ...setup, '--wait', 'applied', ...more], { tmp: dir, netns: ns.name }) };
  }

  it('writes the settings and makes ovn0 with its address and routes in its namespace; STATUS answers then', async () => {
    const { sock, k } = await daemon('n1', true);
    try {
      await vi.waitFor(() => expect(k.stderr()).toMatch(/node n1: set up/), { timeout: 60_000, interval: 100 });
      expect(await call(sock, status)).toEqual({ ok: true });
      expect(await get('Open_vSwitch', '.', 'external_ids:system-id')).toBe('n1');
      expect(await get('Open_vSwitch', '.', 'external_ids:ovn-remote')).toBe('tcp:127.0.0.1:6642');
      expect(await get('Open_vSwitch', '.', 'external_ids:ovn-encap-type')).toBe('geneve');
      expect(await get('Open_vSwitch', '.', 'external_ids:ovn-encap-ip')).toBe('172.18.0.2');
      expect(await get('Bridge', 'br-int', 'datapath_type', 'fail_mode')).toBe('netdev\nsecure');
      expect(await get('Interface', 'ovn0', 'type', 'external_ids:iface-id', 'ofport')).toMatch(
        /^internal\nnode-n1\n[1-9]\d*$/,
      );
      const link = await ip('-n', ns.name, '-br', 'link', 'show', 'dev', 'ovn0');
      expect(link).toMatch(/^ovn0\s+UNKNOWN|^ovn0\s+UP/);
      expect(link).toContain('0a:58:64:40:00:02');
      expect(await ip('-n', ns.name, '-br', 'addr', 'show', 'dev', 'ovn0')).toContain('100.64.0.2/16');
      const routes = await ip('-n', ns.name, 'route', 'show', 'dev', 'ovn0');
      expect(routes).toMatch(/^10\.16\.0\.0\/16 via 100\.64\.0\.1 /m);
      expect(routes).toMatch(/^10\.96\.0\.0\/12 via 100\.64\.0\.1 /m);
    } finally {
      k.child.kill('SIGTERM');
      await k.exited;
    }
  });

  it('a Node without its annotations: STATUS answers 50, then the daemon ends after --node-timeout naming the annotation', async () => {
    const { sock, k } = await daemon('n2', false, ['--node-timeout', '3000']);
    try {
      await vi.waitFor(() => expect(k.stderr()).toMatch(/listening on/), { timeout: 30_000, interval: 100 });
      expect(await call(sock, status)).toMatchObject({
        ok: false,
        error: { code: 50, msg: expect.stringMatching(/^node n2: node set-up: /) },
      });
      expect((await k.exited).code).toBe(1);
    } finally {
      if (k.child.exitCode === null && k.child.signalCode === null) k.child.kill('SIGKILL');
    }
    await k.closed;
    expect(k.stderr()).toMatch(
      /node n2: no ovn0 after 3000 ms waiting for the controller's annotations \(metadata\.annotations\[ovn\.kubernetes\.io\/\w+\]/,
    );
  });
});

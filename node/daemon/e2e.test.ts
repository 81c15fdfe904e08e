/**
 * The daemon for real: pods are network namespaces, the veth pairs are made
 * by RtNetlink, the ports go into br-int of a real ovs-vswitchd on the
 * userspace (netdev) datapath, ovn-controller follows a real control plane
 * (NB + northd + SB) and marks the interfaces ovn-installed, and packets
 * cross OVS from one pod to the other. Requests go through the daemon's
 * socket as the plugin sends them.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  VSWITCH_SCHEMA,
  makeTempDir,
  removeTempDir,
  requireOvn,
  runTool,
  startControlPlane,
  startOvsdbServer,
  type ControlPlane,
  type OvsdbServer,
} from '../../backends/ovn/control-plane/index.ts';
import { DaemonProcess } from '../../backends/ovn/control-plane/daemon.ts';
import { encodePodNetwork } from '../../kube/annotations.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import type { DaemonRequest } from '../cni/protocol.ts';
import { RtNetlink } from '../netlink/index.ts';
import { NetnsFixture, ip, requireNetns } from '../netlink/testing.ts';
import { startNodeDaemon, type NodeDaemon } from './daemon.ts';
import { call } from './testing/client.ts';
import { network, pod } from './testing/world.ts';

const exec = promisify(execFile);

/**
 * The netdev datapath's own local port is a TAP device named `ovs-netdev` in the host namespace:
 * a second ovs-vswitchd on the machine fails to create its datapath while one holds it ("creating
 * tap device failed: Device or resource busy"), and its bridge never appears. Runs that start a
 * netdev vswitchd in the host namespace take this lock (a directory, made atomically; a lock
 * whose owner process is gone is taken over).
 */
const NETDEV_LOCK = '/run/kovn/netdev-datapath.lock';

async function lockNetdevDatapath(timeoutMs: number): Promise<() => Promise<void>> {
  await mkdir(dirname(NETDEV_LOCK), { recursive: true });
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      await mkdir(NETDEV_LOCK);
      await writeFile(join(NETDEV_LOCK, 'pid'), String(process.pid));
      return () => rm(NETDEV_LOCK, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const owner = Number(await readFile(join(NETDEV_LOCK, 'pid'), 'utf8').catch(() => 'NaN'));
    const alive =
      Number.isInteger(owner) &&
      owner > 0 &&
      (() => {
        try {
          process.kill(owner, 0);
          return true;
        } catch {
          return false;
        }
      })();
    // A lock without a pid file is being made (or its maker died before writing it): give it a moment.
    if (Number.isInteger(owner) && !alive) await rm(NETDEV_LOCK, { recursive: true, force: true });
    if (performance.now() > deadline) throw new Error(`${NETDEV_LOCK}: held by pid ${owner} for ${timeoutMs} ms`);
    await sleep(200);
  }
}
const enabled = requireOvn('node/daemon e2e') && requireNetns('node/daemon e2e');

/** A chassis: conf.db, a real ovs-vswitchd (netdev br-int), ovn-controller on the control plane's SB. */
interface Chassis {
  readonly conf: OvsdbServer;
  readonly vswitchd: DaemonProcess;
  readonly controller: DaemonProcess;
  vsctl(...args: string[]): Promise<string>;
}

/**
 * On the netdev datapath a bridge's local port is a TAP device of the bridge's name in the host namespace:
 * two chassis on one host (parallel test files, the lab) cannot both have a `br-int`. Each run names its own,
 * and tells ovn-controller (external_ids:ovn-bridge).
 */
const BRIDGE = `bi${process.pid.toString(36)}`;

async function startChassis(dir: string, cp: ControlPlane, systemId: string): Promise<Chassis> {
  const conf = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
  const vsctl = async (...args: string[]) =>
    (await runTool('ovs-vsctl', [`--db=${conf.remote}`, '--timeout=30', ...args], { dir })).stdout.trim();
  await vsctl('--no-wait', 'init');
  const vswitchd = new DaemonProcess({ dir, name: 'vswitchd', binary: 'ovs-vswitchd', args: [conf.remote] });
  await vswitchd.start();
  // What node set-up does on a real node (node/setup): the chassis identity and a userspace br-int.
  await vsctl(
    'set',
    'Open_vSwitch',
    '.',
    `external_ids:system-id=${systemId}`,
    `external_ids:ovn-remote=${cp.sb.remote}`,
    'external_ids:ovn-encap-type=geneve',
    'external_ids:ovn-encap-ip=127.0.0.1',
    `external_ids:ovn-bridge=${BRIDGE}`,
    '--',
    'add-br',
    BRIDGE,
    '--',
    'set',
    'Bridge',
    BRIDGE,
    'datapath_type=netdev',
    'fail_mode=secure',
    'other_config:disable-in-band=true',
  );
  const controller = new DaemonProcess({
    dir,
    name: 'controller',
    binary: 'ovn-controller',
    args: [conf.remote],
    unixctlOption: false,
  });
  // The bridge exists once vswitchd made its datapath and its OpenFlow socket (see NETDEV_LOCK).
  const mgmt = join(dir, `${BRIDGE}.mgmt`);
  for (let waited = 0; !existsSync(mgmt); waited += 100) {
    if (waited > 240_000) throw new Error(`${BRIDGE}: vswitchd never made it (another vswitchd holding ovs-netdev?)`);
    await sleep(100);
  }
  await controller.start();
  return { conf, vswitchd, controller, vsctl };
}

describe.skipIf(!enabled)('node daemon end to end: netns, RtNetlink, ovs-vswitchd netdev, ovn-controller', () => {
  let dir: string;
  let cp: ControlPlane;
  let ch: Chassis;
  let fx: NetnsFixture;
  let daemon: NodeDaemon | undefined;
  const cluster = new MemoryCluster();
  const netlink = new RtNetlink();
  const ids: string[] = [];
  const netns = new Map<string, string>();
  let sock: string;
  let unlock: (() => Promise<void>) | undefined;
  let datapathTapBefore: boolean | undefined;
  const nbctl = (...args: string[]) => runTool('ovn-nbctl', [`--db=${cp.nb.remote}`, ...args], { dir });

  /** What the chassis says when ADD did not get ovn-installed: the SB, the ports, ovn-controller's last words. */
  const diagnose = async () => {
    const sb = await runTool('ovn-sbctl', [`--db=${cp.sb.remote}`, 'show']).then((r) => r.stdout, String);
    const log = await readFile(ch.controller.logFile, 'utf8').then((t) => t.split('\n').slice(-15).join('\n'), String);
    return `SB:\n${sb}\nbr-int: ${await ch.vsctl('list-ports', BRIDGE)}\novn-controller:\n${log}`;
  };

  const start = async () => {
    daemon = await startNodeDaemon({
      node: 'node1',
      cluster,
      netlink,
      ovsRemote: ch.conf.remote,
      socket: sock,
      clock: realClock,
      annotationTimeoutMs: 3000,
      bridge: BRIDGE,
    });
    return daemon;
  };

  /** A pod: its namespace, its logical port in NB, its annotations in the cluster; its container id is a fixture link name. */
  async function addPod(name: string, n: number, extra: Record<string, string> = {}) {
    const ns = await fx.netns();
    netns.set(name, ns.path);
    ids.push(fx.linkName());
    const net = network(n);
    await nbctl(
      'lsp-add',
      'ovn-default',
      `${name}.default`,
      '--',
      'lsp-set-addresses',
      `${name}.default`,
      `${net.mac} ${net.ips[0]}`,
    );
    await cluster.create(pod(name, { ...encodePodNetwork(net), ...extra }));
    return { ns, containerId: ids[ids.length - 1] ?? '' };
  }

  const req = (command: DaemonRequest['command'], name: string, containerId: string): DaemonRequest => ({
    command,
    cniVersion: '1.0.0',
    network: 'kovn',
    containerId,
    netns: netns.get(name) ?? '',
    ifName: 'eth0',
    podName: name,
    podNamespace: 'default',
    provider: 'ovn',
  });

  beforeAll(async () => {
    unlock = await lockNetdevDatapath(240_000);
    datapathTapBefore = await ip('link', 'show', 'ovs-netdev').then(
      () => true,
      () => false,
    );
    dir = await makeTempDir('dme2e');
    sock = join(dir, 'daemon.sock');
    fx = await NetnsFixture.create();
    cp = await startControlPlane();
    ch = await startChassis(dir, cp, `dme2e-${process.pid}`);
    await nbctl('ls-add', 'ovn-default');
    await start();
  }, 300_000);

  afterAll(async () => {
    try {
      await daemon?.close();
      for (const id of ids) await ip('link', 'del', `${id}_h`).catch(() => undefined);
      await fx?.cleanup();
      await ch?.controller.stop();
      await ch?.vswitchd.stop();
      // A netdev bridge's tap is persistent: in the host namespace it outlives vswitchd (each run left one).
      await ip('link', 'del', BRIDGE).catch(() => undefined);
      // So is the datapath's own tap: removed when this run made it (under the lock, no other vswitchd holds it).
      if (datapathTapBefore === false) await ip('link', 'del', 'ovs-netdev').catch(() => undefined);
      await ch?.conf.stop();
      await cp?.stop();
      netlink.close();
      if (dir !== undefined) await removeTempDir(dir);
    } finally {
      await unlock?.();
    }
  });

  it('ADD wires two pods; ovn-installed is set by ovn-controller; ICMP and TCP cross OVS; CHECK passes', async () => {
    const a = await addPod('ping-a', 31);
    const b = await addPod('ping-b', 32);
    const ra = await call(sock, req('ADD', 'ping-a', a.containerId));
    if (!ra.ok) throw new Error(`ADD ping-a: ${ra.error.msg}\n${await diagnose()}`);
    expect(ra).toMatchObject({
      ok: true,
      result: {
        interfaces: [{ name: 'eth0', mac: '0a:58:0a:10:00:1f', sandbox: a.ns.path }],
        ips: [{ address: '10.16.0.31/16', gateway: '10.16.0.1' }],
      },
    });
    expect((await call(sock, req('ADD', 'ping-b', b.containerId))).ok).toBe(true);
    expect(await ch.vsctl('get', 'Interface', `${a.containerId}_h`, 'external_ids:ovn-installed')).toBe('"true"');
    const addr = JSON.parse(await ip('-j', '-n', a.ns.name, 'addr', 'show', 'dev', 'eth0')) as {
      addr_info: { local: string; prefixlen: number }[];
    }[];
    expect(addr[0]?.addr_info.map((i) => `${i.local}/${i.prefixlen}`)).toContain('10.16.0.31/16');
    expect(await ip('-n', a.ns.name, 'route', 'show', 'default')).toMatch(/default via 10\.16\.0\.1 dev eth0/);
    await exec('ip', ['netns', 'exec', a.ns.name, 'ping', '-c', '1', '-W', '5', '10.16.0.32']);
    if (process.env.TXOFF === '1')
      for (const n of [a.ns.name, b.ns.name])
        await exec('ip', ['netns', 'exec', n, 'ethtool', '-K', 'eth0', 'tx', 'off']);
    const server = `require('net').createServer((s) => s.end('kovn')).listen(8080, '10.16.0.32', () => console.log('up'))`;
    const listener = execFile('ip', ['netns', 'exec', b.ns.name, process.execPath, '-e', server]);
    try {
      await new Promise<void>((resolve, reject) => {
        listener.stdout?.once('data', () => resolve());
        listener.once('exit', (code) => reject(new Error(`listener exited ${code}`)));
      });
      const client = `const c = require('net').connect(8080, '10.16.0.32'); let d = ''; c.on('data', (x) => (d += x)); c.on('end', () => console.log(d)); setTimeout(() => process.exit(2), 10000).unref()`;
      const { stdout } = await exec('ip', ['netns', 'exec', a.ns.name, process.execPath, '-e', client]);
      expect(stdout.trim()).toBe('kovn');
    } finally {
      listener.kill();
    }
    expect(await call(sock, req('CHECK', 'ping-a', a.containerId))).toEqual({ ok: true });
  });

  /** ADD through the socket; on failure, the chassis' state in the message. */
  async function add(name: string, containerId: string) {
    const r = await call(sock, req('ADD', name, containerId));
    if (!r.ok) throw new Error(`ADD ${name}: ${r.error.msg}\n${await diagnose()}`);
    return r;
  }

  const hostLinkExists = (name: string) =>
    ip('link', 'show', 'dev', name).then(
      () => true,
      () => false,
    );
  const ports = async () => (await ch.vsctl('list-ports', BRIDGE)).split('\n').filter(Boolean);

  it('QoS on the real datapath: vswitchd turns the htb rows into tc on the host end; the policing rate is on the interface', async () => {
    const q = await addPod('qos', 33, { 'ovn.kubernetes.io/ingress_rate': '5', 'ovn.kubernetes.io/egress_rate': '3' });
    await add('qos', q.containerId);
    const host = `${q.containerId}_h`;
    expect((await exec('tc', ['qdisc', 'show', 'dev', host])).stdout).toMatch(/qdisc htb 1: root/);
    expect((await exec('tc', ['class', 'show', 'dev', host])).stdout).toMatch(/class htb 1:1 .*ceil 5Mbit/);
    expect(await ch.vsctl('get', 'Interface', host, 'ingress_policing_rate')).toBe('3000');
    expect((await call(sock, req('DEL', 'qos', q.containerId))).ok).toBe(true);
    expect(await ch.vsctl('--columns=_uuid', 'list', 'QoS')).toBe('');
  });

  it("a pod's routes annotation becomes routes in its namespace, and CHECK reads them back", async () => {
    const routes = JSON.stringify([{ dst: '192.168.0.0/16', gw: '10.16.0.254' }, { dst: '172.16.0.0/12' }]);
    const r = await addPod('routes', 40, { 'ovn.kubernetes.io/routes': routes });
    await add('routes', r.containerId);
    expect(await ip('-n', r.ns.name, 'route', 'show', '192.168.0.0/16')).toMatch(
      /192\.168\.0\.0\/16 via 10\.16\.0\.254 dev eth0/,
    );
    expect(await ip('-n', r.ns.name, 'route', 'show', '172.16.0.0/12')).toMatch(/172\.16\.0\.0\/12 dev eth0/);
    expect(await call(sock, req('CHECK', 'routes', r.containerId))).toEqual({ ok: true });
    expect(await call(sock, req('DEL', 'routes', r.containerId))).toEqual({ ok: true });
  });

  it('DEL removes the veth (both ends), the port and its rows; again, and with the namespace gone, it is success', async () => {
    const d = await addPod('del', 34);
    await add('del', d.containerId);
    expect(await hostLinkExists(`${d.containerId}_h`)).toBe(true);
    expect(await call(sock, req('DEL', 'del', d.containerId))).toEqual({ ok: true });
    expect(await hostLinkExists(`${d.containerId}_h`)).toBe(false);
    expect(await ports()).not.toContain(`${d.containerId}_h`);
    await expect(ip('-n', d.ns.name, 'link', 'show', 'dev', 'eth0')).rejects.toThrow(/does not exist/);
    expect(await call(sock, req('DEL', 'del', d.containerId))).toEqual({ ok: true });
    await add('del', d.containerId);
    await ip('netns', 'del', d.ns.name);
    expect(await call(sock, { ...req('DEL', 'del', d.containerId), netns: '' })).toEqual({ ok: true });
    expect(await hostLinkExists(`${d.containerId}_h`)).toBe(false);
    expect(await ports()).not.toContain(`${d.containerId}_h`);
  });

  it('failures leave nothing: a namespace that does not exist (103), annotations that never come (100), ADD twice (104)', async () => {
    const g = await addPod('gone', 35);
    await ip('netns', 'del', g.ns.name);
    expect(await call(sock, req('ADD', 'gone', g.containerId))).toMatchObject({ ok: false, error: { code: 103 } });
    expect(await hostLinkExists(`${g.containerId}_h`)).toBe(false);
    const n = await fx.netns();
    netns.set('unrouted', n.path);
    const id = fx.linkName();
    ids.push(id);
    await cluster.create(pod('unrouted', encodePodNetwork(network(36, false))));
    expect(await call(sock, req('ADD', 'unrouted', id))).toMatchObject({
      ok: false,
      error: { code: 100, msg: expect.stringMatching(/pod default\/unrouted: .*ovn\.kubernetes\.io\/routed/) },
    });
    expect(await hostLinkExists(`${id}_h`)).toBe(false);
    expect((await ip('-n', n.name, '-br', 'link', 'show')).trim().split('\n')).toHaveLength(1);
    const t = await addPod('twice', 37);
    await add('twice', t.containerId);
    expect(await call(sock, req('ADD', 'twice', t.containerId))).toMatchObject({ ok: false, error: { code: 104 } });
    expect(await call(sock, req('CHECK', 'twice', t.containerId))).toEqual({ ok: true });
    expect(await call(sock, req('DEL', 'twice', t.containerId))).toEqual({ ok: true });
  });

  it('a restarted daemon keeps what is live and removes the veth and port of a pod deleted meanwhile', async () => {
    const k = await addPod('keep', 38);
    const x = await addPod('gone-pod', 39);
    await add('keep', k.containerId);
    await add('gone-pod', x.containerId);
    await daemon?.close();
    daemon = undefined;
    await cluster.delete({ kind: 'Pod', namespace: 'default', name: 'gone-pod' });
    const d = await start();
    expect(d.swept.map((a) => a.pod)).toContain('gone-pod');
    expect(d.swept.map((a) => a.pod)).not.toContain('keep');
    expect(await hostLinkExists(`${x.containerId}_h`)).toBe(false);
    expect(await ports()).not.toContain(`${x.containerId}_h`);
    expect(await call(sock, req('CHECK', 'keep', k.containerId))).toEqual({ ok: true });
  });

  it('ADD and DEL through the socket, timed (reported, never asserted)', async () => {
    const pods = [];
    for (let i = 0; i < 10; i++) pods.push({ name: `t${i}`, ...(await addPod(`t${i}`, 60 + i)) });
    const adds: number[] = [];
    const dels: number[] = [];
    for (const p of pods) {
      const t0 = performance.now();
      await add(p.name, p.containerId);
      adds.push(performance.now() - t0);
    }
    for (const p of pods) {
      const t0 = performance.now();
      expect(await call(sock, req('DEL', p.name, p.containerId))).toEqual({ ok: true });
      dels.push(performance.now() - t0);
    }
    const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]?.toFixed(1);
    const max = (xs: number[]) => Math.max(...xs).toFixed(1);
    console.log(
      `daemon e2e: ADD p50 ${p50(adds)} ms max ${max(adds)} ms; DEL p50 ${p50(dels)} ms max ${max(dels)} ms (10 pods, annotations ready)`,
    );
  });
});

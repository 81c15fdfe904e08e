/**
 * ovn0 in the lab's form, for real: a control plane with northd, a chassis
 * of ovs-vswitchd on the netdev datapath (in a namespace standing for the
 * host) with ovn-controller, Kube-OVN's join and default switches behind the
 * cluster router written with ovn-nbctl, a node namespace whose ovn0 and a
 * pod namespace whose eth0 are made by node/setup (ensureNodeNic,
 * decidePodPort + plumbPodPort on the netdev profile). The node reaches the
 * pod through OVN by ICMP and TCP, as Kube-OVN's node ↔ pod traffic does.
 *
 * The Netlink here is a test stand-in driving ip(8) and ethtool(8) until
 * node/netlink's lands; it does what the requests say and nothing more.
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  VSWITCH_SCHEMA,
  binaryPath,
  daemonEnv,
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
import { type TrackedPid, stopPid, track } from '../../backends/ovn/control-plane/registry.ts';
import { encodeNodeNetwork } from '../../kube/annotations.ts';
import type { Netlink, PodLink } from '../netlink/types.ts';
import { Vswitch, waitInstalled } from '../ovs/index.ts';
import { ensureNodeNic, planNodeNic } from './node-nic.ts';
import { configureNodeOvs } from './node-ovs.ts';
import { decidePodPort, plumbPodPort } from './pod-port.ts';

const run = promisify(execFile);
const ip = async (...args: string[]) => (await run('ip', args)).stdout;
const tag = `kovn0-${process.pid}`;
const HOST = `${tag}-h`;
const NODE = `${tag}-n`;
const POD = `${tag}-p`;

/** ip(8) in the namespace standing for the host; the namespace paths of the requests are /run/netns/<name>. */
class IpNetlink implements Netlink {
  constructor(readonly hostNs: string) {}
  async addPodLink(l: PodLink): Promise<void> {
    const ns = basename(l.netns);
    await ip(
      '-n',
      this.hostNs,
      'link',
      'add',
      l.hostIfName,
      'mtu',
      `${l.mtu}`,
      'type',
      'veth',
      'peer',
      'name',
      l.ifName,
      'mtu',
      `${l.mtu}`,
      'netns',
      ns,
    );
    await ip('-n', ns, 'link', 'set', l.ifName, 'address', l.mac);
    for (const a of l.addresses) await ip('-n', ns, 'addr', 'add', a, 'dev', l.ifName);
    await ip('-n', ns, 'link', 'set', l.ifName, 'up');
    await ip('-n', ns, 'link', 'set', 'lo', 'up');
    for (const r of l.routes)
      await ip('-n', ns, 'route', 'add', r.dst, ...(r.gw === undefined ? [] : ['via', r.gw]), 'dev', l.ifName);
    if (l.txChecksumOff) await run('ip', ['netns', 'exec', ns, 'ethtool', '-K', l.ifName, 'tx', 'off']);
    await ip('-n', this.hostNs, 'link', 'set', l.hostIfName, 'up');
  }
  async deleteLink(name: string): Promise<boolean> {
    return ip('-n', this.hostNs, 'link', 'del', name).then(
      () => true,
      () => false,
    );
  }
  async listLinks() {
    return [];
  }
  async inspectPodLink() {
    return undefined;
  }
}

describe.skipIf(!requireOvn('node/setup'))('ovn0 (veth form) on a real chassis: the node reaches its pod', () => {
  let dir: string | undefined;
  let cp: ControlPlane | undefined;
  let conf: OvsdbServer | undefined;
  let vswitchd: TrackedPid | undefined;
  let controller: DaemonProcess | undefined;
  let vs: Vswitch | undefined;
  const made: string[] = [];
  const nbctl = async (...args: string[]) =>
    (await runTool('ovn-nbctl', [`--db=${cp!.nb.remote}`, '--timeout=30', ...args])).stdout;

  beforeAll(async () => {
    dir = await makeTempDir('nodesetup-ovn0');
    cp = await startControlPlane();
    conf = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
    await runTool('ovs-vsctl', [`--db=${conf.remote}`, '--no-wait', 'init']);
    for (const ns of [HOST, NODE, POD]) {
      await ip('netns', 'del', ns).catch(() => '');
      await ip('netns', 'add', ns);
      made.push(ns);
    }
    const args = [conf.remote, '--detach', '--no-chdir', `--pidfile=${dir}/vswitchd.pid`];
    args.push(`--log-file=${dir}/vswitchd.log`, `--unixctl=${dir}/vswitchd.ctl`);
    await run('ip', ['netns', 'exec', HOST, binaryPath('ovs-vswitchd'), ...args], { env: daemonEnv(dir) });
    vswitchd = track(Number(readFileSync(`${dir}/vswitchd.pid`, 'utf8').trim()), 'ovs-vswitchd');
    vs = await Vswitch.open({ remote: conf.remote });
    await configureNodeOvs(
      vs,
      { systemId: 'node1', ovnRemote: cp.sb.remote, encapIp: '127.0.0.1', profile: 'netdev' },
      { waitApplied: true },
    );
    controller = new DaemonProcess({
      dir,
      name: 'controller',
      binary: 'ovn-controller',
      args: [conf.remote],
      unixctlOption: false,
      memoryLimitBytes: 2 * 1024 ** 3,
    });
    await controller.start();
    // Kube-OVN's topology: the cluster router, the join switch with the node's port, the default subnet with a pod.
    await nbctl('lr-add', 'ovn-cluster');
    await nbctl('lrp-add', 'ovn-cluster', 'ovn-cluster-join', '0a:58:64:40:00:01', '100.64.0.1/16');
    await nbctl('lrp-add', 'ovn-cluster', 'ovn-cluster-ovn-default', '0a:58:0a:10:00:01', '10.16.0.1/16');
    for (const [ls, lrp] of [
      ['join', 'ovn-cluster-join'],
      ['ovn-default', 'ovn-cluster-ovn-default'],
    ] as const) {
      await nbctl('ls-add', ls);
      await nbctl('lsp-add', ls, `${ls}-ovn-cluster`, '--', 'lsp-set-type', `${ls}-ovn-cluster`, 'router');
      await nbctl('lsp-set-addresses', `${ls}-ovn-cluster`, 'router');
      await nbctl('lsp-set-options', `${ls}-ovn-cluster`, `router-port=${lrp}`);
    }
    await nbctl(
      'lsp-add',
      'join',
      'node-node1',
      '--',
      'lsp-set-addresses',
      'node-node1',
      '0a:58:64:40:00:02 100.64.0.2',
    );
    await nbctl('lsp-add', 'ovn-default', 'pod1.default');
    await nbctl('lsp-set-addresses', 'pod1.default', '0a:58:0a:10:00:05 10.16.0.5');
  }, 120_000);
  afterAll(async () => {
    vs?.close();
    await controller?.stop();
    if (vswitchd !== undefined) await stopPid(vswitchd);
    for (const ns of made) await ip('netns', 'del', ns).catch(() => '');
    await conf?.stop();
    await cp?.stop();
    if (dir !== undefined) await removeTempDir(dir);
  });

  it('ovn0 and the pod installed by ovn-controller; ping and a TCP exchange node → pod', async () => {
    const netlink = new IpNetlink(HOST);
    const plan = planNodeNic({
      node: 'node1',
      annotations: encodeNodeNetwork({
        ips: ['100.64.0.2'],
        mac: '0a:58:64:40:00:02',
        cidrs: ['100.64.0.0/16'],
        gateways: ['100.64.0.1'],
        logicalSwitch: 'join',
        portName: 'node-node1',
      }),
      mtu: 1400,
      subnets: [
        { name: 'join', cidrBlock: '100.64.0.0/16', vpc: 'ovn-cluster', provider: 'ovn' },
        { name: 'ovn-default', cidrBlock: '10.16.0.0/16', vpc: 'ovn-cluster', provider: 'ovn' },
      ],
      serviceCidrs: ['10.96.0.0/12'],
    });
    if (!plan.ok) throw new Error(plan.issue.message);
    await ensureNodeNic({ vs: vs!, netlink, profile: 'netdev', commit: { waitApplied: true } }, plan.value, {
      kind: 'veth',
      netns: `/run/netns/${NODE}`,
      hostIfName: 'node1-ovn0',
    });
    const pod = await decidePodPort({
      profile: 'netdev',
      link: {
        hostIfName: 'pod1_h',
        netns: `/run/netns/${POD}`,
        ifName: 'eth0',
        mac: '0a:58:0a:10:00:05',
        mtu: 1400,
        addresses: ['10.16.0.5/16'],
        routes: [{ dst: 'default', gw: '10.16.0.1' }],
      },
      port: { name: 'pod1_h', ifaceId: 'pod1.default' },
    });
    if (!pod.ok) throw new Error(pod.issue.message);
    await plumbPodPort({ vs: vs!, netlink, commit: { waitApplied: true } }, pod.value);
    await waitInstalled(vs!, ['node1-ovn0', 'pod1_h'], { timeoutMs: 60_000 });
    await nbctl('--wait=hv', 'sync');

    const routes = JSON.parse(await ip('-n', NODE, '-j', 'route', 'show', 'dev', 'ovn0'));
    expect(routes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ dst: '10.16.0.0/16', gateway: '100.64.0.1' }),
        expect.objectContaining({ dst: '10.96.0.0/12', gateway: '100.64.0.1' }),
      ]),
    );
    await run('ip', ['netns', 'exec', NODE, 'ping', '-c', '1', '-W', '5', '10.16.0.5']);
    const server = spawn('ip', ['netns', 'exec', POD, process.execPath, '-e', SERVER], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await new Promise((resolve, reject) => {
        server.stdout.once('data', resolve);
        server.once('exit', reject);
      });
      const out = await run('ip', ['netns', 'exec', NODE, process.execPath, '-e', CLIENT]);
      // The pod saw the node's join address as the source: no NAT between node and pod.
      expect(out.stdout.trim()).toBe('echoed 100000 from 100.64.0.2');
    } finally {
      server.kill();
    }
  }, 120_000);
});

/** Answers a connection with the byte count it sent and the peer address it came from. */
const SERVER = `require('net').createServer((s) => { let n = 0; s.on('data', (b) => { n += b.length; });
  s.on('end', () => s.end('echoed ' + n + ' from ' + s.remoteAddress)); }).listen(8080, '10.16.0.5', () => console.log('ready'));`;

const CLIENT = `const s = require('net').connect(8080, '10.16.0.5', () => s.end(Buffer.alloc(1e5)));
  let out = ''; s.on('data', (b) => { out += b; }); s.on('close', () => { console.log(out); process.exit(0); });
  s.setTimeout(20000, () => { console.log('timeout'); process.exit(0); }); s.on('error', (e) => console.log(e.code));`;

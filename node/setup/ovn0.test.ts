/**
 * ovn0 in both forms, for real: a control plane with northd, a chassis of
 * ovs-vswitchd on the netdev datapath (in a namespace standing for the host)
 * with ovn-controller, Kube-OVN's join and default switches behind the
 * cluster router and its policy for each node's InternalIP written with
 * ovn-nbctl, a pod namespace plumbed by node/setup (decidePodPort +
 * plumbPodPort, netdev profile), and two nodes: node1 a namespace of its
 * own with ovn0 at the end of a veth (the lab), node2 the host namespace with
 * ovn0 an OVS internal port (a real node). Dual stack: each reaches the pod
 * through OVN by ICMP and TCP over both families from its InternalIPs, as
 * Kube-OVN's node → pod traffic does.
 *
 * The namespaces' side is node/netlink's RtNetlink (see ChassisNetlink).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
import { RtNetlink } from '../netlink/rtnetlink.ts';
import type { HostLinkConfig, LinkRoute, Netlink, PodLink } from '../netlink/types.ts';
import { requireNetns } from '../netlink/testing.ts';
import { Vswitch, waitInstalled } from '../ovs/index.ts';
import { type NodeNicForm, ensureNodeNic, planNodeNic } from './node-nic.ts';
import { configureNodeOvs } from './node-ovs.ts';
import { decidePodPort, plumbPodPort } from './pod-port.ts';

const run = promisify(execFile);
const ip = async (...args: string[]) => (await run('ip', args)).stdout;
const tag = `kovn0-${process.pid}`;
const HOST = `${tag}-h`;
const NODE = `${tag}-n`;
const POD = `${tag}-p`;
/** node1 is a namespace of its own (the lab); node2's host network is the namespace vswitchd runs in. */
const NODES = [
  {
    name: 'node1',
    ns: NODE,
    join: ['100.64.0.2', 'fd00:100:64::2'],
    mac: '0a:58:64:40:00:02',
    internal: ['172.18.0.2', 'fd00:172:18::2'],
  },
  {
    name: 'node2',
    ns: HOST,
    join: ['100.64.0.3', 'fd00:100:64::3'],
    mac: '0a:58:64:40:00:03',
    internal: ['172.18.0.3', 'fd00:172:18::3'],
  },
] as const;
/** Dual stack, as Kube-OVN's defaults (join 100.64.0.0/16, ovn-default 10.16.0.0/16) with an IPv6 half. */
const JOIN = { cidrs: ['100.64.0.0/16', 'fd00:100:64::/112'], gateways: ['100.64.0.1', 'fd00:100:64::1'] };
const POD_IPS = ['10.16.0.5', 'fd00:10:16::5'];
const SERVICE_CIDRS = ['10.96.0.0/12', 'fd00:10:96::/112'];
/** A Service's cluster IPs (port 80 → the pod's 8080), on the join switch's load balancers as on every switch. */
const SERVICE_IPS = ['10.96.0.10', 'fd00:10:96::10'];

/**
 * node/netlink's RtNetlink for everything inside the node's and the pod's namespaces; its host
 * ends are then moved into the namespace vswitchd runs in (RtNetlink makes them in this process's
 * namespace, and vswitchd must see them). configureHostLink, which RtNetlink does not implement, is
 * a stand-in driving ip(8) there.
 */
class ChassisNetlink implements Netlink {
  readonly rt = new RtNetlink();
  constructor(readonly hostNs: string) {}
  async addPodLink(l: PodLink): Promise<void> {
    await this.rt.addPodLink(l);
    await ip('link', 'set', l.hostIfName, 'netns', this.hostNs);
    await ip('-n', this.hostNs, 'link', 'set', l.hostIfName, 'up');
  }
  async configureHostLink(c: HostLinkConfig): Promise<void> {
    for (const a of c.addresses ?? [])
      await ip('-n', this.hostNs, 'addr', 'add', a, 'dev', c.name, ...(a.includes(':') ? ['nodad'] : []));
    if (c.up) await ip('-n', this.hostNs, 'link', 'set', c.name, 'up');
    for (const r of c.routes ?? []) await ip('-n', this.hostNs, 'route', 'add', ...routeArgs(r), 'dev', c.name);
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
  async inspectPodLink(netns: string, ifName: string) {
    return this.rt.inspectPodLink(netns, ifName);
  }
}

const routeArgs = (r: LinkRoute) => [
  r.dst,
  ...(r.gw === undefined ? [] : ['via', r.gw]),
  ...(r.src === undefined ? [] : ['src', r.src]),
];

describe.skipIf(!requireOvn('node/setup') || !requireNetns('node/setup'))(
  'ovn0 in both forms on a real chassis: each node reaches its pod',
  () => {
    let dir: string | undefined;
    let cp: ControlPlane | undefined;
    let conf: OvsdbServer | undefined;
    let vswitchd: TrackedPid | undefined;
    let controller: DaemonProcess | undefined;
    let vs: Vswitch | undefined;
    let server: ChildProcess | undefined;
    const netlink = new ChassisNetlink(HOST);
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
      await nbctl(
        'lrp-add',
        'ovn-cluster',
        'ovn-cluster-join',
        '0a:58:64:40:00:01',
        '100.64.0.1/16',
        'fd00:100:64::1/112',
      );
      await nbctl(
        'lrp-add',
        'ovn-cluster',
        'ovn-cluster-ovn-default',
        '0a:58:0a:10:00:01',
        '10.16.0.1/16',
        'fd00:10:16::1/112',
      );
      for (const [ls, lrp] of [
        ['join', 'ovn-cluster-join'],
        ['ovn-default', 'ovn-cluster-ovn-default'],
      ] as const) {
        await nbctl('ls-add', ls);
        await nbctl('lsp-add', ls, `${ls}-ovn-cluster`, '--', 'lsp-set-type', `${ls}-ovn-cluster`, 'router');
        await nbctl('lsp-set-addresses', `${ls}-ovn-cluster`, 'router');
        await nbctl('lsp-set-options', `${ls}-ovn-cluster`, `router-port=${lrp}`);
      }
      // The default VPC's default route via the join gateway (the controller's), which the policies below refine.
      await nbctl('lr-route-add', 'ovn-cluster', '0.0.0.0/0', '100.64.0.1');
      await nbctl('lr-route-add', 'ovn-cluster', '::/0', 'fd00:100:64::1');
      // Each node's join port, and the policy sending replies to its InternalIP back through its ovn0 (the controller's at 30000).
      for (const n of NODES) {
        await nbctl(
          'lsp-add',
          'join',
          `node-${n.name}`,
          '--',
          'lsp-set-addresses',
          `node-${n.name}`,
          `${n.mac} ${n.join.join(' ')}`,
        );
        for (const [i, family] of ['ip4', 'ip6'].entries())
          await nbctl(
            'lr-policy-add',
            'ovn-cluster',
            '30000',
            `${family}.dst == ${n.internal[i]}`,
            'reroute',
            n.join[i]!,
          );
      }
      for (const [i, vip] of SERVICE_IPS.entries()) {
        const [v, b] = i === 0 ? [`${vip}:80`, `${POD_IPS[i]}:8080`] : [`[${vip}]:80`, `[${POD_IPS[i]}]:8080`];
        await nbctl('lb-add', `svc-v${i === 0 ? 4 : 6}`, v, b, 'tcp');
        for (const ls of ['join', 'ovn-default']) await nbctl('ls-lb-add', ls, `svc-v${i === 0 ? 4 : 6}`);
      }
      await nbctl('lsp-add', 'ovn-default', 'pod1.default');
      await nbctl('lsp-set-addresses', 'pod1.default', `0a:58:0a:10:00:05 ${POD_IPS.join(' ')}`);
      // The pod, as the daemon plumbs it on this profile.
      const pod = await decidePodPort({
        profile: 'netdev',
        link: {
          hostIfName: `p1h${process.pid}`,
          netns: `/run/netns/${POD}`,
          ifName: 'eth0',
          mac: '0a:58:0a:10:00:05',
          mtu: 1400,
          addresses: ['10.16.0.5/16', 'fd00:10:16::5/112'],
          routes: [
            { dst: 'default', gw: '10.16.0.1' },
            { dst: 'default', gw: 'fd00:10:16::1' },
          ],
        },
        port: { name: `p1h${process.pid}`, ifaceId: 'pod1.default' },
      });
      if (!pod.ok) throw new Error(pod.issue.message);
      await plumbPodPort({ vs, netlink: netlink, commit: { waitApplied: true } }, pod.value);
      server = spawn('ip', ['netns', 'exec', POD, process.execPath, '-e', SERVER], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise((resolve, reject) => {
        server!.stdout!.once('data', resolve);
        server!.once('exit', reject);
      });
    }, 120_000);
    afterAll(async () => {
      server?.kill();
      netlink.rt.close();
      vs?.close();
      await controller?.stop();
      if (vswitchd !== undefined) await stopPid(vswitchd);
      for (const ns of made) await ip('netns', 'del', ns).catch(() => '');
      await conf?.stop();
      await cp?.stop();
      if (dir !== undefined) await removeTempDir(dir);
    });

    /** The node's host network gets its InternalIP, then ovn0 in the given form. */
    async function setUpNode(n: (typeof NODES)[number], form: NodeNicForm): Promise<void> {
      // On lo: no dummy module here, and a local address is all a preferred source needs.
      await ip('-n', n.ns, 'addr', 'add', `${n.internal[0]}/32`, 'dev', 'lo');
      await ip('-n', n.ns, 'addr', 'add', `${n.internal[1]}/128`, 'dev', 'lo', 'nodad');
      await ip('-n', n.ns, 'link', 'set', 'lo', 'up');
      const plan = planNodeNic({
        node: n.name,
        annotations: encodeNodeNetwork({
          ips: n.join,
          mac: n.mac,
          ...JOIN,
          logicalSwitch: 'join',
          portName: `node-${n.name}`,
        }),
        mtu: 1400,
        subnets: [
          { name: 'join', cidrBlock: JOIN.cidrs.join(','), vpc: 'ovn-cluster', provider: 'ovn' },
          { name: 'ovn-default', cidrBlock: '10.16.0.0/16,fd00:10:16::/112', vpc: 'ovn-cluster', provider: 'ovn' },
        ],
        serviceCidrs: SERVICE_CIDRS,
        internalIps: n.internal,
      });
      if (!plan.ok) throw new Error(plan.issue.message);
      const ctx = { vs: vs!, netlink, profile: 'netdev', commit: { waitApplied: true } } as const;
      await ensureNodeNic(ctx, plan.value, form);
      await waitInstalled(vs!, [form.kind === 'veth' ? form.hostIfName : 'ovn0', `p1h${process.pid}`], {
        timeoutMs: 60_000,
      });
      await nbctl('--wait=hv', 'sync');
      for (const [i, family] of ['-4', '-6'].entries()) {
        const routes = JSON.parse(await ip('-n', n.ns, '-j', family, 'route', 'show', 'dev', 'ovn0'));
        const gateway = JOIN.gateways[i];
        expect(routes).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ dst: ['10.16.0.0/16', 'fd00:10:16::/112'][i], gateway, prefsrc: n.internal[i] }),
            expect.objectContaining({ dst: SERVICE_CIDRS[i], gateway, prefsrc: n.internal[i] }),
          ]),
        );
      }
    }

    /** Per family: ping, then 100 kB over TCP; the pod answers with the count and the source it saw. */
    async function reachPod(ns: string): Promise<string[]> {
      const out: string[] = [];
      for (const podIp of POD_IPS) {
        await run('ip', ['netns', 'exec', ns, 'ping', '-c', '1', '-W', '5', podIp]);
        out.push(await tcp(ns, podIp, 8080));
      }
      return out;
    }

    /** Per family: 100 kB to the Service's cluster IP, port 80 (the service CIDR route, the join switch's LB). */
    async function reachService(ns: string): Promise<string[]> {
      const out: string[] = [];
      for (const vip of SERVICE_IPS) out.push(await tcp(ns, vip, 80));
      return out;
    }

    async function tcp(ns: string, address: string, port: number): Promise<string> {
      return (await run('ip', ['netns', 'exec', ns, process.execPath, '-e', CLIENT, address, `${port}`])).stdout.trim();
    }

    it('veth form (the lab): the node namespace reaches the pod and its Service from its InternalIP', async () => {
      const n = NODES[0];
      await setUpNode(n, { kind: 'veth', netns: `/run/netns/${n.ns}`, hostIfName: `n1o${process.pid}` });
      // No NAT between node and pod; the reply to the InternalIP came back through the policy and ovn0.
      const seen = ['echoed 100000 from 172.18.0.2', 'echoed 100000 from fd00:172:18::2'];
      expect(await reachPod(n.ns)).toEqual(seen);
      expect(await reachService(n.ns)).toEqual(seen);
    }, 120_000);

    it('internal form (a real node): vswitchd’s ovn0 in the host namespace, same paths', async () => {
      const n = NODES[1];
      await setUpNode(n, { kind: 'internal' });
      const link = JSON.parse(await ip('-n', HOST, '-j', 'link', 'show', 'ovn0'))[0];
      expect(link).toMatchObject({ address: n.mac, mtu: 1400 });
      const seen = ['echoed 100000 from 172.18.0.3', 'echoed 100000 from fd00:172:18::3'];
      expect(await reachPod(n.ns)).toEqual(seen);
      expect(await reachService(n.ns)).toEqual(seen);
    }, 120_000);
  },
);

/** Answers a connection, on each of the pod's addresses, with the byte count it sent and the peer address it came from. */
const SERVER = `const serve = (ip, then) => require('net').createServer((s) => { let n = 0; s.on('data', (b) => { n += b.length; });
  s.on('end', () => s.end('echoed ' + n + ' from ' + s.remoteAddress)); }).listen(8080, ip, then);
  serve('${POD_IPS[0]}', () => serve('${POD_IPS[1]}', () => console.log('ready')));`;

/** Sends 100 kB to the address and port given as its arguments and prints the answer. */
const CLIENT = `const s = require('net').connect(Number(process.argv[2]), process.argv[1], () => s.end(Buffer.alloc(1e5)));
  let out = ''; s.on('data', (b) => { out += b; }); s.on('close', () => { console.log(out); process.exit(0); });
  s.setTimeout(20000, () => { console.log('timeout'); process.exit(0); }); s.on('error', (e) => console.log(e.code));`;

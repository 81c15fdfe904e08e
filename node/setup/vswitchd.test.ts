/**
 * The profiles against a real ovs-vswitchd (no --enable-dummy), run inside a
 * network namespace of the test's so that its internal ports (taps on the
 * netdev datapath) never appear in the host's: which profile runs here, and
 * ovn0 in its production form (an OVS internal port) with the MAC and MTU
 * vswitchd gives it, seen by the kernel; and why a veth's pod end needs its
 * tx checksum offload off on the userspace datapath.
 */
import { execFile, spawn } from 'node:child_process';
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
  startOvsdbServer,
  type OvsdbServer,
} from '../../backends/ovn/control-plane/index.ts';
import { type TrackedPid, stopPid, track } from '../../backends/ovn/control-plane/registry.ts';
import { encodeNodeNetwork } from '../../kube/annotations.ts';
import { requireNetns } from '../netlink/testing.ts';
import { Vswitch, addPort, deletePort, getPort } from '../ovs/index.ts';
import { ensureNodeNic, planNodeNic } from './node-nic.ts';
import { configureNodeOvs } from './node-ovs.ts';
import { DATAPATH_PROFILES, type DatapathProfile, profileSettings } from './profile.ts';
import { VHOST_USER_CLIENT } from './pod-port.ts';
import { RecordingNetlink } from '../netlink/recording.ts';

const run = promisify(execFile);
const NS = `kovnset-${process.pid}`;
const ip = async (...args: string[]) => (await run('ip', args)).stdout;

describe.skipIf(!requireOvn('node/setup') || !requireNetns('node/setup'))(
  'node/setup on a real ovs-vswitchd (netdev datapath)',
  () => {
    let dir: string | undefined;
    let server: OvsdbServer | undefined;
    let vswitchd: TrackedPid | undefined;
    let nsMade = false;
    let vs: Vswitch;
    const vsctl = async (...args: string[]) =>
      (await runTool('ovs-vsctl', [`--db=${server!.remote}`, '--timeout=20', ...args])).stdout.trim();
    const get = async (table: string, row: string, column: string) =>
      (await vsctl('--no-wait', '--if-exists', 'get', table, row, column)).replace(/^"(.*)"$/, '$1');

    beforeAll(async () => {
      dir = await makeTempDir('nodesetup-vsd');
      server = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
      await vsctl('--no-wait', 'init');
      // A namespace of a crashed earlier run with this pid would make `add` fail.
      await ip('netns', 'del', NS).catch(() => '');
      await ip('netns', 'add', NS);
      nsMade = true;
      // `ip netns exec` enters the namespace and execs vswitchd, which detaches once it is initialized.
      const args = [server.remote, '--detach', '--no-chdir', `--pidfile=${dir}/vswitchd.pid`];
      args.push(`--log-file=${dir}/vswitchd.log`, `--unixctl=${dir}/vswitchd.ctl`);
      await run('ip', ['netns', 'exec', NS, binaryPath('ovs-vswitchd'), ...args], { env: daemonEnv(dir) });
      vswitchd = track(Number(readFileSync(`${dir}/vswitchd.pid`, 'utf8').trim()), 'ovs-vswitchd');
      vs = await Vswitch.open({ remote: server.remote });
    });
    afterAll(async () => {
      vs?.close();
      if (vswitchd !== undefined) await stopPid(vswitchd);
      for (const pod of podsMade) await ip('netns', 'del', pod);
      if (nsMade) await ip('netns', 'del', NS);
      await server?.stop();
      if (dir !== undefined) await removeTempDir(dir);
    });

    const cfg = (profile: DatapathProfile) => ({
      systemId: 'node1',
      ovnRemote: 'unix:/nonexistent',
      encapIp: '127.0.0.1',
      profile,
    });

    it('runs what profileSettings says runs here: br-int in the datapath, its pod port kinds accepted', async () => {
      const found: Record<string, boolean> = {};
      for (const profile of DATAPATH_PROFILES) {
        await configureNodeOvs(vs, cfg(profile), { waitApplied: true, timeoutMs: 30_000 });
        // The datapaths vswitchd opened and their bridges (br-int's ofport is not cleared when a bridge fails).
        const dpif = (await runTool('ovs-appctl', ['-t', `${dir}/vswitchd.ctl`, 'dpif/show'])).stdout;
        const bridgeUp = new RegExp(`^${profileSettings(profile).datapathType}@[^\\n]*\\n  br-int:`, 'm').test(dpif);
        const types = await get('Open_vSwitch', '.', 'iface_types');
        const kinds = profileSettings(profile).podPorts;
        const portsOk = !kinds.includes('vhost-user') || types.includes(VHOST_USER_CLIENT);
        found[profile] = bridgeUp && portsOk;
      }
      expect(found).toEqual(Object.fromEntries(DATAPATH_PROFILES.map((p) => [p, profileSettings(p).runsHere])));
      // Why DPDK does not: this build has no DPDK (the root row says so once dpdk-init was asked for).
      expect(await get('Open_vSwitch', '.', 'dpdk_initialized')).toBe('false');
    });

    it('netdev: ovn0 as an internal port is a tap in the namespace with the planned MAC and MTU', async () => {
      await configureNodeOvs(vs, cfg('netdev'), { waitApplied: true });
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
        subnets: [{ name: 'ovn-default', cidrBlock: '10.16.0.0/16', vpc: '', provider: 'ovn' }],
        serviceCidrs: ['10.96.0.0/12'],
      });
      if (!plan.ok) throw new Error(plan.issue.message);
      // vswitchd has made ovn0's tap by then: the recorder's host has the link.
      const nl = new RecordingNetlink({ hostLinks: ['ovn0'] });
      await ensureNodeNic({ vs, netlink: nl, profile: 'netdev', commit: { waitApplied: true } }, plan.value, {
        kind: 'internal',
      });
      const link = JSON.parse(await ip('-n', NS, '-j', '-d', 'link', 'show', 'ovn0'))[0];
      expect(link).toMatchObject({ ifname: 'ovn0', address: '0a:58:64:40:00:02', mtu: 1400 });
      expect(link.linkinfo?.info_kind).toBe('tun');
      expect(await get('Interface', 'ovn0', 'mac_in_use')).toBe('0a:58:64:40:00:02');
      expect(await get('Interface', 'ovn0', 'error')).toBe('[]');
      // The kernel side (addresses, routes) is asked of netlink.
      expect(nl.requests).toMatchObject([{ op: 'configureHostLink', config: { name: 'ovn0', up: true } }]);
      expect(await deletePort(vs, 'ovn0', { waitApplied: true })).toBe(true);
      expect((await ip('-n', NS, '-j', 'link', 'show')).includes('"ovn0"')).toBe(false);
    });

    it('dpdk: a vhost-user client port is refused by this build (the error vswitchd reports)', async () => {
      await configureNodeOvs(vs, cfg('dpdk'), { waitApplied: true });
      await addPort(
        vs,
        { name: 'vhu0', type: VHOST_USER_CLIENT, options: { 'vhost-server-path': `${dir}/vhu0.sock` } },
        {
          waitApplied: true,
        },
      );
      expect(await get('Interface', 'vhu0', 'ofport')).toBe('-1');
      // No DPDK in this build: no vhost-user netdev class, the type is unknown to vswitchd.
      expect(await get('Interface', 'vhu0', 'error')).toBe(
        'could not open network device vhu0 (Address family not supported by protocol)',
      );
      expect(getPort(vs, 'vhu0')?.bridge).toBe('br-int');
      await deletePort(vs, 'vhu0', { waitApplied: true });
    });

    it('netdev: TCP between veths connects only with the pods’ tx checksum offload off (why txChecksumOff)', async () => {
      // A bridge of its own in NORMAL mode (br-int forwards nothing without ovn-controller's flows).
      await vs.ensureBridge({ name: 'br-tcp', failMode: 'standalone' });
      await vs.commit([vs.ops.update('Bridge', [['name', '==', 'br-tcp']], { datapath_type: 'netdev' })]);
      for (const [i, pod] of PODS.entries()) {
        await ip('netns', 'add', pod);
        podsMade.push(pod);
        await ip('-n', NS, 'link', 'add', `tcp${i}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', pod);
        await ip('-n', pod, 'addr', 'add', `10.99.0.${i + 1}/24`, 'dev', 'eth0');
        await ip('-n', pod, 'link', 'set', 'eth0', 'up');
        await ip('-n', NS, 'link', 'set', `tcp${i}`, 'up');
        await addPort(vs, { name: `tcp${i}`, bridge: 'br-tcp' }, { waitApplied: true });
      }
      const server = spawn('ip', ['netns', 'exec', PODS[1], process.execPath, '-e', SERVER], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        await new Promise((resolve, reject) => {
          server.stdout.once('data', resolve);
          server.once('exit', reject);
        });
        // A connection that would complete does so in milliseconds here; 3 s of nothing is a lost handshake.
        expect(await tcpClient(PODS[0], 3000)).toBe('timeout');
        for (const pod of PODS) await run('ip', ['netns', 'exec', pod, 'ethtool', '-K', 'eth0', 'tx', 'off']);
        expect(await tcpClient(PODS[0], 20_000)).toBe('echoed 1000000');
      } finally {
        server.kill();
      }
    });
  },
);

const PODS = [`kovnset-${process.pid}-a`, `kovnset-${process.pid}-b`] as const;
const podsMade: string[] = [];

/** Counts what a connection sends and answers the count. */
const SERVER = `require('net').createServer((s) => { let n = 0; s.on('data', (b) => { n += b.length; });
  s.on('end', () => s.end('echoed ' + n)); }).listen(5000, '10.99.0.2', () => console.log('ready'));`;

/** Sends 1 MB to the server and prints its answer, or `timeout` after the given ms without progress. */
const CLIENT = `const s = require('net').connect(5000, '10.99.0.2', () => s.end(Buffer.alloc(1e6)));
  let out = ''; s.on('data', (b) => { out += b; }); s.on('close', () => { console.log(out); process.exit(0); });
  s.setTimeout(Number(process.argv[1]), () => { console.log('timeout'); process.exit(0); }); s.on('error', (e) => console.log(e.code));`;

async function tcpClient(pod: string, idleMs: number): Promise<string> {
  return (await run('ip', ['netns', 'exec', pod, process.execPath, '-e', CLIENT, String(idleMs)])).stdout.trim();
}

/**
 * RtNetlink against the kernel: real namespaces (`ip netns add`, names with
 * a run id, removed after every test, also a failing one), checked with
 * iproute2 (`ip -j`), another client of the same kernel.
 */
import { spawn } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualTimers } from '../../backends/ovn/ovsdb/index.ts';
import { spawnHelper } from './helper.ts';
import { RtNetlink } from './rtnetlink.ts';
import { NetnsFixture, ip, ipJson, requireNetns } from './testing.ts';
import { NetlinkError, type PodLink } from './types.ts';

interface IpLink {
  ifname: string;
  mtu: number;
  flags: string[];
  address: string;
  linkinfo?: { info_kind?: string };
  addr_info?: { family: string; local: string; prefixlen: number; scope: string }[];
}
interface IpRoute {
  dst: string;
  gateway?: string;
  protocol?: string;
}

/** A command run in the pod link's namespace; its stdout. */
async function execIn(l: PodLink, ...cmd: string[]): Promise<string> {
  return ip('netns', 'exec', l.netns.split('/').pop()!, ...cmd);
}

/** The thrown NetlinkError's code and message, or a failure if it did not throw one. */
async function rejection(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof NetlinkError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a NetlinkError');
}

describe.skipIf(!requireNetns('node/netlink'))('RtNetlink with real namespaces', () => {
  let fx: NetnsFixture;
  let nl: RtNetlink;

  beforeAll(async () => {
    fx = await NetnsFixture.create();
    nl = new RtNetlink();
  });
  afterEach(async () => {
    await fx.cleanup();
  });
  afterAll(async () => {
    nl?.close();
    await fx?.cleanup();
  });

  /** A dual-stack pod link as the daemon would ask for it, into a fresh namespace. */
  async function podLink(over: Partial<PodLink> = {}): Promise<PodLink> {
    const ns = await fx.netns();
    return {
      hostIfName: fx.linkName(),
      netns: ns.path,
      ifName: 'eth0',
      mac: '0a:58:0a:63:00:05',
      mtu: 1400,
      addresses: ['10.99.0.5/24', 'fd00:99::5/64'],
      routes: [{ dst: 'default', gw: '10.99.0.1' }, { dst: 'default', gw: 'fd00:99::1' }, { dst: '10.98.0.0/16' }],
      ...over,
    };
  }

  /** Nothing of `l` is left: no host end, no interface of its name in the namespace (if it still exists). */
  async function expectNothingLeft(l: PodLink): Promise<void> {
    expect(await NetnsFixture.hostLinkExists(l.hostIfName)).toBe(false);
    const name = l.netns.split('/').pop()!;
    const inNs = await ipJson<IpLink[]>('-n', name, 'link', 'show').catch(() => []);
    expect(inNs.map((x) => x.ifname).filter((n) => n !== 'lo')).toEqual([]);
  }

  it('addPodLink: the pod end in the namespace with its name, MAC, MTU, addresses and routes, up; the host end up', async () => {
    const l = await podLink();
    await nl.addPodLink(l);
    const ns = l.netns.split('/').pop()!;
    const [pod] = await ipJson<IpLink[]>('-n', ns, 'addr', 'show', 'dev', 'eth0');
    expect(pod).toMatchObject({ ifname: 'eth0', mtu: 1400, address: '0a:58:0a:63:00:05' });
    expect(pod!.flags).toContain('UP');
    const global = pod!.addr_info!.filter((a) => a.scope === 'global').map((a) => `${a.local}/${a.prefixlen}`);
    expect(global).toEqual(['10.99.0.5/24', 'fd00:99::5/64']);
    const v4 = await ipJson<IpRoute[]>('-n', ns, 'route', 'show', 'dev', 'eth0');
    expect(v4.filter((r) => r.protocol !== 'kernel').map((r) => [r.dst, r.gateway])).toEqual([
      ['default', '10.99.0.1'],
      ['10.98.0.0/16', undefined],
    ]);
    const v6 = await ipJson<IpRoute[]>('-n', ns, '-6', 'route', 'show', 'dev', 'eth0');
    expect(v6.filter((r) => r.protocol !== 'kernel').map((r) => [r.dst, r.gateway])).toEqual([
      ['default', 'fd00:99::1'],
    ]);
    const [lo] = await ipJson<IpLink[]>('-n', ns, 'link', 'show', 'dev', 'lo');
    expect(lo!.flags).toContain('UP');
    const [host] = await ipJson<IpLink[]>('-d', 'link', 'show', 'dev', l.hostIfName);
    expect(host).toMatchObject({ mtu: 1400, linkinfo: { info_kind: 'veth' } });
    expect(host!.flags).toContain('UP');
  });

  it('addPodLink: packets pass between the pod end and the host end (moved to a second namespace to stay off the host)', async () => {
    const l = await podLink({ routes: [{ dst: 'default', gw: '10.99.0.1' }] });
    await nl.addPodLink(l);
    const peer = await fx.netns();
    await ip('link', 'set', 'dev', l.hostIfName, 'netns', peer.name);
    await ip('-n', peer.name, 'addr', 'add', '10.99.0.1/24', 'dev', l.hostIfName);
    await ip('-n', peer.name, 'link', 'set', 'dev', l.hostIfName, 'up');
    const pod = l.netns.split('/').pop()!;
    const ping = await ip('netns', 'exec', pod, 'ping', '-c', '1', '-W', '5', '10.99.0.1').catch(
      (e: Error) => e.message,
    );
    expect(ping).toMatch(/1 received/);
  });

  it('inspectPodLink reads back what addPodLink set; undefined for a missing interface or namespace', async () => {
    const l = await podLink();
    await nl.addPodLink(l);
    expect(await nl.inspectPodLink(l.netns, 'eth0')).toEqual({
      ifName: 'eth0',
      mac: '0a:58:0a:63:00:05',
      mtu: 1400,
      up: true,
      addresses: ['10.99.0.5/24', 'fd00:99::5/64'],
      routes: [{ dst: 'default', gw: '10.99.0.1' }, { dst: '10.98.0.0/16' }, { dst: 'default', gw: 'fd00:99::1' }],
    });
    expect(await nl.inspectPodLink(l.netns, 'eth9')).toBeUndefined();
    expect(await nl.inspectPodLink('/run/netns/kovn-nlt-no-such-ns', 'eth0')).toBeUndefined();
  });

  it("a process's namespace (/proc/PID/ns/net, as some runtimes pass it): made, read, and gone with the process", async () => {
    // unshare(1) without --fork execs sleep in the same pid, in a new network namespace.
    const child = spawn('unshare', ['--net', '--', 'sleep', '300'], { stdio: 'ignore' });
    const netns = `/proc/${child.pid}/ns/net`;
    try {
      const own = readlinkSync('/proc/self/ns/net');
      await vi.waitFor(() => expect(readlinkSync(netns)).not.toBe(own), { timeout: 5000, interval: 10 });
      const l = { ...(await podLink()), netns };
      await nl.addPodLink(l);
      expect((await nl.inspectPodLink(netns, 'eth0'))?.addresses).toEqual(l.addresses);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      expect(await nl.inspectPodLink(netns, 'eth0')).toBeUndefined();
      // The kernel destroys the namespace, and the pair with it, a little after the last process left.
      await vi.waitFor(async () => expect(await NetnsFixture.hostLinkExists(l.hostIfName)).toBe(false), {
        timeout: 5000,
        interval: 20,
      });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it("txChecksumOff turns the pod end's tx checksum offload off (ethtool reads it back); a route's src is its prefsrc", async () => {
    const plain = await podLink();
    const off = await podLink({
      txChecksumOff: true,
      routes: [{ dst: '10.97.0.0/16', gw: '10.99.0.1', src: '10.99.0.5' }],
    });
    await nl.addPodLink(plain);
    await nl.addPodLink(off);
    const txChecksumming = async (l: PodLink) =>
      /^tx-checksumming: (\w+)/m.exec(await execIn(l, 'ethtool', '-k', 'eth0'))?.[1];
    expect(await txChecksumming(plain)).toBe('on');
    expect(await txChecksumming(off)).toBe('off');
    const ns = off.netns.split('/').pop()!;
    const routes = await ipJson<(IpRoute & { prefsrc?: string })[]>('-n', ns, 'route', 'show', 'dev', 'eth0');
    expect(routes.find((r) => r.dst === '10.97.0.0/16')).toMatchObject({ gateway: '10.99.0.1', prefsrc: '10.99.0.5' });
    expect((await nl.inspectPodLink(off.netns, 'eth0'))?.routes).toEqual([
      { dst: '10.97.0.0/16', gw: '10.99.0.1', src: '10.99.0.5' },
    ]);
  });

  it('concurrent ADDs on one RtNetlink (one socket, a helper each) do not interfere', async () => {
    const links = await Promise.all(
      Array.from({ length: 8 }, async (_, i) =>
        podLink({ mac: `0a:58:0a:63:01:${(i + 16).toString(16)}`, addresses: [`10.99.1.${i + 2}/24`], routes: [] }),
      ),
    );
    await Promise.all(links.map((l) => nl.addPodLink(l)));
    const states = await Promise.all(links.map((l) => nl.inspectPodLink(l.netns, 'eth0')));
    expect(states.map((s) => [s?.mac, s?.addresses])).toEqual(links.map((l) => [l.mac, l.addresses]));
    expect(await Promise.all(links.map((l) => nl.deleteLink(l.hostIfName)))).toEqual(links.map(() => true));
  });

  it('deleteLink removes the pair (the pod end goes with it) and is idempotent', async () => {
    const l = await podLink();
    await nl.addPodLink(l);
    expect(await nl.deleteLink(l.hostIfName)).toBe(true);
    await expectNothingLeft(l);
    expect(await nl.deleteLink(l.hostIfName)).toBe(false);
    expect(await nl.inspectPodLink(l.netns, 'eth0')).toBeUndefined();
  });

  it('listLinks finds host ends by name, with their kind', async () => {
    const a = await podLink();
    const b = await podLink();
    await nl.addPodLink(a);
    await nl.addPodLink(b);
    const mine = new Set([a.hostIfName, b.hostIfName]);
    const found = await nl.listLinks((n) => mine.has(n));
    expect(found.map((x) => [x.name, x.kind]).sort()).toEqual([...mine].sort().map((n) => [n, 'veth']));
    expect(found.every((x) => Number.isInteger(x.index) && x.index > 0)).toBe(true);
    expect((await nl.listLinks()).some((x) => x.name === 'lo')).toBe(true);
  });

  it('EXISTS when the host name is taken: the existing link is untouched', async () => {
    const first = await podLink();
    await nl.addPodLink(first);
    const second = await podLink({ hostIfName: first.hostIfName });
    const err = await rejection(nl.addPodLink(second));
    expect(err.code).toBe('EXISTS');
    expect(err.message).toContain(`host link ${first.hostIfName} already exists`);
    expect((await nl.inspectPodLink(first.netns, 'eth0'))?.addresses).toEqual(first.addresses);
    await expectNothingLeft({ ...second, hostIfName: 'nlt-never-made' });
  });

  it('EXISTS when the pod interface name is taken in the namespace: no host end is left', async () => {
    const l = await podLink();
    const ns = l.netns.split('/').pop()!;
    await ip('-n', ns, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'other0');
    const err = await rejection(nl.addPodLink(l));
    expect(err.code).toBe('EXISTS');
    expect(err.message).toContain(`eth0 in ${l.netns} already exists`);
    expect(await NetnsFixture.hostLinkExists(l.hostIfName)).toBe(false);
  });

  it('NETNS_GONE when the namespace does not exist, or is not a namespace: nothing is made', async () => {
    const l = await podLink();
    const gone = { ...l, netns: `${l.netns}-missing` };
    expect((await rejection(nl.addPodLink(gone))).code).toBe('NETNS_GONE');
    const notNs = { ...l, netns: '/proc/self/status' };
    const err = await rejection(nl.addPodLink(notNs));
    expect(err).toMatchObject({ code: 'NETNS_GONE', message: expect.stringContaining('not a namespace file') });
    expect(await NetnsFixture.hostLinkExists(l.hostIfName)).toBe(false);
  });

  for (const when of ['before', 'after'] as const) {
    it(`NETNS_GONE when the namespace is removed mid-ADD (${when} the in-namespace steps), and nothing is left`, async () => {
      const real = spawnHelper();
      const l = await podLink();
      const name = l.netns.split('/').pop()!;
      const vanishing = new RtNetlink({
        runHelper: async (req) => {
          if (when === 'before') await ip('netns', 'del', name);
          const reply = await real(req);
          if (when === 'after') await ip('netns', 'del', name);
          return reply;
        },
      });
      try {
        const err = await rejection(vanishing.addPodLink(l));
        expect(err).toMatchObject({ code: 'NETNS_GONE', message: expect.stringContaining('removed during ADD') });
        expect(await NetnsFixture.hostLinkExists(l.hostIfName)).toBe(false);
        expect(await nl.inspectPodLink(l.netns, 'eth0')).toBeUndefined();
      } finally {
        vanishing.close();
      }
    });
  }

  it('a kernel refusal inside the namespace (gateway unreachable) is KERNEL naming the route, and the pair is removed', async () => {
    const l = await podLink({ routes: [{ dst: 'default', gw: '10.77.0.1' }] });
    const err = await rejection(nl.addPodLink(l));
    expect(err.code).toBe('KERNEL');
    expect(err.message).toContain('route default via 10.77.0.1');
    await expectNothingLeft(l);
  });

  it('an nsenter that cannot be started is HELPER naming it, and the pair is removed', async () => {
    const broken = new RtNetlink({ runHelper: spawnHelper({ nsenter: '/nonexistent/nsenter' }) });
    try {
      const l = await podLink();
      const err = await rejection(broken.addPodLink(l));
      expect(err).toMatchObject({
        code: 'HELPER',
        message: expect.stringContaining('cannot start /nonexistent/nsenter'),
      });
      await expectNothingLeft(l);
    } finally {
      broken.close();
    }
  });

  it('a helper that never answers is killed at the timeout: HELPER, and the pair is removed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kovn-nlt-'));
    const script = join(dir, 'hang.cjs');
    await writeFile(script, 'setInterval(() => {}, 1 << 30);\n');
    const timers = new ManualTimers();
    const hanging = new RtNetlink({ runHelper: spawnHelper({ script, timers, timeoutMs: 5000 }) });
    try {
      const l = await podLink();
      const failed = rejection(hanging.addPodLink(l));
      // The helper is running (its timer set) once the veth exists: then its time runs out.
      await vi.waitFor(() => expect(timers.pending).toBe(1), { timeout: 10_000, interval: 10 });
      expect(await NetnsFixture.hostLinkExists(l.hostIfName)).toBe(true);
      timers.advance(5000);
      expect(await failed).toMatchObject({ code: 'HELPER', message: expect.stringContaining('within 5000 ms') });
      await expectNothingLeft(l);
    } finally {
      hanging.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a helper that cannot run is HELPER, and the pair is removed', async () => {
    const broken = new RtNetlink({ runHelper: spawnHelper({ script: '/nonexistent/ns-helper.cjs' }) });
    try {
      const l = await podLink();
      const err = await rejection(broken.addPodLink(l));
      expect(err.code).toBe('HELPER');
      expect(err.message).toContain('without a reply');
      await expectNothingLeft(l);
    } finally {
      broken.close();
    }
  });
});

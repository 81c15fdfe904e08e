/**
 * RtNetlink's optional methods against the kernel: configureHostLink on a
 * link of the test's own in the host namespace (addresses in 198.18.0.0/15,
 * the benchmarking range, and routes through that link only, all gone with
 * the link), movePodLink and releasePodLink with a veth end standing in for
 * a VF. Checked with iproute2.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RtNetlink } from './rtnetlink.ts';
import { NetnsFixture, ip, ipJson, requireNetns } from './testing.ts';
import { type MovedPodLink, NetlinkError } from './types.ts';

interface IpLink {
  ifname: string;
  mtu: number;
  flags: string[];
  address: string;
  addr_info?: { family: string; local: string; prefixlen: number; scope: string }[];
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'no error';
  } catch (e) {
    if (e instanceof NetlinkError) return e.code;
    throw e;
  }
}

const globalAddrs = (l: IpLink | undefined) =>
  (l?.addr_info ?? []).filter((a) => a.scope === 'global').map((a) => `${a.local}/${a.prefixlen}`);

describe.skipIf(!requireNetns('node/netlink host links'))('RtNetlink: host links, moved links', () => {
  let fx: NetnsFixture;
  let nl: RtNetlink;

  beforeAll(async () => {
    fx = await NetnsFixture.create();
    nl = new RtNetlink();
  });
  afterEach(async () => fx.cleanup());
  afterAll(async () => {
    nl?.close();
    await fx?.cleanup();
  });

  /** A veth in the host namespace whose peer is `peerName` in a fresh namespace; returns the host end. */
  async function hostVeth(): Promise<{ host: string; peerNs: string }> {
    const host = fx.linkName();
    const peerNs = (await fx.netns()).name;
    await ip('link', 'add', host, 'type', 'veth', 'peer', 'name', 'peer0', 'netns', peerNs);
    await ip('-n', peerNs, 'link', 'set', 'peer0', 'up');
    return { host, peerNs };
  }

  it('configureHostLink: rename, MAC, MTU, addresses, routes, up; again with other addresses replaces them', async () => {
    const { host, peerNs } = await hostVeth();
    const renamed = fx.linkName();
    await nl.configureHostLink({
      name: host,
      rename: renamed,
      mac: '0a:58:c6:12:07:01',
      mtu: 1300,
      addresses: ['198.18.7.1/24'],
      routes: [{ dst: '198.19.7.0/24', gw: '198.18.7.2' }],
      up: true,
    });
    const [l] = await ipJson<IpLink[]>('addr', 'show', 'dev', renamed);
    expect(l).toMatchObject({ ifname: renamed, mtu: 1300, address: '0a:58:c6:12:07:01' });
    expect(l!.flags).toContain('UP');
    expect(globalAddrs(l)).toEqual(['198.18.7.1/24']);
    const routes = await ipJson<{ dst: string; gateway?: string }[]>('route', 'show', 'dev', renamed);
    expect(routes.find((r) => r.dst === '198.19.7.0/24')?.gateway).toBe('198.18.7.2');
    // Packets from the host through the configured link to the test namespace behind it.
    await ip('-n', peerNs, 'addr', 'add', '198.18.7.2/24', 'dev', 'peer0');
    expect(await ip('-n', peerNs, 'link', 'show', 'peer0')).toMatch(/UP/);
    const ping = await ip('netns', 'exec', peerNs, 'ping', '-c', '1', '-W', '5', '198.18.7.1').catch(
      (e: Error) => e.message,
    );
    expect(ping).toMatch(/1 received/);
    // Node set-up runs again at every start: the same call is fine, other addresses replace the old.
    await nl.configureHostLink({ name: renamed, addresses: ['198.18.8.1/24'], routes: [], up: true });
    await nl.configureHostLink({ name: renamed, addresses: ['198.18.8.1/24'], routes: [], up: true });
    expect(globalAddrs((await ipJson<IpLink[]>('addr', 'show', 'dev', renamed))[0])).toEqual(['198.18.8.1/24']);
  });

  it('configureHostLink: up false sets it down; a missing link is KERNEL, a malformed config INVALID', async () => {
    const { host } = await hostVeth();
    await nl.configureHostLink({ name: host, up: true });
    await nl.configureHostLink({ name: host, up: false });
    expect((await ipJson<IpLink[]>('link', 'show', 'dev', host))[0]!.flags).not.toContain('UP');
    expect(await codeOf(nl.configureHostLink({ name: fx.linkName(), up: true }))).toBe('KERNEL');
    expect(await codeOf(nl.configureHostLink({ name: host, mtu: 10, up: true }))).toBe('INVALID');
  });

  async function moved(): Promise<MovedPodLink & { peerNs: string }> {
    const { host, peerNs } = await hostVeth();
    const pod = await fx.netns();
    return {
      name: host,
      netns: pod.path,
      ifName: 'eth0',
      mac: '0a:58:0a:63:00:09',
      mtu: 1400,
      addresses: ['10.99.0.9/24'],
      routes: [{ dst: 'default', gw: '10.99.0.1' }],
      peerNs,
    };
  }

  it('movePodLink: the link in the namespace, renamed and set up; releasePodLink brings it back, down and bare', async () => {
    const l = await moved();
    await nl.movePodLink(l);
    expect(await NetnsFixture.hostLinkExists(l.name)).toBe(false);
    expect(await nl.inspectPodLink(l.netns, 'eth0')).toEqual({
      ifName: 'eth0',
      mac: '0a:58:0a:63:00:09',
      mtu: 1400,
      up: true,
      addresses: ['10.99.0.9/24'],
      routes: [{ dst: 'default', gw: '10.99.0.1' }],
    });
    await ip('-n', l.peerNs, 'addr', 'add', '10.99.0.1/24', 'dev', 'peer0');
    const pod = l.netns.split('/').pop()!;
    const ping = await ip('netns', 'exec', pod, 'ping', '-c', '1', '-W', '5', '10.99.0.1').catch(
      (e: Error) => e.message,
    );
    expect(ping).toMatch(/1 received/);

    expect(await nl.releasePodLink(l.netns, 'eth0', l.name)).toBe(true);
    const [back] = await ipJson<IpLink[]>('addr', 'show', 'dev', l.name);
    expect(back!.flags).not.toContain('UP');
    expect(globalAddrs(back)).toEqual([]);
    expect(await nl.inspectPodLink(l.netns, 'eth0')).toBeUndefined();
    expect(await nl.releasePodLink(l.netns, 'eth0', l.name)).toBe(false);
    expect(await nl.releasePodLink('/run/netns/kovn-nlt-no-such-ns', 'eth0', l.name)).toBe(false);
  });

  it('movePodLink failing in the namespace (gateway unreachable) moves the link back under its name', async () => {
    const l = await moved();
    const err = await codeOf(nl.movePodLink({ ...l, routes: [{ dst: 'default', gw: '10.77.0.1' }] }));
    expect(err).toBe('KERNEL');
    expect(await NetnsFixture.hostLinkExists(l.name)).toBe(true);
    expect(await nl.inspectPodLink(l.netns, 'eth0')).toBeUndefined();
  });

  it('movePodLink: EXISTS when the name is taken in the namespace (the link stays), NETNS_GONE without one', async () => {
    const l = await moved();
    const pod = l.netns.split('/').pop()!;
    await ip('-n', pod, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'other0');
    expect(await codeOf(nl.movePodLink(l))).toBe('EXISTS');
    // Ours came back; the namespace's own eth0 (a veth with peer other0) was left where it was.
    expect(await NetnsFixture.hostLinkExists(l.name)).toBe(true);
    const inNs = await ipJson<{ ifname: string }[]>('-n', pod, 'link', 'show');
    expect(inNs.map((x) => x.ifname).sort()).toEqual(['eth0', 'lo', 'other0']);
    expect(await codeOf(nl.movePodLink({ ...l, netns: `${l.netns}-missing` }))).toBe('NETNS_GONE');
    expect(await NetnsFixture.hostLinkExists(l.name)).toBe(true);
  });
});

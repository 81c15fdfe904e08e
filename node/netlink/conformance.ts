/**
 * One suite of cases for every Netlink implementation (RtNetlink on real
 * namespaces, RecordingNetlink on none), so that what the daemon's tests
 * learn from the recorder holds for the kernel. Route order is the kernel's
 * (IPv4 before IPv6) and is not part of the contract: states are compared
 * with routes sorted.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Netlink, NetlinkError, type PodLink, type PodLinkState } from './types.ts';

/** The optional methods, which both implementations have; a failure names the missing one. */
function optional<K extends 'configureHostLink' | 'movePodLink' | 'releasePodLink'>(nl: Netlink, k: K) {
  const f = nl[k];
  if (f === undefined) throw new Error(`this Netlink has no ${k}`);
  return f.bind(nl) as NonNullable<Netlink[K]>;
}

/** What a suite needs of a world: an implementation, namespaces to make and remove, unique host names. */
export interface NetlinkWorld {
  readonly nl: Netlink;
  /** A new namespace; its path. */
  netns(): Promise<string>;
  removeNetns(path: string): Promise<void>;
  /** A host link name no other case uses. */
  hostName(): string;
  /** A link that exists in the host namespace and may be moved (a VF's stand-in); its name. */
  spareLink(): Promise<string>;
  /** After each case: remove what it made. */
  cleanup(): Promise<void>;
  /** After the suite. */
  close(): Promise<void>;
}

const byText = (a: { dst: string; gw?: string }, b: { dst: string; gw?: string }) =>
  JSON.stringify(a).localeCompare(JSON.stringify(b));

/** A state with its routes in one order, to compare across implementations. */
export function normalizeState(s: PodLinkState | undefined): PodLinkState | undefined {
  return s === undefined ? undefined : { ...s, routes: [...s.routes].sort(byText) };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'no error';
  } catch (e) {
    return e instanceof NetlinkError ? e.code : `not a NetlinkError: ${String(e)}`;
  }
}

/**
 * Registers the cases under `describe(name)`.
 *
 * @example
 * describeNetlinkConformance('RecordingNetlink', async () => recordingWorld());
 */
export function describeNetlinkConformance(name: string, makeWorld: () => Promise<NetlinkWorld>): void {
  describe(`Netlink conformance: ${name}`, () => {
    let w: NetlinkWorld;
    beforeAll(async () => {
      w = await makeWorld();
    });
    afterEach(async () => w.cleanup());
    afterAll(async () => w?.close());

    const link = async (over: Partial<PodLink> = {}): Promise<PodLink> => ({
      hostIfName: w.hostName(),
      netns: await w.netns(),
      ifName: 'eth0',
      mac: '0A:58:0A:63:00:07',
      mtu: 1450,
      addresses: ['10.99.0.7/24', 'fd00:0099:0::7/64'],
      routes: [{ dst: 'default', gw: 'fd00:99::1' }, { dst: 'default', gw: '10.99.0.1' }, { dst: '10.97.0.0/16' }],
      ...over,
    });
    const listed = async (host: string) => (await w.nl.listLinks((n) => n === host)).map((x) => [x.name, x.kind]);

    it('add, then inspect: canonical text, up, every address and route', async () => {
      const l = await link();
      await w.nl.addPodLink(l);
      expect(normalizeState(await w.nl.inspectPodLink(l.netns, 'eth0'))).toEqual({
        ifName: 'eth0',
        mac: '0a:58:0a:63:00:07',
        mtu: 1450,
        up: true,
        addresses: ['10.99.0.7/24', 'fd00:99::7/64'],
        routes: [{ dst: '10.97.0.0/16' }, { dst: 'default', gw: '10.99.0.1' }, { dst: 'default', gw: 'fd00:99::1' }],
      });
      expect(await listed(l.hostIfName)).toEqual([[l.hostIfName, 'veth']]);
    });

    it('delete: true, then false; the pod end is gone with it', async () => {
      const l = await link();
      await w.nl.addPodLink(l);
      expect(await w.nl.deleteLink(l.hostIfName)).toBe(true);
      expect(await w.nl.deleteLink(l.hostIfName)).toBe(false);
      expect(await w.nl.inspectPodLink(l.netns, 'eth0')).toBeUndefined();
      expect(await listed(l.hostIfName)).toEqual([]);
    });

    it('EXISTS for a taken host name or a taken name in the namespace; the first pair stays', async () => {
      const l = await link();
      await w.nl.addPodLink(l);
      expect(await codeOf(w.nl.addPodLink({ ...(await link()), hostIfName: l.hostIfName }))).toBe('EXISTS');
      const other = w.hostName();
      expect(await codeOf(w.nl.addPodLink({ ...l, hostIfName: other }))).toBe('EXISTS');
      expect(await listed(other)).toEqual([]);
      expect((await w.nl.inspectPodLink(l.netns, 'eth0'))?.mtu).toBe(1450);
    });

    it('NETNS_GONE for a namespace that does not exist; INVALID for a malformed link; nothing made', async () => {
      const l = await link();
      await w.removeNetns(l.netns);
      expect(await codeOf(w.nl.addPodLink(l))).toBe('NETNS_GONE');
      expect(await w.nl.inspectPodLink(l.netns, 'eth0')).toBeUndefined();
      const bad = await link({ mac: 'not-a-mac' });
      expect(await codeOf(w.nl.addPodLink(bad))).toBe('INVALID');
      expect([...(await listed(l.hostIfName)), ...(await listed(bad.hostIfName))]).toEqual([]);
    });

    it("removing a namespace takes its pair with it (the host end too, once the kernel's cleanup ran)", async () => {
      const l = await link();
      await w.nl.addPodLink(l);
      await w.removeNetns(l.netns);
      await vi.waitFor(async () => expect(await listed(l.hostIfName)).toEqual([]), { timeout: 5000, interval: 20 });
      expect(await w.nl.deleteLink(l.hostIfName)).toBe(false);
    });

    it('move a link into a namespace, inspect it there, release it back; releasing twice is false', async () => {
      const name = await w.spareLink();
      const netns = await w.netns();
      const m = {
        name,
        netns,
        ifName: 'net1',
        mac: '0a:58:0a:63:00:08',
        mtu: 1400,
        addresses: ['10.99.0.8/24'],
        routes: [],
      };
      await optional(w.nl, 'movePodLink')(m);
      expect(await listed(name)).toEqual([]);
      expect(await w.nl.inspectPodLink(netns, 'net1')).toEqual({
        ifName: 'net1',
        mac: '0a:58:0a:63:00:08',
        mtu: 1400,
        up: true,
        addresses: ['10.99.0.8/24'],
        routes: [],
      });
      expect(await optional(w.nl, 'releasePodLink')(netns, 'net1', name)).toBe(true);
      expect((await listed(name)).map(([n]) => n)).toEqual([name]);
      expect(await w.nl.inspectPodLink(netns, 'net1')).toBeUndefined();
      expect(await optional(w.nl, 'releasePodLink')(netns, 'net1', name)).toBe(false);
    });

    it('move: EXISTS when the name is taken in the namespace, and the link stays in the host', async () => {
      const l = await link({ ifName: 'net2' });
      await w.nl.addPodLink(l);
      const name = await w.spareLink();
      const m = {
        name,
        netns: l.netns,
        ifName: 'net2',
        mac: '0a:58:0a:63:00:09',
        mtu: 1400,
        addresses: [],
        routes: [],
      };
      expect(await codeOf(optional(w.nl, 'movePodLink')(m))).toBe('EXISTS');
      expect((await listed(name)).map(([n]) => n)).toEqual([name]);
      expect((await w.nl.inspectPodLink(l.netns, 'net2'))?.mac).toBe('0a:58:0a:63:00:07');
    });

    it('configure a host link: renamed; a missing one is KERNEL, a taken new name EXISTS', async () => {
      const name = await w.spareLink();
      const other = await w.spareLink();
      const renamed = w.hostName();
      await optional(w.nl, 'configureHostLink')({ name, rename: renamed, mtu: 1300, up: true });
      expect((await listed(renamed)).map(([n]) => n)).toEqual([renamed]);
      expect(await listed(name)).toEqual([]);
      expect(await codeOf(optional(w.nl, 'configureHostLink')({ name, up: true }))).toBe('KERNEL');
      expect(await codeOf(optional(w.nl, 'configureHostLink')({ name: renamed, rename: other, up: true }))).toBe(
        'EXISTS',
      );
    });
  });
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIP, parseIP } from '../../model/addr/index.ts';
import {
  ifNameProblem,
  ipBytes,
  ipFromBytes,
  linkKind,
  planHostLink,
  planMovedLink,
  planPodLink,
  stateFromWire,
  vethLinkInfo,
} from './request.ts';
import type { PodLink } from './types.ts';

const LINK: PodLink = {
  hostIfName: '0123456789ab_h',
  netns: '/run/netns/pod',
  ifName: 'eth0',
  mac: '0a:58:0a:10:00:05',
  mtu: 1400,
  addresses: ['10.16.0.5/16', 'fd00:10:16::5/64'],
  routes: [{ dst: 'default', gw: '10.16.0.1' }, { dst: 'default', gw: 'fd00:10:16::1' }, { dst: '10.96.0.0/12' }],
};

describe('planPodLink', () => {
  it("turns a dual-stack pod link into the peer's MAC bytes and the helper's job, in order", () => {
    const r = planPodLink(LINK);
    expect(r).toEqual({
      ok: true,
      plan: {
        mac: [0x0a, 0x58, 0x0a, 0x10, 0x00, 0x05],
        job: {
          op: 'configure',
          ifName: 'eth0',
          addresses: [
            { family: 4, bytes: [10, 16, 0, 5], prefixlen: 16, label: '10.16.0.5/16' },
            {
              family: 6,
              bytes: [0xfd, 0, 0, 0x10, 0, 0x16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5],
              prefixlen: 64,
              label: 'fd00:10:16::5/64',
            },
          ],
          routes: [
            { family: 4, dstLen: 0, gw: [10, 16, 0, 1], label: 'default via 10.16.0.1' },
            {
              family: 6,
              dstLen: 0,
              gw: [0xfd, 0, 0, 0x10, 0, 0x16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
              label: 'default via fd00:10:16::1',
            },
            { family: 4, dst: [10, 96, 0, 0], dstLen: 12, label: '10.96.0.0/12' },
          ],
          lo: true,
        },
      },
    });
  });

  it('collects every problem, each with the path of its field', () => {
    const r = planPodLink({
      hostIfName: '0123456789abcdef_h',
      netns: 'pod',
      ifName: 'eth 0',
      mac: '0a:58:0a:10:00',
      mtu: 40,
      addresses: ['10.16.0.5', '10.16.0.6/16'],
      routes: [
        { dst: 'default' },
        { dst: '10.96.0.1/12' },
        { dst: '10.96.0.0/12', gw: 'fd00::1' },
        { dst: 'default', gw: 'nope' },
      ],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => [p.code, p.path])).toEqual([
      ['bad-ifname', 'hostIfName'],
      ['bad-ifname', 'ifName'],
      ['bad-netns', 'netns'],
      ['bad-mtu', 'mtu'],
      ['bad-mac', 'mac'],
      ['bad-address', 'addresses[0]'],
      ['bad-route', 'routes[0].gw'],
      ['bad-route', 'routes[1].dst'],
      ['bad-route', 'routes[2].gw'],
      ['bad-route', 'routes[3].gw'],
    ]);
    expect(r.problems[0]!.message).toBe('"0123456789abcdef_h" is 18 bytes, at most 15');
    expect(r.problems[7]!.message).toBe('"10.96.0.1/12" has host bits set');
  });
});

describe('route sources and tx checksum offload', () => {
  it("a route's src becomes RTA_PREFSRC bytes; txChecksumOff goes into the job", () => {
    const r = planPodLink({
      ...LINK,
      routes: [{ dst: '10.96.0.0/12', gw: '10.16.0.1', src: '10.16.0.5' }],
      txChecksumOff: true,
    });
    expect(r.ok && r.plan.job.routes).toEqual([
      {
        family: 4,
        dst: [10, 96, 0, 0],
        dstLen: 12,
        gw: [10, 16, 0, 1],
        src: [10, 16, 0, 5],
        label: '10.96.0.0/12 via 10.16.0.1 src 10.16.0.5',
      },
    ]);
    expect(r.ok && r.plan.job.txChecksumOff).toBe(true);
    expect(planPodLink(LINK).ok && 'txChecksumOff' in (planPodLink(LINK) as { plan: { job: object } }).plan.job).toBe(
      false,
    );
  });

  it('a src that is no address, or of the other family, is a problem at routes[i].src', () => {
    const r = planPodLink({
      ...LINK,
      routes: [
        { dst: 'default', gw: '10.16.0.1', src: 'fd00::5' },
        { dst: '10.96.0.0/12', src: 'x' },
      ],
    });
    expect(r.ok ? [] : r.problems.map((p) => [p.path, p.message])).toEqual([
      ['routes[0].src', '"fd00::5" is not of default\'s family'],
      ['routes[1].src', '"x" is not an IP address'],
    ]);
  });

  it('stateFromWire gives src back', () => {
    const s = stateFromWire({
      ifName: 'ovn0',
      mac: [0, 0, 0, 0, 0, 1],
      mtu: 1400,
      up: true,
      addresses: [],
      routes: [{ family: 4, dst: [10, 16, 0, 0], dstLen: 16, gw: [100, 64, 0, 1], src: [192, 168, 0, 2] }],
    });
    expect(s.routes).toEqual([{ dst: '10.16.0.0/16', gw: '100.64.0.1', src: '192.168.0.2' }]);
  });
});

describe('planMovedLink and planHostLink', () => {
  it('a moved link: renamed, MAC and MTU set in the namespace, lo up', () => {
    const r = planMovedLink({ ...LINK, name: 'enp3s0f0v0', addresses: ['10.16.0.5/16'], routes: [] });
    expect(r).toEqual({
      ok: true,
      plan: {
        op: 'configure',
        ifName: 'enp3s0f0v0',
        rename: 'eth0',
        mac: [0x0a, 0x58, 0x0a, 0x10, 0x00, 0x05],
        mtu: 1400,
        addresses: [{ family: 4, bytes: [10, 16, 0, 5], prefixlen: 16, label: '10.16.0.5/16' }],
        routes: [],
        lo: true,
      },
    });
  });

  it('a host link: only what is given, in the idempotent form; addresses left alone when not given', () => {
    expect(
      planHostLink({ name: 'ovn0', mtu: 1400, routes: [{ dst: '10.16.0.0/16', gw: '100.64.0.1' }], up: true }),
    ).toEqual({
      ok: true,
      plan: {
        op: 'configure',
        ifName: 'ovn0',
        mtu: 1400,
        addresses: [],
        replaceAddresses: false,
        routes: [
          { family: 4, dst: [10, 16, 0, 0], dstLen: 16, gw: [100, 64, 0, 1], label: '10.16.0.0/16 via 100.64.0.1' },
        ],
        replaceRoutes: true,
        up: true,
      },
    });
    const r = planHostLink({
      name: 'rep0',
      rename: '0123456789abcdef',
      mac: 'x',
      addresses: ['1.2.3.4/33'],
      up: false,
    });
    expect(r.ok ? [] : r.problems.map((p) => p.path)).toEqual(['rename', 'mac', 'addresses[0]']);
  });
});

describe('interface names (the kernel dev_valid_name)', () => {
  it.each([
    ['eth0', undefined],
    ['0123456789ab_h', undefined],
    ['', 'is empty'],
    ['0123456789abcdef', 'is 16 bytes, at most 15'],
    ['..', 'cannot be ".."'],
    ['a/b', 'contains "/", ":" or whitespace'],
    ['a:b', 'contains "/", ":" or whitespace'],
    ['ééééééé_h', 'is 16 bytes, at most 15'],
  ])('%j: %s', (name, problem) => {
    expect(ifNameProblem(name)).toBe(problem);
  });
});

describe('addresses as bytes', () => {
  it('ipBytes and ipFromBytes invert each other, and agree with the text form', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (text) => {
        const ip = parseIP(text);
        const bytes = ipBytes(ip);
        expect(bytes.length).toBe(ip.family === 4 ? 4 : 16);
        expect(formatIP(ipFromBytes(bytes)!)).toBe(formatIP(ip));
      }),
    );
  });

  it('a length of neither family is no address', () => {
    expect(ipFromBytes([1, 2, 3])).toBeUndefined();
  });
});

describe('stateFromWire', () => {
  it("reads the helper's report in the interface's words", () => {
    expect(
      stateFromWire({
        ifName: 'eth0',
        mac: [0x0a, 0x58, 0x0a, 0x10, 0x00, 0x05],
        mtu: 1400,
        up: true,
        addresses: [{ family: 6, bytes: ipBytes(parseIP('fd00::5')), prefixlen: 64 }],
        routes: [
          { family: 6, dstLen: 0, gw: ipBytes(parseIP('fd00::1')) },
          { family: 4, dst: [10, 96, 0, 0], dstLen: 12 },
        ],
      }),
    ).toEqual({
      ifName: 'eth0',
      mac: '0a:58:0a:10:00:05',
      mtu: 1400,
      up: true,
      addresses: ['fd00::5/64'],
      routes: [{ dst: 'default', gw: 'fd00::1' }, { dst: '10.96.0.0/12' }],
    });
  });
});

describe('vethLinkInfo', () => {
  it('is IFLA_LINKINFO of kind veth, with the peer (name, MAC, MTU, namespace fd) inside IFLA_INFO_DATA', () => {
    const info = vethLinkInfo({ peerName: 'eth0', peerMac: [10, 88, 0, 0, 0, 1], mtu: 1400, netnsFd: 23 });
    expect(linkKind(info)).toBe('veth');
    // The peer's attributes are there in the kernel's layout: IFLA_IFNAME (3) "eth0\0", IFLA_NET_NS_FD (28) = 23.
    expect(info.includes(Buffer.from([9, 0, 3, 0, 0x65, 0x74, 0x68, 0x30, 0]))).toBe(true);
    const fdAttr = Buffer.alloc(8);
    fdAttr.writeUInt16LE(8, 0);
    fdAttr.writeUInt16LE(28, 2);
    fdAttr.writeUInt32LE(23, 4);
    expect(info.includes(fdAttr)).toBe(true);
  });

  it('linkKind of a link without IFLA_LINKINFO is undefined', () => {
    expect(linkKind(undefined)).toBeUndefined();
    expect(linkKind(Buffer.alloc(0))).toBeUndefined();
  });
});

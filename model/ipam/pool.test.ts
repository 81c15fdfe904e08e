import { describe, expect, it } from 'vitest';
import { formatIPv4, formatIPv6 } from '../addr/index.ts';
import {
  IPAM,
  type AllocateRequest,
  type IPPoolSpec,
  ownerKey,
  parseIpPoolAnnotation,
  seededRandomBytes,
  statefulSetOrdinal,
} from './index.ts';

function setup(pools: IPPoolSpec[] = [], cidrBlock = '10.0.0.0/24'): IPAM {
  const ipam = new IPAM({ random: seededRandomBytes(3) });
  const s = ipam.setSubnet({ name: 's', cidrBlock });
  if (!s.ok) throw new Error(JSON.stringify(s.issues));
  for (const p of pools) {
    const r = ipam.setPool(p);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
  }
  return ipam;
}

const ip = (ipam: IPAM, owner: string, extra: Partial<AllocateRequest> = {}): string => {
  const r = ipam.allocate({ subnet: 's', owner, ...extra });
  if (!r.ok) return r.error.code;
  return [
    r.lease.v4 !== undefined ? formatIPv4(r.lease.v4) : undefined,
    r.lease.v6 !== undefined ? formatIPv6(r.lease.v6) : undefined,
  ]
    .filter(Boolean)
    .join(',');
};

describe('IPPools', () => {
  const pool: IPPoolSpec = {
    name: 'p1',
    subnet: 's',
    ips: ['10.0.0.2..10.0.0.3', '10.0.0.8/30'],
    namespaces: ['prod'],
  };

  it('keeps pool addresses away from everyone else', () => {
    const ipam = setup([pool]);
    expect(ip(ipam, 'a')).toBe('10.0.0.4');
    expect(ip(ipam, 'b')).toBe('10.0.0.5');
    expect(ip(ipam, 'c')).toBe('10.0.0.6');
    expect(ip(ipam, 'd')).toBe('10.0.0.7');
    expect(ip(ipam, 'e')).toBe('10.0.0.12');
  });

  it('hands pool addresses to pods that name the pool or live in its namespaces, lowest first', () => {
    const ipam = setup([pool]);
    expect(ip(ipam, 'a', { ipPool: 'p1' })).toBe('10.0.0.2');
    expect(ip(ipam, 'b', { namespace: 'prod' })).toBe('10.0.0.3');
    // A CIDR entry gives all of its addresses (Kube-OVN NewIPRangeFromCIDR), network and broadcast of the /30 too.
    expect(['c', 'd', 'e', 'f'].map((o) => ip(ipam, o, { namespace: 'prod' }))).toEqual([
      '10.0.0.8',
      '10.0.0.9',
      '10.0.0.10',
      '10.0.0.11',
    ]);
    expect(ip(ipam, 'g', { namespace: 'prod' })).toBe('exhausted');
    expect(ip(ipam, 'h', { namespace: 'dev' })).toBe('10.0.0.4');
    expect(ipam.counters('s', 'p1')).toEqual({ v4: { used: 6, available: 0 } });
  });

  it('refuses an unknown pool', () => {
    expect(ip(setup([pool]), 'a', { ipPool: 'nope' })).toBe('unknown-pool');
  });

  it('reports bad entries, entries outside the subnet and overlapping pools', () => {
    const ipam = setup([pool]);
    const codes = (spec: IPPoolSpec) => {
      const r = ipam.setPool(spec);
      return r.ok ? [] : r.issues.map((i) => [i.code, i.path.join('.')]);
    };
    expect(codes({ name: 'p2', subnet: 's', ips: ['10.0.1.0/30', 'x', '10.0.0.9'] })).toEqual([
      ['pool-ip-outside-cidr', 'ippools.p2.ips.0'],
      ['invalid-pool-ip', 'ippools.p2.ips.1'],
    ]);
    expect(codes({ name: 'p2', subnet: 's', ips: ['10.0.0.9'] })).toEqual([['pool-overlap', 'ippools.p2.ips']]);
    expect(codes({ name: 'p2', subnet: 'nope', ips: ['10.0.0.9'] })).toEqual([['unknown-subnet', 'ippools.p2.subnet']]);
  });

  it("returns a deleted pool's addresses to the default pool, keeping leases", () => {
    const ipam = setup([pool]);
    expect(ip(ipam, 'a', { ipPool: 'p1' })).toBe('10.0.0.2');
    expect(ipam.deletePool('s', 'p1')).toBe(true);
    expect(ip(ipam, 'b')).toBe('10.0.0.3');
    expect(ipam.lookup('a')?.v4).toBeDefined();
    expect(ipam.counters('s')!.v4!.used).toBe(2);
  });

  it('keeps an existing lease inside a pool created later, and keeps the reuse order', () => {
    const ipam = setup();
    expect(ip(ipam, 'a')).toBe('10.0.0.2');
    expect(ip(ipam, 'b')).toBe('10.0.0.3');
    ipam.release('b'); // .3 released
    expect(ipam.setPool({ name: 'p', subnet: 's', ips: ['10.0.0.2..10.0.0.5'] }).ok).toBe(true);
    expect(ipam.ownerOf('s', '10.0.0.2')).toBe('a');
    // .3 is still a released address: the pool gives its never-used ones first
    expect(ip(ipam, 'c', { ipPool: 'p' })).toBe('10.0.0.4');
    expect(ip(ipam, 'd', { ipPool: 'p' })).toBe('10.0.0.5');
    expect(ip(ipam, 'e', { ipPool: 'p' })).toBe('10.0.0.3');
  });

  it('works per family in a dual-stack subnet', () => {
    const ipam = setup([{ name: 'p', subnet: 's', ips: ['10.0.0.100', 'fd00::80'] }], '10.0.0.0/24,fd00::/120');
    expect(ip(ipam, 'a', { ipPool: 'p' })).toBe('10.0.0.100,fd00::80');
    expect(ip(ipam, 'b', { ipPool: 'p' })).toBe('exhausted');
  });
});

describe('ip_pool address lists and StatefulSet ordinals', () => {
  it('gives a StatefulSet pod the entry at its ordinal', () => {
    const ipam = setup();
    const list = '10.0.0.20;10.0.0.21;10.0.0.22';
    expect(ip(ipam, 'web-2.default', { ipPool: list, ordinal: 2 })).toBe('10.0.0.22');
    expect(ip(ipam, 'web-0.default', { ipPool: list, ordinal: 0 })).toBe('10.0.0.20');
    expect(ip(ipam, 'web-3.default', { ipPool: list, ordinal: 3 })).toBe('exhausted');
    // idempotent: the same pod keeps its entry
    expect(ip(ipam, 'web-2.default', { ipPool: list, ordinal: 2 })).toBe('10.0.0.22');
  });

  it('refuses a StatefulSet entry held by another owner with a Conflict', () => {
    const ipam = setup();
    expect(ip(ipam, 'other', { ips: '10.0.0.21' })).toBe('10.0.0.21');
    const r = ipam.allocate({ subnet: 's', owner: 'web-1.default', ipPool: '10.0.0.20,10.0.0.21', ordinal: 1 });
    expect(!r.ok && r.error).toMatchObject({ code: 'conflict', owner: 'other', address: '10.0.0.21' });
  });

  it('gives other pods the first entry nobody holds', () => {
    const ipam = setup();
    const list = '10.0.0.20,10.0.0.21,10.0.0.22';
    expect(ip(ipam, 'a', { ipPool: list })).toBe('10.0.0.20');
    expect(ip(ipam, 'b', { ipPool: list })).toBe('10.0.0.21');
    expect(ip(ipam, 'a', { ipPool: list })).toBe('10.0.0.20');
    expect(ip(ipam, 'c', { ipPool: list })).toBe('10.0.0.22');
    expect(ip(ipam, 'd', { ipPool: list })).toBe('conflict');
  });

  it('takes dual-stack entries as pairs', () => {
    const ipam = setup([], '10.0.0.0/24,fd00::/120');
    expect(ip(ipam, 'a', { ipPool: '10.0.0.20,fd00::20;10.0.0.21,fd00::21', ordinal: 1 })).toBe('10.0.0.21,fd00::21');
    expect(ip(ipam, 'b', { ipPool: '10.0.0.30,fd00::30' })).toBe('10.0.0.30,fd00::30');
  });

  it('parses the annotation like Kube-OVN', () => {
    expect(parseIpPoolAnnotation('pool-a')).toEqual({ kind: 'pool', name: 'pool-a' });
    expect(parseIpPoolAnnotation('10.0.0.1')).toEqual({ kind: 'ips', entries: ['10.0.0.1'] });
    expect(parseIpPoolAnnotation('10.0.0.1, 10.0.0.2')).toEqual({ kind: 'ips', entries: ['10.0.0.1', '10.0.0.2'] });
    expect(parseIpPoolAnnotation('10.0.0.1,fd00::1')).toEqual({ kind: 'ips', entries: ['10.0.0.1,fd00::1'] });
    expect(parseIpPoolAnnotation('10.0.0.1,fd00::1;10.0.0.2,fd00::2')).toEqual({
      kind: 'ips',
      entries: ['10.0.0.1,fd00::1', '10.0.0.2,fd00::2'],
    });
  });

  it('reads ordinals and builds owner keys', () => {
    expect(statefulSetOrdinal('web-12')).toBe(12);
    expect(statefulSetOrdinal('web')).toBeUndefined();
    expect(statefulSetOrdinal('web-01')).toBeUndefined();
    expect(ownerKey('web-0', 'default')).toBe('web-0.default');
    expect(ownerKey('web-0', 'default', 'ovn')).toBe('web-0.default');
    expect(ownerKey('web-0', 'default', 'net1.ns.ovn')).toBe('web-0.default.net1.ns.ovn');
  });
});

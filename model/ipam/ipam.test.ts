import { describe, expect, it } from 'vitest';
import { formatIPv4, formatIPv6, formatMAC, isLocalMAC, isMulticastMAC, parseIPv4 } from '../addr/index.ts';
import {
  Conflict,
  IPAM,
  type AllocateRequest,
  type AllocateResult,
  type Lease,
  type SubnetSpec,
  seededRandomBytes,
} from './index.ts';

function ipamWith(...specs: SubnetSpec[]): IPAM {
  const ipam = new IPAM({ random: seededRandomBytes(1) });
  for (const s of specs) {
    const r = ipam.setSubnet(s);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
  }
  return ipam;
}

function ok(r: AllocateResult): Lease {
  if (!r.ok) throw r.error;
  return r.lease;
}

const v4 = (l: Lease) => formatIPv4(l.v4!);
const alloc = (ipam: IPAM, owner: string, extra: Partial<AllocateRequest> = {}) =>
  ok(ipam.allocate({ subnet: extra.subnet ?? 's', owner, ...extra }));

describe('IPAM allocation', () => {
  it('gives the lowest free address, skipping network, gateway and excludes', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24', excludeIps: ['10.0.0.2..10.0.0.4', '10.0.0.6'] });
    expect(['a', 'b', 'c'].map((o) => v4(alloc(ipam, o)))).toEqual(['10.0.0.5', '10.0.0.7', '10.0.0.8']);
  });

  it('never hands out the IPv4 broadcast address and reports exhaustion', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/29' });
    const got = ['a', 'b', 'c', 'd', 'e'].map((o) => v4(alloc(ipam, o)));
    expect(got).toEqual(['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6']);
    const r = ipam.allocate({ subnet: 's', owner: 'f' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('exhausted');
    expect(ipam.lookup('f')).toBeUndefined();
  });

  it('reuses released addresses only after the never-used ones run out (Kube-OVN order)', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/29' });
    for (const o of ['a', 'b', 'c']) alloc(ipam, o); // .2 .3 .4
    ipam.release('a');
    ipam.release('b');
    expect(v4(alloc(ipam, 'd'))).toBe('10.0.0.5');
    expect(v4(alloc(ipam, 'e'))).toBe('10.0.0.6');
    // free list empty: the released ones, lowest first
    expect(v4(alloc(ipam, 'f'))).toBe('10.0.0.2');
    ipam.release('c'); // goes to the new released list, after .3
    expect(v4(alloc(ipam, 'g'))).toBe('10.0.0.3');
    expect(v4(alloc(ipam, 'h'))).toBe('10.0.0.4');
  });

  it('is idempotent per owner', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24' });
    const first = alloc(ipam, 'web-0.default');
    const again = alloc(ipam, 'web-0.default');
    expect(again).toEqual(first);
    expect(ipam.counters('s')!.v4!.used).toBe(1);
    expect(ipam.lookup('web-0.default')).toEqual(first);
  });

  it('refuses an owner that holds a lease in another subnet', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24' }, { name: 't', cidrBlock: '10.1.0.0/24' });
    alloc(ipam, 'a');
    const r = ipam.allocate({ subnet: 't', owner: 'a' });
    expect(!r.ok && r.error.code).toBe('owner-in-other-subnet');
  });

  it('reports an unknown subnet', () => {
    const r = new IPAM({ random: seededRandomBytes(1) }).allocate({ subnet: 'nope', owner: 'a' });
    expect(!r.ok && r.error.code).toBe('unknown-subnet');
  });

  it('releases, looks up and finds owners by address', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24' });
    const a = alloc(ipam, 'a');
    expect(ipam.ownerOf('s', '10.0.0.2')).toBe('a');
    expect(ipam.release('a')).toEqual(a);
    expect(ipam.release('a')).toBeUndefined();
    expect(ipam.ownerOf('s', '10.0.0.2')).toBeUndefined();
    expect(ipam.size).toBe(0);
  });
});

describe('static addresses and MACs', () => {
  it('allocates a requested address and raises a typed Conflict naming the holder', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24' });
    expect(v4(alloc(ipam, 'a', { ips: '10.0.0.50' }))).toBe('10.0.0.50');
    const r = ipam.allocate({ subnet: 's', owner: 'b', ips: '10.0.0.50' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf(Conflict);
    expect(r.error).toMatchObject({ code: 'conflict', owner: 'a', subnet: 's', address: '10.0.0.50', requester: 'b' });
    expect(r.error.message).toContain('"a"');
    expect(ipam.lookup('b')).toBeUndefined();
    // dynamic allocation skips the static address
    expect(v4(alloc(ipam, 'c'))).toBe('10.0.0.2');
  });

  it('refuses the gateway, network and broadcast, and addresses outside the subnet', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24' });
    const code = (ips: string) => {
      const r = ipam.allocate({ subnet: 's', owner: 'x', ips });
      return r.ok ? 'ok' : r.error.code;
    };
    expect(code('10.0.0.1')).toBe('reserved');
    expect(code('10.0.0.0')).toBe('reserved');
    expect(code('10.0.0.255')).toBe('reserved');
    expect(code('10.0.1.1')).toBe('out-of-range');
    expect(code('fd00::1')).toBe('family-mismatch');
    expect(code('10.0.0.300')).toBe('invalid-ip');
    expect(ipam.size).toBe(0);
  });

  it('allows an excluded address when asked for it, as Kube-OVN does, counting it as used', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24', excludeIps: ['10.0.0.2..10.0.0.9'] });
    const before = ipam.counters('s')!.v4!;
    expect(v4(alloc(ipam, 'a', { ips: '10.0.0.5' }))).toBe('10.0.0.5');
    expect(ipam.counters('s')!.v4).toEqual({ used: before.used + 1, available: before.available });
    ipam.release('a');
    expect(ipam.counters('s')!.v4).toEqual(before);
    expect(v4(alloc(ipam, 'b'))).toBe('10.0.0.10');
  });

  it('moves an owner to a newly requested address and frees the old one', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24' });
    alloc(ipam, 'a'); // .2
    expect(v4(alloc(ipam, 'a', { ips: '10.0.0.9' }))).toBe('10.0.0.9');
    expect(ipam.ownerOf('s', '10.0.0.2')).toBeUndefined();
    expect(ipam.counters('s')!.v4!.used).toBe(1);
  });

  it('gives a requested MAC and refuses it to a second owner', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24' });
    expect(formatMAC(alloc(ipam, 'a', { mac: '00:00:00:aa:bb:cc' }).mac)).toBe('00:00:00:aa:bb:cc');
    const r = ipam.allocate({ subnet: 's', owner: 'b', mac: '00:00:00:AA:BB:CC' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: 'conflict', owner: 'a', address: '00:00:00:aa:bb:cc' });
    const bad = ipam.allocate({ subnet: 's', owner: 'b', mac: '01:00:5e:00:00:01' });
    expect(!bad.ok && bad.error.code).toBe('invalid-mac');
    expect(ipam.counters('s')!.v4!.used).toBe(1);
  });

  it('changes the MAC of an existing lease on request', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24' });
    alloc(ipam, 'a');
    expect(formatMAC(alloc(ipam, 'a', { mac: '02:00:00:00:00:01' }).mac)).toBe('02:00:00:00:00:01');
    expect(formatMAC(ipam.lookup('a')!.mac)).toBe('02:00:00:00:00:01');
  });
});

describe('MACs from the injected random source', () => {
  it('are deterministic for a seed, locally administered and unicast', () => {
    const macs = (seed: number) => {
      const ipam = new IPAM({ random: seededRandomBytes(seed) });
      ipam.setSubnet({ name: 's', cidrBlock: '10.0.0.0/16' });
      return Array.from({ length: 200 }, (_, i) => alloc(ipam, `p${i}`).mac);
    };
    const a = macs(5);
    expect(macs(5)).toEqual(a);
    expect(macs(6)).not.toEqual(a);
    for (const m of a) {
      expect(isLocalMAC(m)).toBe(true);
      expect(isMulticastMAC(m)).toBe(false);
    }
  });

  it('are unique across subnets even when the source repeats itself', () => {
    // A source that cycles through 4 values: the IPAM must redraw on collision.
    let n = 0;
    const ipam = new IPAM({ random: (out) => out.fill(n++ % 4) });
    ipam.setSubnet({ name: 's', cidrBlock: '10.0.0.0/24' });
    ipam.setSubnet({ name: 't', cidrBlock: '10.1.0.0/24' });
    const macs = [
      alloc(ipam, 'a'),
      alloc(ipam, 'b', { subnet: 't' }),
      alloc(ipam, 'c'),
      alloc(ipam, 'd', { subnet: 't' }),
    ].map((l) => l.mac);
    expect(new Set(macs).size).toBe(4);
    // All four values are taken now: a fifth owner cannot get a MAC, and nothing changes.
    const r = ipam.allocate({ subnet: 's', owner: 'e' });
    expect(!r.ok && r.error.code).toBe('exhausted');
    expect(ipam.counters('s')!.v4!.used).toBe(2);
  });
});

describe('dual stack and IPv6', () => {
  it('gives each owner one address per family', () => {
    const ipam = ipamWith({ name: 'd', cidrBlock: '10.0.0.0/24,fd00:10::/120', excludeIps: ['fd00:10::2'] });
    const a = alloc(ipam, 'a', { subnet: 'd' });
    expect([v4(a), formatIPv6(a.v6!)]).toEqual(['10.0.0.2', 'fd00:10::3']);
    expect(ipam.counters('d')).toEqual({ v4: { used: 1, available: 252 }, v6: { used: 1n, available: 252n } });
  });

  it('completes a one-family request with the other family, and conflicts per family', () => {
    const ipam = ipamWith({ name: 'd', cidrBlock: '10.0.0.0/24,fd00:10::/120' });
    const a = alloc(ipam, 'a', { subnet: 'd', ips: 'fd00:10::50' });
    expect([v4(a), formatIPv6(a.v6!)]).toEqual(['10.0.0.2', 'fd00:10::50']);
    const r = ipam.allocate({ subnet: 'd', owner: 'b', ips: '10.0.0.9,fd00:10::50' });
    expect(!r.ok && r.error).toMatchObject({ code: 'conflict', owner: 'a', address: 'fd00:10::50' });
    expect(ipam.lookup('b')).toBeUndefined();
    expect(ipam.ownerOf('d', '10.0.0.9')).toBeUndefined();
  });

  it('counts a /64 exactly and costs nothing until used', () => {
    const ipam = ipamWith({ name: 'v6', cidrBlock: 'fd00:1::/64' });
    expect(ipam.counters('v6')).toEqual({ v6: { used: 0n, available: (1n << 64n) - 2n } });
    expect(ipam.subnet('v6')!.rangeCounts()).toEqual({ v6: 1 });
    expect(formatIPv6(alloc(ipam, 'a', { subnet: 'v6' }).v6!)).toBe('fd00:1::2');
    expect(formatIPv6(alloc(ipam, 'b', { subnet: 'v6', ips: 'fd00:1::ffff:ffff:ffff:ffff' }).v6!)).toBe(
      'fd00:1::ffff:ffff:ffff:ffff',
    );
    expect(ipam.counters('v6')).toEqual({ v6: { used: 2n, available: (1n << 64n) - 4n } });
    expect(ipam.subnet('v6')!.rangeCounts()).toEqual({ v6: 1 });
  });

  it('costs nothing for a /8 until used', () => {
    const ipam = ipamWith({ name: 'big', cidrBlock: '10.0.0.0/8' });
    expect(ipam.subnet('big')!.rangeCounts()).toEqual({ v4: 1 });
    expect(ipam.counters('big')!.v4!.available).toBe(2 ** 24 - 3);
    alloc(ipam, 'a', { subnet: 'big', ips: '10.200.0.1' });
    expect(ipam.subnet('big')!.rangeCounts()).toEqual({ v4: 2 });
    expect(ipam.counters('big')!.v4!.available).toBe(2 ** 24 - 4);
    // A lease costs its slot, not address space: 10,000 more leases in the /8 leave one free range.
    for (let i = 0; i < 10_000; i++) alloc(ipam, `p${i}`, { subnet: 'big' });
    expect(ipam.subnet('big')!.rangeCounts()).toEqual({ v4: 2 });
    expect(ipam.counters('big')!.v4).toEqual({ used: 10_001, available: 2 ** 24 - 3 - 10_001 });
  });
});

describe('subnet configuration', () => {
  it('refuses overlapping subnets in one VPC, and allows them in different VPCs', () => {
    const ipam = ipamWith({ name: 'a', cidrBlock: '10.0.0.0/16' });
    const r = ipam.setSubnet({ name: 'b', cidrBlock: '10.0.5.0/24' });
    expect(!r.ok && r.issues.map((i) => [i.code, i.path.join('.')])).toEqual([['cidr-overlap', 'subnets.b.cidrBlock']]);
    expect(ipam.subnet('b')).toBeUndefined();
    expect(ipam.setSubnet({ name: 'b', cidrBlock: '10.0.5.0/24', vpc: 'other' }).ok).toBe(true);
  });

  it('keeps leases on update, drops and lists those the new CIDR leaves out', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24' });
    alloc(ipam, 'a'); // .2
    alloc(ipam, 'b', { ips: '10.0.0.200' });
    const r = ipam.setSubnet({ name: 's', cidrBlock: '10.0.0.0/25' });
    expect(r.ok && r.dropped.map((d) => [d.owner, d.ips])).toEqual([['b', ['10.0.0.200']]]);
    expect(ipam.lookup('b')).toBeUndefined();
    expect(v4(ipam.lookup('a')!)).toBe('10.0.0.2');
    expect(ipam.counters('s')!.v4).toEqual({ used: 1, available: 124 });
    expect(v4(alloc(ipam, 'c'))).toBe('10.0.0.3');
  });

  it('refuses a gateway change onto a held address', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24' });
    alloc(ipam, 'a'); // .2
    const r = ipam.setSubnet({ name: 's', cidrBlock: '10.0.0.0/24', gateway: '10.0.0.2' });
    expect(!r.ok && r.issues[0]).toMatchObject({ code: 'gateway-in-use', owners: ['a'] });
  });

  it('fills the new family on the next allocate after a subnet becomes dual stack', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24' });
    alloc(ipam, 'a');
    expect(ipam.setSubnet({ name: 's', cidrBlock: '10.0.0.0/24,fd00::/120' }).ok).toBe(true);
    const a = alloc(ipam, 'a');
    expect([v4(a), formatIPv6(a.v6!)]).toEqual(['10.0.0.2', 'fd00::2']);
  });

  it('deletes a subnet with its leases', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24' });
    alloc(ipam, 'a');
    expect(ipam.deleteSubnet('s').map((d) => d.owner)).toEqual(['a']);
    expect(ipam.lookup('a')).toBeUndefined();
    expect(ipam.subnetNames()).toEqual([]);
  });

  it('uses numbers for IPv4 leases', () => {
    const ipam = ipamWith({ name: 's', cidrBlock: '10.0.0.0/24' });
    expect(alloc(ipam, 'a').v4).toBe(parseIPv4('10.0.0.2'));
  });
});

import { describe, expect, it } from 'vitest';
import { formatIPv4, isLocalMAC } from '../addr/index.ts';
import { IPAM, type AllocationRecord, seededRandomBytes } from './index.ts';

function fresh(): IPAM {
  const ipam = new IPAM({ random: seededRandomBytes(9) });
  ipam.setSubnet({ name: 's', cidrBlock: '10.0.0.0/24' });
  ipam.setSubnet({ name: 'd', cidrBlock: '10.1.0.0/24,fd00::/120' });
  return ipam;
}

const rec = (owner: string, ips: string[], mac?: string, subnet = 's'): AllocationRecord => ({
  owner,
  subnet,
  ips,
  ...(mac ? { mac } : {}),
});

describe('snapshot', () => {
  it('lists every lease as text, sorted by subnet then owner', () => {
    const ipam = fresh();
    ipam.allocate({ subnet: 's', owner: 'b', mac: '02:00:00:00:00:02' });
    ipam.allocate({ subnet: 's', owner: 'a', mac: '02:00:00:00:00:01' });
    ipam.allocate({ subnet: 'd', owner: 'z', mac: '02:00:00:00:00:03' });
    expect(ipam.snapshot()).toEqual([
      { owner: 'z', subnet: 'd', ips: ['10.1.0.2', 'fd00::2'], mac: '02:00:00:00:00:03' },
      { owner: 'a', subnet: 's', ips: ['10.0.0.3'], mac: '02:00:00:00:00:01' },
      { owner: 'b', subnet: 's', ips: ['10.0.0.2'], mac: '02:00:00:00:00:02' },
    ]);
  });
});

describe('restore', () => {
  it('rebuilds leases and counters; new allocations avoid restored addresses', () => {
    const ipam = fresh();
    const issues = ipam.restore([
      rec('a', ['10.0.0.2'], '02:00:00:00:00:01'),
      rec('b', ['10.0.0.4'], '02:00:00:00:00:02'),
    ]);
    expect(issues).toEqual([]);
    expect(ipam.counters('s')!.v4).toEqual({ used: 2, available: 251 });
    const r = ipam.allocate({ subnet: 's', owner: 'c' });
    expect(r.ok && formatIPv4(r.lease.v4!)).toBe('10.0.0.3');
    const again = ipam.allocate({ subnet: 's', owner: 'a' });
    expect(again.ok && formatIPv4(again.lease.v4!)).toBe('10.0.0.2');
  });

  it('reports both owners of a duplicate address: the first record keeps it, the second is not restored', () => {
    const ipam = fresh();
    const issues = ipam.restore([rec('a', ['10.0.0.5']), rec('b', ['10.0.0.5']), rec('c', ['10.0.0.6'])]);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      code: 'duplicate-ip',
      path: ['records', 1, 'ips', 0],
      subnet: 's',
      owners: ['a', 'b'],
      address: '10.0.0.5',
    });
    expect(issues[0]!.message).toContain('"a"');
    expect(issues[0]!.message).toContain('"b"');
    expect(ipam.ownerOf('s', '10.0.0.5')).toBe('a');
    expect(ipam.lookup('b')).toBeUndefined();
    expect(ipam.counters('s')!.v4!.used).toBe(2);
  });

  it('refuses a whole record with a duplicate in one family (no partial lease)', () => {
    const ipam = fresh();
    const issues = ipam.restore([
      rec('a', ['10.1.0.5', 'fd00::5'], undefined, 'd'),
      rec('b', ['10.1.0.6', 'fd00::5'], undefined, 'd'),
    ]);
    expect(issues.map((i) => i.code)).toEqual(['duplicate-ip']);
    expect(ipam.ownerOf('d', '10.1.0.6')).toBeUndefined();
    expect(ipam.counters('d')).toEqual({ v4: { used: 1, available: 252 }, v6: { used: 1n, available: 253n } });
  });

  it('reports duplicate MACs with both owners', () => {
    const ipam = fresh();
    const issues = ipam.restore([
      rec('a', ['10.0.0.5'], '02:00:00:00:00:01'),
      rec('b', ['10.0.0.6'], '02:00:00:00:00:01'),
    ]);
    expect(issues).toEqual([
      expect.objectContaining({ code: 'duplicate-mac', owners: ['a', 'b'], path: ['records', 1, 'mac'] }),
    ]);
    expect(ipam.lookup('b')).toBeUndefined();
  });

  it('reports unknown subnets, bad and outside addresses, reserved ones, bad MACs and duplicate owners', () => {
    const ipam = fresh();
    const issues = ipam.restore([
      rec('a', ['10.0.0.5'], undefined, 'nope'),
      rec('b', ['10.9.0.5']),
      rec('c', ['10.0.0.1']),
      rec('d', ['10.0.0.256']),
      rec('e', ['fd00::9']),
      rec('f', ['10.0.0.7'], 'zz'),
      rec('g', ['10.0.0.8']),
      rec('g', ['10.0.0.9']),
      rec('h', ['10.0.0.10', '10.0.0.11']),
    ]);
    expect(issues.map((i) => [i.code, i.path.join('.')])).toEqual([
      ['unknown-subnet', 'records.0.subnet'],
      ['ip-outside-subnet', 'records.1.ips.0'],
      ['ip-reserved', 'records.2.ips.0'],
      ['invalid-ip', 'records.3.ips.0'],
      ['family-mismatch', 'records.4.ips.0'],
      ['invalid-mac', 'records.5.mac'],
      ['duplicate-owner', 'records.7.owner'],
      ['invalid-ip', 'records.8.ips.1'],
    ]);
    expect(issues.every((i) => i.message.startsWith('record '))).toBe(true);
    expect(ipam.snapshot().map((r) => r.owner)).toEqual(['g']);
  });

  it('gives a new MAC to a record without one, and the missing family to a dual-stack record (reported)', () => {
    const ipam = fresh();
    const issues = ipam.restore([
      rec('a', ['10.1.0.9'], undefined, 'd'),
      rec('b', ['10.1.0.2', 'fd00::2'], undefined, 'd'),
    ]);
    expect(issues).toEqual([expect.objectContaining({ code: 'family-missing', path: ['records', 0, 'ips'] })]);
    const a = ipam.snapshot().find((r) => r.owner === 'a')!;
    // the missing family comes after every record is placed, so it cannot take b's fd00::2
    expect(a.ips).toEqual(['10.1.0.9', 'fd00::3']);
    expect(isLocalMAC(ipam.lookup('a')!.mac)).toBe(true);
  });

  it('replaces the previous state', () => {
    const ipam = fresh();
    ipam.allocate({ subnet: 's', owner: 'old' });
    ipam.restore([rec('new', ['10.0.0.3'])]);
    expect(ipam.lookup('old')).toBeUndefined();
    expect(ipam.counters('s')!.v4!.used).toBe(1);
  });

  it('keeps the reuse order across a restart when given the released addresses', () => {
    const ipam = fresh();
    for (const o of ['a', 'b', 'c']) ipam.allocate({ subnet: 's', owner: o });
    ipam.release('a'); // .2 released, .5 is the next never-used address
    const copy = fresh();
    expect(copy.restore(ipam.snapshot(), { released: ipam.released() })).toEqual([]);
    expect(ipam.released()).toEqual([{ subnet: 's', ranges: ['10.0.0.2'] }]);
    const next = (i: IPAM) => {
      const r = i.allocate({ subnet: 's', owner: 'd' });
      return r.ok ? formatIPv4(r.lease.v4!) : r.error.code;
    };
    expect(next(copy)).toBe('10.0.0.5');
    expect(next(ipam)).toBe('10.0.0.5');
    // Without them (as from pod annotations only) the lowest address is free again, as after a Kube-OVN restart.
    const plain = fresh();
    plain.restore(ipam.snapshot().filter((r) => r.owner !== 'd'));
    expect(next(plain)).toBe('10.0.0.2');
  });

  it('reports bad released entries', () => {
    const ipam = fresh();
    const issues = ipam.restore([], {
      released: [
        { subnet: 'nope', ranges: [] },
        { subnet: 's', ranges: ['10.0.0.9..10.0.0.2'] },
      ],
    });
    expect(issues.map((i) => [i.code, i.path.join('.')])).toEqual([
      ['unknown-subnet', 'released.0.subnet'],
      ['invalid-ip', 'released.1.ranges.0'],
    ]);
  });
});

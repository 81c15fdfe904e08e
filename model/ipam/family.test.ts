// One address family on request (the pod annotation ovn.kubernetes.io/ip_family).
import { describe, expect, it } from 'vitest';
import { formatIPv4, formatIPv6 } from '../addr/index.ts';
import { IPAM, type AllocateResult, type Lease, seededRandomBytes } from './index.ts';

function ipam(): IPAM {
  const i = new IPAM({ random: seededRandomBytes(1) });
  for (const s of [
    { name: 'dual', cidrBlock: '10.0.0.0/24,fd00::/120' },
    { name: 'v4', cidrBlock: '10.1.0.0/24' },
  ])
    if (!i.setSubnet(s).ok) throw new Error(s.name);
  return i;
}

const ok = (r: AllocateResult): Lease => {
  if (!r.ok) throw r.error;
  return r.lease;
};
const ips = (l: Lease) => [l.v4 === undefined ? '' : formatIPv4(l.v4), l.v6 === undefined ? '' : formatIPv6(l.v6)];

describe('IPAM: one family on request', () => {
  it('a dual-stack subnet gives that family only; the other family stays free for the next owner', () => {
    const i = ipam();
    expect(ips(ok(i.allocate({ subnet: 'dual', owner: 'a', family: 6 })))).toEqual(['', 'fd00::2']);
    expect(ips(ok(i.allocate({ subnet: 'dual', owner: 'b', family: 4 })))).toEqual(['10.0.0.2', '']);
    expect(ips(ok(i.allocate({ subnet: 'dual', owner: 'c' })))).toEqual(['10.0.0.3', 'fd00::3']);
    expect(i.counters('dual')).toMatchObject({ v4: { used: 2 }, v6: { used: 2n } });
  });

  it('an owner holding both families gives the other back when it asks for one', () => {
    const i = ipam();
    expect(ips(ok(i.allocate({ subnet: 'dual', owner: 'a' })))).toEqual(['10.0.0.2', 'fd00::2']);
    expect(ips(ok(i.allocate({ subnet: 'dual', owner: 'a', family: 6 })))).toEqual(['', 'fd00::2']);
    expect(i.counters('dual')).toMatchObject({ v4: { used: 0 }, v6: { used: 1n } });
    expect(i.lookup('a')?.v4).toBeUndefined();
  });

  it('refuses a family the subnet lacks, and a requested address of the other family, changing nothing', () => {
    const i = ipam();
    const r = i.allocate({ subnet: 'v4', owner: 'a', family: 6 });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.code).toBe('family-mismatch');
    const s = i.allocate({ subnet: 'dual', owner: 'a', family: 6, ips: '10.0.0.9' });
    expect(!s.ok && s.error.message).toMatch(/10\.0\.0\.9 does not match ip family IPv6/);
    expect(i.lookup('a')).toBeUndefined();
    expect(ips(ok(i.allocate({ subnet: 'dual', owner: 'a', family: 6, ips: 'fd00::9' })))).toEqual(['', 'fd00::9']);
  });
});

import { describe, expect, it } from 'vitest';
import { ippoolAddressSet, ippoolAddressSetName } from './ippool.ts';

describe("IPPool address set (Kube-OVN's ExpandIPPoolAddressesForOVN)", () => {
  it("names the set after the pool with '-' as '.', as IPPoolAddressSetName", () => {
    expect(ippoolAddressSetName('foo-bar-baz')).toBe('foo.bar.baz');
    expect(ippoolAddressSetName('foo--bar')).toBe('foo..bar');
  });

  it('a range as the fewest CIDRs, a CIDR as its network, single addresses without /32; sorted as Go sorts', () => {
    const r = ippoolAddressSet('ops-pool', ['10.16.0.200..10.16.0.203', '10.16.0.9', '10.16.1.7/24', ' 10.16.0.9 ']);
    expect(r.issues).toEqual([]);
    expect(r.value).toEqual({
      name: 'ops.pool',
      addresses: ['10.16.0.200/30', '10.16.0.9', '10.16.1.0/24'],
      externalIds: { ippool: 'ops-pool' },
    });
    expect(ippoolAddressSet('p', ['10.0.0.1..10.0.0.6']).value?.addresses).toEqual([
      '10.0.0.1',
      '10.0.0.2/31',
      '10.0.0.4/31',
      '10.0.0.6',
    ]);
    expect(ippoolAddressSet('p', ['fd00::1', 'fd00::4..fd00::7']).value?.addresses).toEqual(['fd00::1', 'fd00::4/126']);
  });

  it('mixed families or an entry that does not parse: no set, an issue naming the field', () => {
    const mixed = ippoolAddressSet('p', ['10.0.0.1', 'fd00::1']);
    expect(mixed.value).toBeUndefined();
    expect(mixed.issues.map((i) => [i.field, i.code])).toEqual([['spec.ips', 'invalid-value']]);
    const bad = ippoolAddressSet('p', ['10.0.0.9..10.0.0.1', '10.0.0.300']);
    expect(bad.issues.map((i) => i.field)).toEqual(['spec.ips[0]', 'spec.ips[1]']);
  });
});

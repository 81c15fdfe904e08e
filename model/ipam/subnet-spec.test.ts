import { describe, expect, it } from 'vitest';
import { parseIPv4, parseIPv6 } from '../addr/index.ts';
import { type SubnetSpec, parseSubnetSpec } from './subnet-spec.ts';

const codes = (spec: SubnetSpec) => {
  const r = parseSubnetSpec(spec);
  return r.ok ? [] : r.issues.map((i) => [i.code, i.path.join('.')]);
};

describe('parseSubnetSpec', () => {
  it('defaults the gateway to the first address after the network (Kube-OVN GetGwByCidr)', () => {
    const r = parseSubnetSpec({ name: 'ovn-default', cidrBlock: '10.16.0.0/16' });
    if (!r.ok) throw new Error('expected ok');
    expect(r.value.v4!.gateway).toBe(parseIPv4('10.16.0.1'));
    expect(r.value.v4!.fixed).toEqual([parseIPv4('10.16.0.0'), parseIPv4('10.16.0.1'), parseIPv4('10.16.255.255')]);
    expect(r.value.vpc).toBe('ovn-cluster');
    expect(r.value.v6).toBeUndefined();
  });

  it('reserves the IPv6 network address and gateway, not the last address', () => {
    const r = parseSubnetSpec({ name: 'v6', cidrBlock: 'fd00:10:16::/64', gateway: 'fd00:10:16::ff' });
    if (!r.ok) throw new Error('expected ok');
    expect(r.value.v6!.fixed).toEqual([parseIPv6('fd00:10:16::'), parseIPv6('fd00:10:16::ff')]);
  });

  it('treats /31 as point-to-point: no network or broadcast reservation', () => {
    const r = parseSubnetSpec({ name: 'ptp', cidrBlock: '10.0.0.0/31' });
    if (!r.ok) throw new Error('expected ok');
    expect(r.value.v4!.fixed).toEqual([parseIPv4('10.0.0.0')]);
  });

  it('accepts dual stack in either order, completing a one-family gateway like AppendGwByCidr', () => {
    const r = parseSubnetSpec({
      name: 'dual',
      cidrBlock: 'fd00::/120,10.0.0.0/24',
      gateway: '10.0.0.254',
      excludeIps: ['fd00::5..fd00::9', '10.0.0.7'],
    });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.value.v4!.gateway).toBe(parseIPv4('10.0.0.254'));
    expect(r.value.v6!.gateway).toBe(parseIPv6('fd00::1'));
    expect(r.value.v4!.excludes).toEqual([parseIPv4('10.0.0.7'), parseIPv4('10.0.0.7')]);
    expect(r.value.v6!.excludes).toEqual([parseIPv6('fd00::5'), parseIPv6('fd00::9')]);
  });

  it('merges overlapping and adjacent exclude entries', () => {
    const r = parseSubnetSpec({
      name: 's',
      cidrBlock: '10.0.0.0/24',
      excludeIps: ['10.0.0.10..10.0.0.20', '10.0.0.21', '10.0.0.15..10.0.0.16', '10.0.0.40'],
    });
    if (!r.ok) throw new Error('expected ok');
    expect(r.value.v4!.excludes).toEqual([
      parseIPv4('10.0.0.10'),
      parseIPv4('10.0.0.21'),
      parseIPv4('10.0.0.40'),
      parseIPv4('10.0.0.40'),
    ]);
  });

  it('reports malformed CIDRs, naming the subnet and field', () => {
    const r = parseSubnetSpec({ name: 'bad', cidrBlock: '10.16.0.0/33' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues[0]).toMatchObject({ code: 'invalid-cidr', path: ['subnets', 'bad', 'cidrBlock'], subnet: 'bad' });
    expect(r.issues[0]!.message).toContain('subnet "bad"');
    expect(r.issues[0]!.message).toContain('cidrBlock');
    expect(codes({ name: 'bad', cidrBlock: '10.16.0.1/16' })).toEqual([['invalid-cidr', 'subnets.bad.cidrBlock']]);
    expect(codes({ name: 'bad', cidrBlock: '10.0.0.0/8,10.1.0.0/16' })).toEqual([
      ['invalid-cidr', 'subnets.bad.cidrBlock'],
    ]);
    expect(codes({ name: 'bad', cidrBlock: '10.0.0.0/8,fd00::/64,fd01::/64' })).toEqual([
      ['invalid-cidr', 'subnets.bad.cidrBlock'],
    ]);
    expect(codes({ name: 'bad', cidrBlock: '10.0.0.1/32' })).toEqual([['invalid-cidr', 'subnets.bad.cidrBlock']]);
    expect(codes({ name: 'bad', cidrBlock: '' })).toEqual([['invalid-cidr', 'subnets.bad.cidrBlock']]);
  });

  it('reports bad gateways', () => {
    expect(codes({ name: 's', cidrBlock: '10.0.0.0/24', gateway: '10.0.1.1' })).toEqual([
      ['gateway-outside-cidr', 'subnets.s.gateway'],
    ]);
    expect(codes({ name: 's', cidrBlock: '10.0.0.0/24', gateway: '10.0.0.0' })).toEqual([
      ['gateway-outside-cidr', 'subnets.s.gateway'],
    ]);
    expect(codes({ name: 's', cidrBlock: '10.0.0.0/24', gateway: '10.0.0.255' })).toEqual([
      ['gateway-outside-cidr', 'subnets.s.gateway'],
    ]);
    expect(codes({ name: 's', cidrBlock: '10.0.0.0/24', gateway: 'fd00::1' })).toEqual([
      ['gateway-outside-cidr', 'subnets.s.gateway'],
    ]);
    expect(codes({ name: 's', cidrBlock: '10.0.0.0/24', gateway: 'gw' })).toEqual([
      ['invalid-gateway', 'subnets.s.gateway'],
    ]);
    expect(codes({ name: 's', cidrBlock: '10.0.0.0/24', gateway: '10.0.0.1,10.0.0.2' })).toEqual([
      ['invalid-gateway', 'subnets.s.gateway'],
    ]);
  });

  it('reports bad and out-of-CIDR excludeIps with their index, never clipping them', () => {
    expect(
      codes({
        name: 's',
        cidrBlock: '10.0.0.0/24',
        excludeIps: [
          '10.0.0.5',
          '10.0.0.9..10.0.0.3',
          'x',
          '10.0.0.1..fd00::1',
          '10.0.0.250..10.0.1.5',
          'fd00::1',
          '10.0.0.1..10.0.0.2..10.0.0.3',
        ],
      }),
    ).toEqual([
      ['invalid-exclude', 'subnets.s.excludeIps.1'],
      ['invalid-exclude', 'subnets.s.excludeIps.2'],
      ['invalid-exclude', 'subnets.s.excludeIps.3'],
      ['exclude-outside-cidr', 'subnets.s.excludeIps.4'],
      ['exclude-outside-cidr', 'subnets.s.excludeIps.5'],
      ['invalid-exclude', 'subnets.s.excludeIps.6'],
    ]);
  });

  it('reports a name that is not a DNS-1123 subdomain', () => {
    expect(codes({ name: 'Bad_Name', cidrBlock: '10.0.0.0/24' })).toEqual([['invalid-name', 'subnets.Bad_Name.name']]);
  });

  it('collects every issue at once', () => {
    expect(codes({ name: 's', cidrBlock: '10.0.0.0/24', gateway: 'x', excludeIps: ['y'] }).map((c) => c[0])).toEqual([
      'invalid-gateway',
      'invalid-exclude',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { printMatch } from '../../model/match/index.ts';
import { type AnpInput, anpAddressSetName, anpName, anpRows } from './admin-network-policy.ts';
import type { PolicyPod } from './network-policy.ts';

const pod = (port: string, ip: string, named: Record<string, number> = {}): PolicyPod => ({
  port,
  ips: [ip],
  namedPorts: new Map(Object.entries(named).map(([k, v]) => [k, { protocol: 'TCP' as const, port: v }])),
});
const api = pod('api.prod', '10.16.0.2', { http: 8080 });

const base: AnpInput = {
  baseline: false,
  name: 'prod-guard',
  priority: 20,
  selected: [api],
  ingress: [],
  egress: [],
  clusterPods: [],
  logActions: [],
  passesBefore: [],
};

const rows = (a: Partial<AnpInput>) => {
  const r = anpRows({ ...base, ...a });
  return { ...r, acls: r.acls.map((x) => ({ ...x, match: printMatch(x.match) })) };
};

describe('AdminNetworkPolicy rows, as Kube-OVN writes them', () => {
  it("names: anp-prefixed when the name does not start with a letter; '-' → '.' in port groups and sets", () => {
    expect(anpName('1-deny')).toBe('anp1-deny');
    expect(anpName('deny')).toBe('deny');
    expect(anpAddressSetName('prod.guard', 'ingress', 2, 'deny-dev', 'IPv4')).toBe(
      'prod.guard.ingress.2.deny.dev.IPv4',
    );
    const r = rows({ ingress: [{ name: 'deny-dev', action: 'Deny', addresses: ['10.16.0.5'] }] });
    expect(r.portGroup).toEqual({ name: 'prod.guard', ports: ['api.prod'], externalIds: { anp: 'prod-guard' } });
    expect(r.addressSets).toEqual([
      {
        name: 'prod.guard.ingress.0.deny.dev.IPv4',
        addresses: ['10.16.0.5'],
        externalIds: { anp: 'prod-guard/ingress' },
      },
      { name: 'prod.guard.ingress.0.deny.dev.IPv6', addresses: [], externalIds: { anp: 'prod-guard/ingress' } },
    ]);
  });

  it('priorities 30000 - 100 × priority - index; Allow allow-related, Deny drop; apply-after-lb on both', () => {
    const r = rows({
      ingress: [
        {
          name: 'a',
          action: 'Allow',
          addresses: ['10.16.0.5'],
          ports: [{ kind: 'number', protocol: 'UDP', port: 53 }],
        },
        { name: 'd', action: 'Deny', addresses: ['10.16.0.5'] },
      ],
      egress: [
        {
          name: 'e',
          action: 'Deny',
          addresses: ['203.0.113.0/24', '2001:db8::/64'],
          ports: [{ kind: 'range', protocol: 'TCP', start: 443, end: 444 }],
        },
      ],
    });
    expect(r.acls.map((a) => [a.name, a.direction, a.priority, a.action, a.match, a.options])).toEqual([
      [
        'anp/prod-guard/ingress/IPv4/0',
        'to-lport',
        28000,
        'allow-related',
        'outport == @prod.guard && ip && ip4.src == $prod.guard.ingress.0.a.IPv4 && udp.dst == 53',
        { 'apply-after-lb': 'true' },
      ],
      [
        'anp/prod-guard/ingress/IPv4/1',
        'to-lport',
        27999,
        'drop',
        'outport == @prod.guard && ip && ip4.src == $prod.guard.ingress.1.d.IPv4',
        { 'apply-after-lb': 'true' },
      ],
      [
        'anp/prod-guard/egress/IPv4/0',
        'from-lport',
        28000,
        'drop',
        'inport == @prod.guard && ip && ip4.dst == $prod.guard.egress.0.e.IPv4 && 443 <= tcp.dst <= 444',
        { 'apply-after-lb': 'true' },
      ],
      [
        'anp/prod-guard/egress/IPv6/0',
        'from-lport',
        28000,
        'drop',
        'inport == @prod.guard && ip && ip6.dst == $prod.guard.egress.0.e.IPv6 && 443 <= tcp.dst <= 444',
        { 'apply-after-lb': 'true' },
      ],
    ]);
  });

  it('a BANP: banp external ids and names, priorities 1800 - index', () => {
    const r = rows({
      baseline: true,
      name: 'default',
      priority: 0,
      ingress: [
        { name: 'x', action: 'Allow', addresses: ['10.16.0.4'] },
        { name: 'y', action: 'Deny', addresses: ['10.16.0.4'] },
      ],
    });
    expect(r.portGroup.externalIds).toEqual({ banp: 'default' });
    expect(r.addressSets[0]!.externalIds).toEqual({ banp: 'default/ingress' });
    expect(r.acls.map((a) => [a.name, a.priority, a.action])).toEqual([
      ['banp/default/ingress/IPv4/0', 1800, 'allow-related'],
      ['banp/default/ingress/IPv4/1', 1799, 'drop'],
    ]);
  });

  it('no addresses in a family: the sets, no ACL (Kube-OVN writes none)', () => {
    const r = rows({ ingress: [{ name: 'n', action: 'Deny', addresses: [] }] });
    expect(r.addressSets.length).toBe(2);
    expect(r.acls).toEqual([]);
  });

  it('log_acl_actions: the listed actions log, a drop at severity warning', () => {
    const r = rows({
      logActions: ['drop'],
      ingress: [
        { name: 'a', action: 'Allow', addresses: ['10.16.0.5'] },
        { name: 'd', action: 'Deny', addresses: ['10.16.0.6'] },
      ],
    });
    expect(r.acls.map((a) => [a.action, a.log, a.severity])).toEqual([
      ['allow-related', false, undefined],
      ['drop', true, 'warning'],
    ]);
  });

  it('Pass: no row of its own, excluded from later rules and from the ANPs after it', () => {
    const first = anpRows({
      ...base,
      name: 'pass-ops',
      priority: 10,
      ingress: [{ name: 'p', action: 'Pass', addresses: ['10.16.0.4'] }],
    });
    expect(first.acls).toEqual([]);
    expect(first.passes).toEqual([
      {
        direction: 'ingress',
        family: 'IPv4',
        match: 'ip4.dst == $pass.ops_ip4 && ip4.src == $pass.ops.ingress.0.p.IPv4',
      },
    ]);
    const r = rows({
      passesBefore: first.passes,
      ingress: [
        {
          name: 'p2',
          action: 'Pass',
          addresses: ['10.16.0.7'],
          ports: [{ kind: 'number', protocol: 'TCP', port: 80 }],
        },
        { name: 'd', action: 'Deny', addresses: ['10.16.0.4', '10.16.0.7'] },
      ],
      egress: [{ name: 'e', action: 'Deny', addresses: ['10.16.0.4'] }],
    });
    expect(r.acls.map((a) => a.match)).toEqual([
      'outport == @prod.guard && ip && ip4.src == $prod.guard.ingress.1.d.IPv4' +
        ' && !(ip4.dst == $pass.ops_ip4 && ip4.src == $pass.ops.ingress.0.p.IPv4)' +
        ' && !(ip4.dst == $prod.guard_ip4 && ip4.src == $prod.guard.ingress.0.p2.IPv4 && tcp.dst == 80)',
      // An ingress Pass leaves egress alone.
      'inport == @prod.guard && ip && ip4.dst == $prod.guard.egress.0.e.IPv4',
    ]);
  });

  it("namedPort: the destination pods' own number, by their addresses", () => {
    const other = pod('web.prod', '10.16.0.3', { http: 80 });
    const r = rows({
      selected: [api, other],
      ingress: [{ name: 'h', action: 'Allow', addresses: ['10.16.0.5'], ports: [{ kind: 'named', name: 'http' }] }],
    });
    expect(r.acls.map((a) => a.match)).toEqual([
      'outport == @prod.guard && ip && ip4.src == $prod.guard.ingress.0.h.IPv4 && tcp.dst == 80 && ip4.dst == {10.16.0.3}',
      'outport == @prod.guard && ip && ip4.src == $prod.guard.ingress.0.h.IPv4 && tcp.dst == 8080 && ip4.dst == {10.16.0.2}',
    ]);
  });
});

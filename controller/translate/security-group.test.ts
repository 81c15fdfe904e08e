import { describe, expect, it } from 'vitest';
import { printMatch } from '../../model/match/index.ts';
import type { SecurityGroupRule } from '../../kube/objects/objects.ts';
import { podSecurityGroups, securityGroupRows, sgAddressSet, sgPortGroup } from './security-group.ts';

const rule = (r: Partial<SecurityGroupRule>): SecurityGroupRule => ({
  at: 'spec.ingressRules[0]',
  ipVersion: 'ipv4',
  protocol: 'all',
  priority: 1,
  remoteType: 'address',
  remoteAddress: '10.0.0.0/8',
  remoteSecurityGroup: '',
  portRangeMin: 0,
  portRangeMax: 0,
  localAddress: '',
  sourcePortRangeMin: 0,
  sourcePortRangeMax: 0,
  policy: 'allow',
  ...r,
});

const rows = (ingress: SecurityGroupRule[], egress: SecurityGroupRule[] = [], known = ['g']) =>
  securityGroupRows({
    name: 'g',
    allowSameGroupTraffic: false,
    ingressRules: ingress,
    egressRules: egress,
    known: new Set(known),
  });
const ruleAcls = (t: ReturnType<typeof rows>) =>
  t.value.acls
    .filter((a) => a.priority > 2005)
    .map((a) => `${a.direction} ${a.priority} ${a.action} ${printMatch(a.match)}`);

describe("SecurityGroup rows (Kube-OVN's newSgRuleACL)", () => {
  it("names: '-' as '.' in the port group and the address sets", () => {
    expect(sgPortGroup('web-tier')).toBe('ovn.sg.web.tier');
    expect(sgAddressSet('web-tier', 'v6')).toBe('ovn.sg.web.tier.associated.v6');
  });

  it('ipv6 icmp, a local address with its source ports, a remote group, egress sides; drop for any other policy', () => {
    const t = rows(
      [
        rule({ ipVersion: 'ipv6', protocol: 'icmp', remoteAddress: 'fd00::/64', priority: 16384 }),
        rule({
          protocol: 'udp',
          localAddress: '10.16.0.5',
          portRangeMin: 53,
          portRangeMax: 53,
          sourcePortRangeMin: 1024,
          sourcePortRangeMax: 65535,
          policy: 'drop',
        }),
      ],
      [
        rule({
          remoteType: 'securityGroup',
          remoteSecurityGroup: 'g',
          protocol: 'tcp',
          portRangeMin: 1,
          portRangeMax: 9,
        }),
      ],
    );
    expect(t.issues).toEqual([]);
    expect(ruleAcls(t)).toEqual([
      'to-lport 2100 allow-related outport == @ovn.sg.g && ip6 && ip6.src == fd00::/64 && icmp6',
      'to-lport 18483 drop outport == @ovn.sg.g && ip4 && ip4.src == 10.0.0.0/8 && ip4.dst == 10.16.0.5 && 53 <= udp.dst <= 53 && 1024 <= udp.src <= 65535',
      'from-lport 18483 allow-related inport == @ovn.sg.g && ip4 && ip4.dst == $ovn.sg.g.associated.v4 && 1 <= tcp.dst <= 9',
    ]);
  });

  it('two rules of the same priority and match: the first kept, as Kube-OVN skips an ACL that exists', () => {
    const t = rows([rule({ policy: 'allow' }), rule({ policy: 'drop' })]);
    expect(ruleAcls(t)).toEqual(['to-lport 18483 allow-related outport == @ovn.sg.g && ip4 && ip4.src == 10.0.0.0/8']);
  });

  it('a pass rule or a remote group that does not exist is an issue naming the field (the caller fails closed)', () => {
    const t = rows([rule({ policy: 'pass' }), rule({ remoteType: 'securityGroup', remoteSecurityGroup: 'gone' })]);
    expect(t.issues.map((i) => [i.code, i.field])).toEqual([
      ['unsupported', 'spec.ingressRules[0].policy'],
      ['missing-reference', 'spec.ingressRules[0].remoteSecurityGroup'],
    ]);
  });

  it('reads the annotation as pod.go does: spaces removed, empty entries skipped', () => {
    expect(podSecurityGroups(' a, b ,,a')).toEqual(['a', 'b']);
    expect(podSecurityGroups(undefined)).toEqual([]);
  });
});

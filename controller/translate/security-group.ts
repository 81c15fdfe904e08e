/**
 * SecurityGroup → the port group, address sets and ACLs Kube-OVN writes
 * (pkg/controller/security_group.go handleAddOrUpdateSg, pkg/ovs/ovn-nb-acl.go
 * UpdateSgACL, CreateSgBaseACL, newSgRuleACL, CreateSgDenyAllACL; names from
 * pkg/ovs/util.go, priorities from pkg/util/const.go):
 * - port group `ovn.sg.<name>` (`-` → `.`), `external_ids` type=security_group,
 *   sg=<name>; its ports are the pods naming the group in
 *   `ovn.kubernetes.io/security_groups` (contributed by the pods);
 * - address sets `ovn.sg.<name>.associated.v4` / `.v6` of those pods' addresses;
 * - base ACLs at 2005, allow-related, both directions: ARP, IPv6 neighbour
 *   discovery, DHCPv4/v6, VRRP;
 * - `allowSameGroupTraffic`: allow-related at 2004, `ip4.src == $...associated.v4`
 *   (to-lport; `dst` from-lport), and the v6 twin;
 * - each rule at 18484 − priority (2100..18483): `outport == @pg && ip4 &&
 *   ip4.src == <remote>` (`inport`, `dst` on egress), `$<remote>.associated.vN`
 *   for a remote group, then `icmp4`/`icmp6` or `min <= tcp.dst <= max`;
 *   allow → allow-related, anything else → drop;
 * - the deny-all group `ovn.sg.kubeovn_deny_all` (drop at 2003 both ways,
 *   `outport == @pg && ip` / `inport == @pg && ip`) holds every port naming at
 *   least one existing group.
 * All above NetworkPolicy's 2000/2001 and the subnet ACLs (1000..1900): on
 * OVN 23.03 (no tiers) a group's rules decide before any NetworkPolicy.
 *
 * Where kovn differs: a `pass` rule (it needs ACL tiers, which 23.03 lacks)
 * or a remote group that does not exist fails the group closed (the caller
 * translates it with no rules: its pods keep only the base ACLs and the
 * deny-all drop); Kube-OVN refuses such a group before writing anything, so
 * its pods are not restricted at all.
 */
import { parseMatch, printMatch } from '../../model/match/index.ts';
import type { ACL, AddressSet, PortGroup } from '../../model/topology/index.ts';
import type { SecurityGroupRule } from '../../kube/objects/objects.ts';
import type { TranslateIssue, Translation } from './issues.ts';
import { dotted } from './names.ts';

/** SecurityGroup ACL priorities (pkg/util/const.go). */
export const SG_PRIORITY = {
  /** A rule's ACL priority is this minus the rule's priority (1..16384). */
  highest: 18484,
  base: 2005,
  sameGroup: 2004,
  denyAll: 2003,
} as const;

/** Kube-OVN's default drop group (util.DenyAllSecurityGroup). */
export const DENY_ALL_SG = 'kubeovn_deny_all';

/**
 * `ovn.sg.<name>` with `-` → `.` (GetSgPortGroupName).
 *
 * @example sgPortGroup('web-tier') // 'ovn.sg.web.tier'
 */
export const sgPortGroup = (sg: string): string => dotted(`ovn.sg.${sg}`);

/** `ovn.sg.<name>.associated.v4|v6` with `-` → `.` (GetSgV4AssociatedName, GetSgV6AssociatedName). */
export const sgAddressSet = (sg: string, family: 'v4' | 'v6'): string => dotted(`ovn.sg.${sg}.associated.${family}`);

export interface SecurityGroupInput {
  readonly name: string;
  readonly allowSameGroupTraffic: boolean;
  readonly ingressRules: readonly SecurityGroupRule[];
  readonly egressRules: readonly SecurityGroupRule[];
  /** The security groups that exist (a rule's remote group must be one). */
  readonly known: ReadonlySet<string>;
}

export interface SecurityGroupRows {
  readonly portGroup: PortGroup;
  readonly addressSets: readonly AddressSet[];
  readonly acls: readonly ACL[];
}

type Dir = 'ingress' | 'egress';
const aclDir = (d: Dir): ACL['direction'] => (d === 'ingress' ? 'to-lport' : 'from-lport');
const portSide = (d: Dir) => (d === 'ingress' ? 'outport' : 'inport');

function acl(pg: string, d: Dir, priority: number, match: string, action: ACL['action']): ACL {
  return {
    attachTo: { kind: 'port-group', name: pg },
    direction: aclDir(d),
    priority,
    match: parseMatch(match),
    action,
    log: false,
    options: {},
    externalIds: { parent: pg },
  };
}

/**
 * @example
 * securityGroupRows({ name: 'web', allowSameGroupTraffic: true, ingressRules: [], egressRules: [], known: new Set(['web']) })
 *   .value.portGroup.name // 'ovn.sg.web'
 */
export function securityGroupRows(sg: SecurityGroupInput): Translation<SecurityGroupRows> {
  const pg = sgPortGroup(sg.name);
  const issues: TranslateIssue[] = [];
  const acls: ACL[] = [];
  for (const d of ['ingress', 'egress'] as const) {
    acls.push(...baseAcls(pg, d));
    if (sg.allowSameGroupTraffic) {
      const side = d === 'ingress' ? 'src' : 'dst';
      for (const [ip, fam] of [
        ['ip4', 'v4'],
        ['ip6', 'v6'],
      ] as const) {
        const m = `${portSide(d)} == @${pg} && ${ip} && ${ip}.${side} == $${sgAddressSet(sg.name, fam)}`;
        acls.push(acl(pg, d, SG_PRIORITY.sameGroup, m, 'allow-related'));
      }
    }
    for (const rule of d === 'ingress' ? sg.ingressRules : sg.egressRules) {
      const issue = ruleIssue(sg, rule);
      if (issue !== undefined) issues.push(issue);
      else acls.push(ruleAcl(pg, d, rule));
    }
  }
  const externalIds = { sg: sg.name };
  return {
    value: {
      portGroup: { name: pg, ports: [], externalIds: { type: 'security_group', sg: sg.name } },
      addressSets: [
        { name: sgAddressSet(sg.name, 'v4'), addresses: [], externalIds },
        { name: sgAddressSet(sg.name, 'v6'), addresses: [], externalIds },
      ],
      acls: unique(acls),
    },
    issues,
  };
}

/** CreateSgBaseACL: ARP, ND, DHCP and VRRP, allowed at 2005 in each direction. */
function baseAcls(pg: string, d: Dir): ACL[] {
  const p = `${portSide(d)} == @${pg}`;
  const [v4src, v4dst, v6src, v6dst] = d === 'ingress' ? [67, 68, 547, 546] : [68, 67, 546, 547];
  const nd = d === 'ingress' ? '{130, 134, 135, 136}' : '{130, 133, 135, 136}';
  return [
    `${p} && arp`,
    `${p} && icmp6.type == ${nd} && icmp6.code == 0 && ip.ttl == 255`,
    `${p} && udp.src == ${v4src} && udp.dst == ${v4dst} && ip4`,
    `${p} && udp.src == ${v6src} && udp.dst == ${v6dst} && ip6`,
    `${p} && ip.proto == 112`,
  ].map((m) => acl(pg, d, SG_PRIORITY.base, m, 'allow-related'));
}

/** Why a rule cannot be written (the group then fails closed), or undefined. */
function ruleIssue(sg: SecurityGroupInput, rule: SecurityGroupRule): TranslateIssue | undefined {
  const object = `SecurityGroup/${sg.name}`;
  if (rule.policy === 'pass')
    return {
      code: 'unsupported',
      object,
      field: `${rule.at}.policy`,
      message: `${rule.at}.policy pass needs ACL tiers, which OVN 23.03 does not have`,
    };
  if (rule.remoteType === 'securityGroup' && !sg.known.has(rule.remoteSecurityGroup))
    return {
      code: 'missing-reference',
      object,
      field: `${rule.at}.remoteSecurityGroup`,
      message: `${rule.at}.remoteSecurityGroup ${rule.remoteSecurityGroup} does not exist`,
    };
  return undefined;
}

/** newSgRuleACL. */
function ruleAcl(pg: string, d: Dir, rule: SecurityGroupRule): ACL {
  const ip = rule.ipVersion === 'ipv6' ? 'ip6' : 'ip4';
  const [remoteSide, localSide] = d === 'ingress' ? ['src', 'dst'] : ['dst', 'src'];
  const remote =
    rule.remoteType === 'securityGroup'
      ? `$${sgAddressSet(rule.remoteSecurityGroup, ip === 'ip6' ? 'v6' : 'v4')}`
      : rule.remoteAddress;
  let m = `${portSide(d)} == @${pg} && ${ip} && ${ip}.${remoteSide} == ${remote}`;
  if (rule.localAddress !== '') m += ` && ${ip}.${localSide} == ${rule.localAddress}`;
  if (rule.protocol === 'icmp') m += ip === 'ip6' ? ' && icmp6' : ' && icmp4';
  if (rule.protocol === 'tcp' || rule.protocol === 'udp') {
    m += ` && ${rule.portRangeMin} <= ${rule.protocol}.dst <= ${rule.portRangeMax}`;
    if (rule.localAddress !== '')
      m += ` && ${rule.sourcePortRangeMin} <= ${rule.protocol}.src <= ${rule.sourcePortRangeMax}`;
  }
  const action = rule.policy === 'allow' ? 'allow-related' : 'drop';
  return acl(pg, d, SG_PRIORITY.highest - rule.priority, m, action);
}

/** One ACL per direction, priority and match, the first kept (Kube-OVN's newACL skips one that exists). */
function unique(acls: readonly ACL[]): ACL[] {
  const seen = new Set<string>();
  return acls.filter((a) => {
    const k = `${a.direction}|${a.priority}|${printMatch(a.match)}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * The deny-all group (initDefaultDenyAllSecurityGroup, CreateSgDenyAllACL):
 * its ports are contributed by the pods naming an existing group.
 */
export function denyAllRows(): { readonly portGroup: PortGroup; readonly acls: readonly ACL[] } {
  const pg = sgPortGroup(DENY_ALL_SG);
  return {
    portGroup: { name: pg, ports: [], externalIds: { type: 'security_group', sg: DENY_ALL_SG } },
    acls: [
      acl(pg, 'ingress', SG_PRIORITY.denyAll, `outport == @${pg} && ip`, 'drop'),
      acl(pg, 'egress', SG_PRIORITY.denyAll, `inport == @${pg} && ip`, 'drop'),
    ],
  };
}

/** The pod annotation naming its groups (pkg/util/const.go SecurityGroupAnnotationTemplate, provider ovn). */
export const SECURITY_GROUPS_ANNOTATION = 'ovn.kubernetes.io/security_groups';

/**
 * The groups a pod names in `ovn.kubernetes.io/security_groups` (spaces
 * removed, comma separated, empty entries skipped, as pod.go reads it).
 *
 * @example podSecurityGroups(' web, db ') // ['web', 'db']
 */
export function podSecurityGroups(annotation: string | undefined): string[] {
  if (annotation === undefined) return [];
  return [
    ...new Set(
      annotation
        .replaceAll(' ', '')
        .split(',')
        .filter((s) => s !== ''),
    ),
  ];
}

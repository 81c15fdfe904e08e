/**
 * kubeovn.io/v1 SecurityGroup (pkg/apis/kubeovn/v1/security-group.go) as a
 * typed view, checked as Kube-OVN's validateSgRule checks it
 * (pkg/controller/security_group.go): `ipVersion` ipv4 or ipv6, `priority`
 * 1..16384, an address remote that parses as an address or CIDR, tcp and udp
 * port ranges 1..65535 with min ≤ max, `tier` 0 or 1. What kovn refuses
 * beyond Kube-OVN (a protocol other than tcp, udp, icmp, all; a remote
 * address of the other family than `ipVersion`) is said in the issue and in
 * support/security-group.ts. A remote security group that does not exist is
 * the handler's to judge (it reads the other groups).
 */
import { tryParseCIDR, tryParseIP } from '../../model/addr/index.ts';
import type { KubeObject } from '../cluster/types.ts';
import { type Plain, Reader } from './decode.ts';
import { type Decoded, type Meta, meta, objName } from './meta.ts';
import { SECURITY_GROUP_SUPPORT } from './support/security-group.ts';

export type SgProtocol = 'all' | 'icmp' | 'tcp' | 'udp';
/** Kube-OVN's newSgRuleACL: allow → allow-related, pass → pass, anything else → drop. */
export type SgPolicy = 'allow' | 'pass' | 'drop';

export interface SecurityGroupRule {
  /** `spec.ingressRules[0]`: where the rule is, for messages. */
  readonly at: string;
  readonly ipVersion: 'ipv4' | 'ipv6';
  readonly protocol: SgProtocol;
  readonly priority: number;
  readonly remoteType: 'address' | 'securityGroup';
  readonly remoteAddress: string;
  readonly remoteSecurityGroup: string;
  readonly portRangeMin: number;
  readonly portRangeMax: number;
  readonly localAddress: string;
  readonly sourcePortRangeMin: number;
  readonly sourcePortRangeMax: number;
  readonly policy: SgPolicy;
}

export interface SecurityGroupView extends Meta {
  readonly allowSameGroupTraffic: boolean;
  readonly tier: number;
  readonly ingressRules: readonly SecurityGroupRule[];
  readonly egressRules: readonly SecurityGroupRule[];
}

const PROTOCOLS: readonly string[] = ['all', 'icmp', 'tcp', 'udp'];

/**
 * @example decodeSecurityGroup({ apiVersion: 'kubeovn.io/v1', kind: 'SecurityGroup', metadata: { name: 'web' },
 *   spec: { allowSameGroupTraffic: true } }).value.allowSameGroupTraffic // true
 */
export function decodeSecurityGroup(o: KubeObject): Decoded<SecurityGroupView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, SECURITY_GROUP_SUPPORT);
  const tier = r.int(spec, 'tier', 'spec') ?? 0;
  if (tier !== 0 && tier !== 1) r.issue('invalid-value', 'spec.tier', `spec.tier must be 0 or 1, got ${tier}`);
  const rules = (k: string) =>
    r.objs(spec, k, 'spec').flatMap((x) => {
      const rule = decodeRule(r, x.value, x.at);
      return rule === undefined ? [] : [rule];
    });
  return {
    value: {
      ...meta(o, r),
      allowSameGroupTraffic: r.bool(spec, 'allowSameGroupTraffic', 'spec') ?? false,
      tier,
      ingressRules: rules('ingressRules'),
      egressRules: rules('egressRules'),
    },
    issues: r.issues,
  };
}

/** One rule, or undefined (with its issues) when Kube-OVN would refuse it. */
function decodeRule(r: Reader, v: Plain, at: string): SecurityGroupRule | undefined {
  const before = r.issues.length;
  const bad = (field: string, message: string) => r.issue('invalid-value', `${at}.${field}`, message);
  const ipVersion = r.str(v, 'ipVersion', at) ?? '';
  if (ipVersion !== 'ipv4' && ipVersion !== 'ipv6')
    bad('ipVersion', `${at}.ipVersion must be ipv4 or ipv6, got ${JSON.stringify(ipVersion)}`);
  const priority = r.int(v, 'priority', at) ?? 0;
  if (priority < 1 || priority > 16384) bad('priority', `${at}.priority must be 1..16384, got ${priority}`);
  const protocol = r.str(v, 'protocol', at) || 'all';
  if (!PROTOCOLS.includes(protocol))
    bad(
      'protocol',
      `${at}.protocol must be tcp, udp, icmp or all, got ${JSON.stringify(protocol)} (Kube-OVN would match every protocol; kovn refuses it)`,
    );
  const remoteType = r.str(v, 'remoteType', at) ?? '';
  const remoteAddress = r.str(v, 'remoteAddress', at) ?? '';
  const remoteSecurityGroup = r.str(v, 'remoteSecurityGroup', at) ?? '';
  const family = ipVersion === 'ipv6' ? 'ipv6' : 'ipv4';
  if (remoteType === 'address') addressOk(r, remoteAddress, family, `${at}.remoteAddress`);
  else if (remoteType === 'securityGroup') {
    if (remoteSecurityGroup === '') bad('remoteSecurityGroup', `${at}.remoteSecurityGroup is required`);
  } else bad('remoteType', `${at}.remoteType must be address or securityGroup, got ${JSON.stringify(remoteType)}`);
  const localAddress = r.str(v, 'localAddress', at) ?? '';
  if (localAddress !== '') addressOk(r, localAddress, family, `${at}.localAddress`);
  const num = (k: string) => r.int(v, k, at) ?? 0;
  const ports = { min: num('portRangeMin'), max: num('portRangeMax') };
  const source = { min: num('sourcePortRangeMin'), max: num('sourcePortRangeMax') };
  if (protocol === 'tcp' || protocol === 'udp') {
    rangeOk(r, ports, at, 'portRange');
    if (localAddress !== '') rangeOk(r, source, at, 'sourcePortRange');
  }
  const p = r.str(v, 'policy', at) ?? '';
  const policy: SgPolicy = p === 'allow' || p === 'pass' ? p : 'drop';
  if (r.issues.length > before) return undefined;
  return {
    at,
    ipVersion: family,
    protocol: protocol as SgProtocol,
    priority,
    remoteType: remoteType as 'address' | 'securityGroup',
    remoteAddress,
    remoteSecurityGroup,
    portRangeMin: ports.min,
    portRangeMax: ports.max,
    localAddress,
    sourcePortRangeMin: source.min,
    sourcePortRangeMax: source.max,
    policy,
  };
}

/** An address or CIDR of the rule's family (Kube-OVN's CheckCidrs / IsValidIP; the family is kovn's check). */
function addressOk(r: Reader, value: string, family: 'ipv4' | 'ipv6', field: string): void {
  const parsed = value.includes('/') ? tryParseCIDR(value) : tryParseIP(value);
  if (parsed === undefined) {
    r.issue('invalid-value', field, `${field} must be an IP address or CIDR, got ${JSON.stringify(value)}`);
    return;
  }
  if ((family === 'ipv6') !== value.includes(':'))
    r.issue(
      'invalid-value',
      field,
      `${field} ${value} is not an ${family} address as ipVersion says (OVN would refuse the ACL's match)`,
    );
}

function rangeOk(r: Reader, p: { min: number; max: number }, at: string, name: string): void {
  const ok = (n: number) => n >= 1 && n <= 65535;
  if (!ok(p.min) || !ok(p.max))
    r.issue('invalid-value', `${at}.${name}Min`, `${at}.${name}Min/Max must be 1..65535, got ${p.min}..${p.max}`);
  else if (p.min > p.max)
    r.issue('invalid-value', `${at}.${name}Min`, `${at}.${name}Min ${p.min} is greater than ${name}Max ${p.max}`);
}

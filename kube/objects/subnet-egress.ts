/**
 * The Subnet's egress fields (pkg/apis/kubeovn/v1/subnet.go): `enableEcmp`,
 * `natOutgoingPolicyRules`, `externalEgressGateway` with its policy routing
 * priority and table, checked as Kube-OVN's ValidateSubnet checks them
 * (pkg/util/validator.go validateNatOutgoingPolicyRules): a malformed rule is
 * an `invalid-value` issue, so the Subnet is refused whole, never half-applied.
 */
import { tryParseCIDR, tryParseIP } from '../../model/addr/index.ts';
import type { Plain, Reader } from './decode.ts';

/** One `natOutgoingPolicyRules` entry: comma-separated IPs or CIDRs of one family; `nat` or `forward`. */
export interface NatOutgoingPolicyRule {
  readonly srcIPs: string;
  readonly dstIPs: string;
  readonly action: 'nat' | 'forward';
}

export interface SubnetEgressView {
  readonly enableEcmp: boolean;
  readonly natOutgoingPolicyRules: readonly NatOutgoingPolicyRule[];
  /** Comma-separated next hops ('' when unset). */
  readonly externalEgressGateway: string;
  readonly policyRoutingPriority: number;
  readonly policyRoutingTableID: number;
}

/** The family of a rule's IP list, or an error message (Kube-OVN's validateNatOutgoingPolicyRuleIPs). */
function ipsFamily(text: string): { family: 4 | 6 } | { error: string } {
  let family: 4 | 6 | undefined;
  for (const item of text.split(',')) {
    const a = tryParseIP(item) ?? tryParseCIDR(item);
    if (a === undefined) return { error: `${JSON.stringify(item)} is not an IP or a CIDR` };
    if (family !== undefined && family !== a.family) return { error: `${JSON.stringify(text)} mixes IPv4 and IPv6` };
    family = a.family;
  }
  return { family: family ?? 4 };
}

function ruleOf(r: Reader, v: Plain, at: string): NatOutgoingPolicyRule | undefined {
  const match = r.obj(v, 'match', at);
  const action = r.str(v, 'action', at) ?? '';
  if (action !== 'nat' && action !== 'forward') {
    r.issue('invalid-value', `${at}.action`, `${at}.action must be nat or forward, got ${JSON.stringify(action)}`);
    return undefined;
  }
  const families: number[] = [];
  const ips = { srcIPs: '', dstIPs: '' };
  for (const k of ['srcIPs', 'dstIPs'] as const) {
    const raw = r.str(match, k, `${at}.match`) ?? '';
    const text = raw.trim();
    if (text === '') continue;
    const f = ipsFamily(text);
    if ('error' in f) {
      r.issue('invalid-value', `${at}.match.${k}`, `${at}.match.${k}: ${f.error}`);
      return undefined;
    }
    families.push(f.family);
    // As written: the rule's ID hashes the spec's JSON (subnet-gateway.ts natRuleId).
    ips[k] = raw;
  }
  if (families.length === 2 && families[0] !== families[1]) {
    r.issue('invalid-value', `${at}.match`, `${at}.match: srcIPs and dstIPs are of different families`);
    return undefined;
  }
  return { ...ips, action };
}

/** Kube-OVN's ValidateSubnet checks of `externalEgressGateway` (pkg/util/validator.go), the message or undefined. */
function egressGatewayError(egw: string, spec: Plain | undefined): string | undefined {
  if (spec?.natOutgoing === true) return 'conflict configuration: natOutgoing and externalEgressGateway';
  if (egw !== egw.toLowerCase()) return `${egw}: an IPv6 address may not contain upper case`;
  const hops = egw.split(',');
  if (hops.length > 2) return `${egw}: at most one address per family`;
  const families = new Set<number>();
  for (const hop of hops) {
    const ip = tryParseIP(hop);
    if (ip === undefined) return `IP ${hop} in externalEgressGateway is not a valid address`;
    families.add(ip.family);
  }
  const cidrs = typeof spec?.cidrBlock === 'string' ? spec.cidrBlock.split(',') : [];
  const cidrFamilies = new Set<number>(cidrs.flatMap((c) => tryParseCIDR(c.trim())?.family ?? []));
  const same = families.size === cidrFamilies.size && [...families].every((f) => cidrFamilies.has(f));
  // A dual-stack subnet takes either family or both (Kube-OVN compares protocols unless the CIDR's is Dual).
  if (cidrFamilies.size === 1 && !same) return 'address family is conflict with CIDR';
  return undefined;
}

/**
 * @example decodeSubnetEgress(new Reader('Subnet/a'), { natOutgoingPolicyRules: [{ match: { dstIPs: '1.1.1.0/24' }, action: 'forward' }] })
 *   // { enableEcmp: false, natOutgoingPolicyRules: [{ srcIPs: '', dstIPs: '1.1.1.0/24', action: 'forward' }], ... }
 */
export function decodeSubnetEgress(r: Reader, spec: Plain | undefined): SubnetEgressView {
  const rules = r.objs(spec, 'natOutgoingPolicyRules', 'spec').flatMap((x) => ruleOf(r, x.value, x.at) ?? []);
  const egw = r.str(spec, 'externalEgressGateway', 'spec') ?? '';
  const bad = egw === '' ? undefined : egressGatewayError(egw, spec);
  if (bad !== undefined) r.issue('invalid-value', 'spec.externalEgressGateway', `spec.externalEgressGateway: ${bad}`);
  return {
    enableEcmp: r.bool(spec, 'enableEcmp', 'spec') ?? false,
    natOutgoingPolicyRules: rules,
    externalEgressGateway: egw,
    policyRoutingPriority: r.int(spec, 'policyRoutingPriority', 'spec') ?? 0,
    policyRoutingTableID: r.int(spec, 'policyRoutingTableID', 'spec') ?? 0,
  };
}

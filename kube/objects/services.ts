/**
 * kubeovn.io/v1 SwitchLBRule and Vip as typed views with the issues found
 * (decode.ts). Spec fields are Kube-OVN's (pkg/apis/kubeovn/v1/switch_lb_rule.go,
 * vip.go); what kovn does with each is in support/switch-lb-rule.ts and
 * support/vip.ts. A malformed value is a blocking issue naming the field:
 * the handler then writes nothing for the object (fail closed).
 */
import { tryParseIP } from '../../model/addr/index.ts';
import type { KubeObject } from '../cluster/types.ts';
import { type Plain, Reader } from './decode.ts';
import { type Decoded, type L4Protocol, type Meta, meta, objName } from './meta.ts';
import { SWITCH_LB_RULE_SUPPORT, VIP_SUPPORT } from './support/index.ts';

export interface SwitchLBRulePort {
  readonly name: string;
  readonly port: number;
  readonly targetPort: number;
  readonly protocol: L4Protocol;
}

export interface SwitchLBRuleView extends Meta {
  /** The VIP, one address or a comma-separated v4,v6 pair, as given. */
  readonly vip: string;
  /** Where its Service lives; Kube-OVN's default is `default`. */
  readonly ruleNamespace: string;
  /** `key:value` entries, as Kube-OVN writes them into the Service's selector. */
  readonly selector: Readonly<Record<string, string>>;
  readonly endpoints: readonly string[];
  readonly ports: readonly SwitchLBRulePort[];
  readonly sessionAffinity: 'ClientIP' | 'None';
}

const SLR_PROTOCOLS: readonly string[] = ['TCP', 'UDP', 'SCTP'];

/**
 * @example decodeSwitchLBRule(o).value.ports // [{ name: 'http', port: 8080, targetPort: 80, protocol: 'TCP' }]
 */
export function decodeSwitchLBRule(o: KubeObject): Decoded<SwitchLBRuleView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, SWITCH_LB_RULE_SUPPORT);
  const vip = r.str(spec, 'vip', 'spec') ?? '';
  if (vip === '') r.issue('missing-field', 'spec.vip', 'spec.vip is required');
  for (const a of vip === '' ? [] : vip.split(','))
    if (tryParseIP(a.trim()) === undefined)
      r.issue('invalid-value', 'spec.vip', `spec.vip ${JSON.stringify(a)} is not an IP address`);
  const selector: Record<string, string> = {};
  for (const [i, s] of (r.strs(spec, 'selector', 'spec') ?? []).entries()) {
    const kv = s.split(':');
    // Kube-OVN skips an entry that is not `key:value` (generateHeadlessService); kovn says so.
    if (kv.length !== 2 || kv[0]!.trim() === '')
      r.issue('invalid-value', `spec.selector[${i}]`, `spec.selector[${i}] ${JSON.stringify(s)} is not key:value`);
    else selector[kv[0]!.trim()] = kv[1]!.trim();
  }
  const endpoints = (r.strs(spec, 'endpoints', 'spec') ?? []).map((e) => e.trim());
  for (const [i, e] of endpoints.entries())
    if (tryParseIP(e) === undefined)
      r.issue(
        'invalid-value',
        `spec.endpoints[${i}]`,
        `spec.endpoints[${i}] ${JSON.stringify(e)} is not an IP address`,
      );
  const ports = r.objs(spec, 'ports', 'spec').flatMap((p): SwitchLBRulePort[] => {
    const port = r.port(p.value, 'port', p.at);
    const targetPort = r.port(p.value, 'targetPort', p.at);
    const protocol = r.str(p.value, 'protocol', p.at) || 'TCP';
    if (p.value.port == null) r.issue('missing-field', `${p.at}.port`, `${p.at}.port is required`);
    if (p.value.targetPort == null) r.issue('missing-field', `${p.at}.targetPort`, `${p.at}.targetPort is required`);
    if (!SLR_PROTOCOLS.includes(protocol))
      r.issue('invalid-value', `${p.at}.protocol`, `${p.at}.protocol must be TCP, UDP or SCTP, got ${protocol}`);
    if (port === undefined || targetPort === undefined || !SLR_PROTOCOLS.includes(protocol)) return [];
    return [{ name: r.str(p.value, 'name', p.at) ?? '', port, targetPort, protocol: protocol as L4Protocol }];
  });
  const affinity = r.str(spec, 'sessionAffinity', 'spec') ?? '';
  if (affinity !== '' && affinity !== 'ClientIP' && affinity !== 'None')
    r.issue('invalid-value', 'spec.sessionAffinity', `spec.sessionAffinity must be ClientIP or None, got ${affinity}`);
  return {
    value: {
      ...meta(o, r),
      vip,
      ruleNamespace: r.str(spec, 'namespace', 'spec') || 'default',
      selector,
      endpoints,
      ports,
      sessionAffinity: affinity === 'ClientIP' ? 'ClientIP' : 'None',
    },
    issues: r.issues,
  };
}

/** Kube-OVN's Vip types (pkg/util/const.go): '' an allowed-address-pair VIP, `switch_lb_vip` a SwitchLBRule's. */
export type VipType = '' | 'switch_lb_vip';

export interface VipView extends Meta {
  readonly vipNamespace: string;
  readonly subnet: string;
  readonly type: VipType;
  readonly v4ip: string;
  readonly v6ip: string;
  readonly macAddress: string;
  /** `key:value` entries: the pods (with the Vip in their `aaps`) that are its virtual parents. */
  readonly selector: Readonly<Record<string, string>>;
}

/**
 * @example decodeVip(o).value // { subnet: 'net1', type: 'switch_lb_vip', v4ip: '192.168.0.100', ... }
 */
export function decodeVip(o: KubeObject): Decoded<VipView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, VIP_SUPPORT);
  const subnet = r.str(spec, 'subnet', 'spec') ?? '';
  if (subnet === '')
    r.issue('missing-field', 'spec.subnet', 'spec.subnet is required (Kube-OVN: "subnet should be set")');
  const type = r.str(spec, 'type', 'spec') ?? '';
  if (type !== '' && type !== 'switch_lb_vip')
    r.issue('invalid-value', 'spec.type', `spec.type ${JSON.stringify(type)} is not '' or switch_lb_vip`);
  const v4ip = r.str(spec, 'v4ip', 'spec') ?? '';
  const v6ip = r.str(spec, 'v6ip', 'spec') ?? '';
  if (v4ip !== '' && tryParseIP(v4ip)?.family !== 4)
    r.issue('invalid-value', 'spec.v4ip', `spec.v4ip ${JSON.stringify(v4ip)} is not an IPv4 address`);
  if (v6ip !== '' && (tryParseIP(v6ip)?.family !== 6 || v6ip !== v6ip.toLowerCase()))
    r.issue('invalid-value', 'spec.v6ip', `spec.v6ip ${JSON.stringify(v6ip)} is not a lower-case IPv6 address`);
  const selector: Record<string, string> = {};
  for (const s of r.strs(spec, 'selector', 'spec') ?? []) {
    const kv = s.split(':');
    if (kv.length === 2) selector[kv[0]!.trim()] = kv[1]!.trim();
  }
  return {
    value: {
      ...meta(o, r),
      vipNamespace: r.str(spec, 'namespace', 'spec') ?? '',
      subnet,
      type: type === 'switch_lb_vip' ? 'switch_lb_vip' : '',
      v4ip,
      v6ip,
      macAddress: r.str(spec, 'macAddress', 'spec') ?? '',
      selector,
    },
    issues: r.issues,
  };
}

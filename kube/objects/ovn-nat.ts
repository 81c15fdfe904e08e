/**
 * The kubeovn.io/v1 kinds of OVN-native north-south NAT (OvnEip, OvnFip,
 * OvnSnatRule, OvnDnatRule) as typed views with the issues found
 * (decode.ts); spec fields are Kube-OVN's (pkg/apis/kubeovn/v1/ovn-eip.go,
 * ovn-fip.go, ovn-snat-rule.go, ovn-dnat-rule.go), and what kovn does with
 * each is in support/ovn-nat.ts. Values are checked where they are used
 * (controller/translate/ovn-nat.ts), since several depend on other objects.
 */
import type { KubeObject } from '../cluster/types.ts';
import { type Plain, Reader } from './decode.ts';
import { type Decoded, type Meta, meta, objName } from './meta.ts';
import type { KindSupport } from './support.ts';
import { OVN_DNAT_RULE_SUPPORT, OVN_EIP_SUPPORT, OVN_FIP_SUPPORT, OVN_SNAT_RULE_SUPPORT } from './support/ovn-nat.ts';

export interface OvnEipView extends Meta {
  readonly externalSubnet: string;
  readonly v4Ip: string;
  readonly v6Ip: string;
  readonly macAddress: string;
  /** '' (nat), `nat`, `lrp` (a VPC's gateway port), `lsp`. */
  readonly type: string;
}

export interface OvnFipView extends Meta {
  readonly ovnEip: string;
  readonly ipType: string;
  readonly ipName: string;
  readonly vpc: string;
  readonly v4Ip: string;
  readonly v6Ip: string;
  /** `distributed` or `centralized` ('' : the cluster's external gateway type). */
  readonly type: string;
}

export interface OvnSnatRuleView extends Meta {
  readonly ovnEip: string;
  readonly vpcSubnet: string;
  readonly ipName: string;
  readonly vpc: string;
  readonly v4IpCidr: string;
  readonly v6IpCidr: string;
}

export interface OvnDnatRuleView extends Meta {
  readonly ovnEip: string;
  readonly ipType: string;
  readonly ipName: string;
  readonly internalPort: string;
  readonly externalPort: string;
  readonly protocol: string;
  readonly vpc: string;
  readonly v4Ip: string;
  readonly v6Ip: string;
}

/** Reads `keys` of `spec` as strings ('' when unset). */
function strings<K extends string>(o: KubeObject, table: KindSupport, keys: readonly K[]) {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, table);
  const out = {} as Record<K, string>;
  for (const k of keys) out[k] = r.str(spec, k, 'spec') ?? '';
  return { r, out };
}

/** @example decodeOvnEip({ kind: 'OvnEip', metadata: { name: 'eip1' }, spec: { v4Ip: '172.18.0.10' } }).value.v4Ip // '172.18.0.10' */
export function decodeOvnEip(o: KubeObject): Decoded<OvnEipView> {
  const { r, out } = strings(o, OVN_EIP_SUPPORT, ['externalSubnet', 'v4Ip', 'v6Ip', 'macAddress', 'type'] as const);
  return { value: { ...meta(o, r), ...out }, issues: r.issues };
}

/** @example decodeOvnFip({ kind: 'OvnFip', metadata: { name: 'f' }, spec: { ovnEip: 'eip1', ipName: 'web.ns' } }).value.ipName // 'web.ns' */
export function decodeOvnFip(o: KubeObject): Decoded<OvnFipView> {
  const keys = ['ovnEip', 'ipType', 'ipName', 'vpc', 'v4Ip', 'v6Ip', 'type'] as const;
  const { r, out } = strings(o, OVN_FIP_SUPPORT, keys);
  return { value: { ...meta(o, r), ...out }, issues: r.issues };
}

/** @example decodeOvnSnatRule({ kind: 'OvnSnatRule', metadata: { name: 's' }, spec: { ovnEip: 'e', vpcSubnet: 'net1' } }).value.vpcSubnet // 'net1' */
export function decodeOvnSnatRule(o: KubeObject): Decoded<OvnSnatRuleView> {
  const keys = ['ovnEip', 'vpcSubnet', 'ipName', 'vpc', 'v4IpCidr', 'v6IpCidr'] as const;
  const { r, out } = strings(o, OVN_SNAT_RULE_SUPPORT, keys);
  return { value: { ...meta(o, r), ...out }, issues: r.issues };
}

/** @example decodeOvnDnatRule({ kind: 'OvnDnatRule', metadata: { name: 'd' }, spec: { externalPort: '80' } }).value.externalPort // '80' */
export function decodeOvnDnatRule(o: KubeObject): Decoded<OvnDnatRuleView> {
  const keys = [
    'ovnEip',
    'ipType',
    'ipName',
    'internalPort',
    'externalPort',
    'protocol',
    'vpc',
    'v4Ip',
    'v6Ip',
  ] as const;
  const { r, out } = strings(o, OVN_DNAT_RULE_SUPPORT, keys);
  return { value: { ...meta(o, r), ...out }, issues: r.issues };
}

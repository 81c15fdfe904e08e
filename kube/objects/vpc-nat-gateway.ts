/**
 * kubeovn.io/v1 VpcNatGateway and the four iptables kinds of its gateway
 * pod as typed views with the issues found (decode.ts). Field names are
 * Kube-OVN's (pkg/apis/kubeovn/v1/vpc-nat-gateway.go, iptables-eip.go,
 * iptables-fip-rule.go, iptables-snat-rule.go, iptables-dnat-rule.go); what
 * kovn does with each is in support/vpc-nat-gateway.ts.
 */
import type { KubeObject } from '../cluster/types.ts';
import { type Plain, Reader } from './decode.ts';
import { type Decoded, type Meta, meta, objName } from './meta.ts';
import {
  IPTABLES_DNAT_RULE_SUPPORT,
  IPTABLES_EIP_SUPPORT,
  IPTABLES_FIP_RULE_SUPPORT,
  IPTABLES_SNAT_RULE_SUPPORT,
  VPC_NAT_GATEWAY_SUPPORT,
} from './support/vpc-nat-gateway.ts';

export interface VpcNatGatewayView extends Meta {
  readonly vpc: string;
  readonly subnet: string;
  readonly lanIp: string;
  /** Where its StatefulSet lives ('' = the controller's namespace, kube-system). */
  readonly podNamespace: string;
  readonly externalSubnets: readonly string[];
  /** `key: value` entries, Kube-OVN's GenNatGwSelectors. */
  readonly selector: readonly string[];
  readonly tolerations: readonly Plain[];
  readonly affinity?: Plain;
  /** As given (0 when unset: one pod, Kube-OVN's getNatGwReplicas). */
  readonly replicas: number;
}

/**
 * @example decodeVpcNatGateway(o).value.lanIp // '10.0.1.254'
 */
export function decodeVpcNatGateway(o: KubeObject): Decoded<VpcNatGatewayView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, VPC_NAT_GATEWAY_SUPPORT);
  const affinity = r.obj(spec, 'affinity', 'spec');
  return {
    value: {
      ...meta(o, r),
      vpc: r.str(spec, 'vpc', 'spec') ?? '',
      subnet: r.str(spec, 'subnet', 'spec') ?? '',
      lanIp: r.str(spec, 'lanIp', 'spec') ?? '',
      podNamespace: r.str(spec, 'namespace', 'spec') ?? '',
      externalSubnets: r.strs(spec, 'externalSubnets', 'spec') ?? [],
      selector: r.strs(spec, 'selector', 'spec') ?? [],
      tolerations: r.objs(spec, 'tolerations', 'spec').map((t) => t.value),
      ...(affinity !== undefined ? { affinity } : {}),
      replicas: r.int(spec, 'replicas', 'spec') ?? 0,
    },
    issues: r.issues,
  };
}

export interface IptablesEIPView extends Meta {
  readonly v4ip: string;
  readonly natGwDp: string;
  readonly externalSubnet: string;
}

/** @example decodeIptablesEIP(o).value.natGwDp // 'gw1' */
export function decodeIptablesEIP(o: KubeObject): Decoded<IptablesEIPView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, IPTABLES_EIP_SUPPORT);
  return {
    value: {
      ...meta(o, r),
      v4ip: r.str(spec, 'v4ip', 'spec') ?? '',
      natGwDp: r.str(spec, 'natGwDp', 'spec') ?? '',
      externalSubnet: r.str(spec, 'externalSubnet', 'spec') || 'ovn-vpc-external-network',
    },
    issues: r.issues,
  };
}

/** The three NAT rules of a gateway pod, one view: which fields a kind has is its `kind`. */
export type IptablesRuleView = Meta & { readonly eip: string } & (
    | { readonly kind: 'IptablesFIPRule'; readonly internalIp: string }
    | { readonly kind: 'IptablesSnatRule'; readonly internalCIDR: string }
    | {
        readonly kind: 'IptablesDnatRule';
        readonly externalPort: string;
        readonly protocol: string;
        readonly internalIp: string;
        readonly internalPort: string;
      }
  );

const RULE_SUPPORT = {
  IptablesFIPRule: IPTABLES_FIP_RULE_SUPPORT,
  IptablesSnatRule: IPTABLES_SNAT_RULE_SUPPORT,
  IptablesDnatRule: IPTABLES_DNAT_RULE_SUPPORT,
} as const;

/**
 * An IptablesFIPRule, IptablesSnatRule or IptablesDnatRule, by its `kind`.
 *
 * @example decodeIptablesRule(o).value.eip // 'eip-1'
 */
export function decodeIptablesRule(o: KubeObject): Decoded<IptablesRuleView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  const kind = o.kind as keyof typeof RULE_SUPPORT;
  r.support(o as unknown as Plain, RULE_SUPPORT[kind] ?? IPTABLES_FIP_RULE_SUPPORT);
  const base = { ...meta(o, r), eip: r.str(spec, 'eip', 'spec') ?? '' };
  const s = (k: string) => r.str(spec, k, 'spec') ?? '';
  const value: IptablesRuleView =
    kind === 'IptablesSnatRule'
      ? { ...base, kind, internalCIDR: s('internalCIDR') }
      : kind === 'IptablesDnatRule'
        ? {
            ...base,
            kind,
            externalPort: s('externalPort'),
            protocol: (r.str(spec, 'protocol', 'spec') || 'tcp').toLowerCase(),
            internalIp: s('internalIp'),
            internalPort: s('internalPort'),
          }
        : { ...base, kind: 'IptablesFIPRule', internalIp: s('internalIp') };
  return { value, issues: r.issues };
}

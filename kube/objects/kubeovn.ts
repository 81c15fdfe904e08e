/**
 * The kubeovn.io/v1 objects the controller reads (Subnet, Vpc, IPPool, IP)
 * as typed views with the issues found (decode.ts); spec fields are
 * Kube-OVN's (pkg/apis/kubeovn/v1/subnet.go, vpc.go, ippool.go, ip.go), and
 * what kovn does with each is in support/*.ts.
 */
import type { KubeObject } from '../cluster/types.ts';
import { type Plain, Reader } from './decode.ts';
import { type Decoded, type LabelSelector, type Meta, meta, objName, selectorOf } from './meta.ts';
import { IP_SUPPORT, IPPOOL_SUPPORT, SUBNET_SUPPORT, VPC_SUPPORT } from './support/index.ts';
import { decodeSubnetEgress, type SubnetEgressView } from './subnet-egress.ts';

export interface SubnetView extends Meta, SubnetEgressView {
  readonly default: boolean;
  readonly vpc: string;
  readonly protocol: string;
  readonly cidrBlock: string;
  readonly gateway?: string;
  readonly excludeIps: readonly string[];
  readonly provider: string;
  readonly namespaces: readonly string[];
  readonly namespaceSelectors: readonly LabelSelector[];
  readonly gatewayType: 'distributed' | 'centralized';
  readonly gatewayNode: string;
  /** Gateway nodes by label, when `gatewayNode` is empty (Kube-OVN's getGatewayNodes). */
  readonly gatewayNodeSelectors: readonly LabelSelector[];
  readonly natOutgoing: boolean;
  readonly private: boolean;
  readonly allowSubnets: readonly string[];
  readonly acls: readonly { direction?: string; priority?: number; match?: string; action?: string }[];
  readonly allowEWTraffic: boolean;
  readonly enableLb: boolean;
  readonly mtu?: number;
  /** An underlay subnet's Vlan ('' for an overlay subnet). */
  readonly vlan: string;
  readonly logicalGateway: boolean;
  readonly u2oInterconnection: boolean;
  /** The u2o router port's address(es) as given ('' to allocate). */
  readonly u2oInterconnectionIP: string;
  /** The route table of the subnet's router port ('' the main one). */
  readonly routeTable: string;
}

export function decodeSubnet(o: KubeObject): Decoded<SubnetView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, SUBNET_SUPPORT);
  const cidrBlock = r.str(spec, 'cidrBlock', 'spec') ?? '';
  if (cidrBlock === '') r.issue('missing-field', 'spec.cidrBlock', 'spec.cidrBlock is required');
  // "" is what `kubectl get subnet -o yaml` prints for an unset gateway type: Kube-OVN reads it as distributed.
  const gatewayType = r.str(spec, 'gatewayType', 'spec') || 'distributed';
  if (gatewayType !== 'distributed' && gatewayType !== 'centralized')
    r.issue(
      'invalid-value',
      'spec.gatewayType',
      `spec.gatewayType must be distributed or centralized, got ${JSON.stringify(gatewayType)}`,
    );
  const protocol = r.str(spec, 'protocol', 'spec') ?? '';
  if (protocol !== '' && !['IPv4', 'IPv6', 'Dual'].includes(protocol))
    r.issue(
      'invalid-value',
      'spec.protocol',
      `spec.protocol must be IPv4, IPv6 or Dual, got ${JSON.stringify(protocol)}${protocol === 'Mac' ? ' (mac-only underlay subnets are not modelled)' : ''}`,
    );
  const gateway = r.str(spec, 'gateway', 'spec');
  const mtu = r.int(spec, 'mtu', 'spec');
  const acls = r.objs(spec, 'acls', 'spec').map((a) => {
    const out: { direction?: string; priority?: number; match?: string; action?: string } = {};
    const d = r.str(a.value, 'direction', a.at);
    const p = r.int(a.value, 'priority', a.at);
    const m = r.str(a.value, 'match', a.at);
    const x = r.str(a.value, 'action', a.at);
    if (d !== undefined) out.direction = d;
    if (p !== undefined) out.priority = p;
    if (m !== undefined) out.match = m;
    if (x !== undefined) out.action = x;
    return out;
  });
  return {
    value: {
      ...meta(o, r),
      default: r.bool(spec, 'default', 'spec') ?? false,
      vpc: r.str(spec, 'vpc', 'spec') || '',
      protocol,
      cidrBlock,
      ...(gateway ? { gateway } : {}),
      excludeIps: r.strs(spec, 'excludeIps', 'spec') ?? [],
      provider: r.str(spec, 'provider', 'spec') || 'ovn',
      namespaces: r.strs(spec, 'namespaces', 'spec') ?? [],
      namespaceSelectors: r.objs(spec, 'namespaceSelectors', 'spec').map((s) => selectorOf(r, s.value, s.at)),
      gatewayType: gatewayType === 'centralized' ? 'centralized' : 'distributed',
      gatewayNode: r.str(spec, 'gatewayNode', 'spec') ?? '',
      gatewayNodeSelectors: r.objs(spec, 'gatewayNodeSelectors', 'spec').map((s) => selectorOf(r, s.value, s.at)),
      natOutgoing: r.bool(spec, 'natOutgoing', 'spec') ?? false,
      private: r.bool(spec, 'private', 'spec') ?? false,
      allowSubnets: r.strs(spec, 'allowSubnets', 'spec') ?? [],
      acls,
      allowEWTraffic: r.bool(spec, 'allowEWTraffic', 'spec') ?? false,
      enableLb: r.bool(spec, 'enableLb', 'spec') ?? true,
      ...decodeSubnetEgress(r, spec),
      ...(mtu !== undefined ? { mtu } : {}),
      vlan: r.str(spec, 'vlan', 'spec') ?? '',
      logicalGateway: r.bool(spec, 'logicalGateway', 'spec') ?? false,
      u2oInterconnection: r.bool(spec, 'u2oInterconnection', 'spec') ?? false,
      u2oInterconnectionIP: r.str(spec, 'u2oInterconnectionIP', 'spec') ?? '',
      routeTable: r.str(spec, 'routeTable', 'spec') ?? '',
    },
    issues: r.issues,
  };
}

export interface VpcView extends Meta {
  readonly namespaces: readonly string[];
  /** The subnet the VPC's namespaces use when no Subnet binds them ('' when unset). */
  readonly defaultSubnet: string;
  readonly staticRoutes: readonly {
    policy?: string;
    cidr: string;
    nextHopIP: string;
    routeTable?: string;
    ecmpMode?: string;
  }[];
  readonly policyRoutes: readonly { priority?: number; match?: string; action?: string; nextHopIP?: string }[];
  readonly vpcPeerings: readonly { readonly remoteVpc: string; readonly localConnectIP: string }[];
  /** North-south over OVN's own NAT (controller/handlers/vpc-external.ts). */
  readonly enableExternal: boolean;
  readonly extraExternalSubnets: readonly string[];
  readonly enableBfd: boolean;
}

export function decodeVpc(o: KubeObject): Decoded<VpcView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, VPC_SUPPORT);
  const staticRoutes = r.objs(spec, 'staticRoutes', 'spec').map((s) => {
    const policy = r.str(s.value, 'policy', s.at);
    const routeTable = r.str(s.value, 'routeTable', s.at);
    const ecmpMode = r.str(s.value, 'ecmpMode', s.at);
    return {
      cidr: r.str(s.value, 'cidr', s.at) ?? '',
      nextHopIP: r.str(s.value, 'nextHopIP', s.at) ?? '',
      ...(policy ? { policy } : {}),
      ...(routeTable ? { routeTable } : {}),
      ...(ecmpMode ? { ecmpMode } : {}),
    };
  });
  const policyRoutes = r.objs(spec, 'policyRoutes', 'spec').map((p) => {
    const out: { priority?: number; match?: string; action?: string; nextHopIP?: string } = {};
    const pr = r.int(p.value, 'priority', p.at);
    const m = r.str(p.value, 'match', p.at);
    const a = r.str(p.value, 'action', p.at);
    const n = r.str(p.value, 'nextHopIP', p.at);
    if (pr !== undefined) out.priority = pr;
    if (m !== undefined) out.match = m;
    if (a !== undefined) out.action = a;
    if (n !== undefined) out.nextHopIP = n;
    return out;
  });
  const vpcPeerings = r.objs(spec, 'vpcPeerings', 'spec').map((p) => ({
    remoteVpc: r.str(p.value, 'remoteVpc', p.at) ?? '',
    localConnectIP: r.str(p.value, 'localConnectIP', p.at) ?? '',
  }));
  return {
    value: {
      ...meta(o, r),
      namespaces: r.strs(spec, 'namespaces', 'spec') ?? [],
      defaultSubnet: r.str(spec, 'defaultSubnet', 'spec') ?? '',
      staticRoutes,
      policyRoutes,
      vpcPeerings,
      enableExternal: r.bool(spec, 'enableExternal', 'spec') ?? false,
      extraExternalSubnets: r.strs(spec, 'extraExternalSubnets', 'spec') ?? [],
      enableBfd: r.bool(spec, 'enableBfd', 'spec') ?? false,
    },
    issues: r.issues,
  };
}

export interface IPPoolView extends Meta {
  readonly subnet: string;
  readonly ips: readonly string[];
  readonly namespaces: readonly string[];
  /** Kube-OVN keeps an address set of the pool's addresses (named after it) for ACL and policy matches. */
  readonly enableAddressSet: boolean;
}

export function decodeIPPool(o: KubeObject): Decoded<IPPoolView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.support(o as unknown as Plain, IPPOOL_SUPPORT);
  return {
    value: {
      ...meta(o, r),
      subnet: r.str(spec, 'subnet', 'spec') ?? '',
      ips: r.strs(spec, 'ips', 'spec') ?? [],
      namespaces: r.strs(spec, 'namespaces', 'spec') ?? [],
      enableAddressSet: r.bool(spec, 'enableAddressSet', 'spec') ?? false,
    },
    issues: r.issues,
  };
}

export interface IPView extends Meta {
  readonly podName: string;
  readonly namespace: string;
  readonly subnet: string;
  readonly nodeName: string;
  readonly ipAddress: string;
  readonly macAddress: string;
  readonly podType: string;
}

export function decodeIP(o: KubeObject): Decoded<IPView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  const m = meta(o, r);
  r.support(o as unknown as Plain, IP_SUPPORT);
  return {
    value: {
      ...m,
      podName: r.str(spec, 'podName', 'spec') ?? '',
      namespace: r.str(spec, 'namespace', 'spec') ?? '',
      subnet: r.str(spec, 'subnet', 'spec') ?? '',
      nodeName: r.str(spec, 'nodeName', 'spec') ?? '',
      ipAddress: r.str(spec, 'ipAddress', 'spec') ?? '',
      macAddress: r.str(spec, 'macAddress', 'spec') ?? '',
      podType: r.str(spec, 'podType', 'spec') ?? '',
    },
    issues: r.issues,
  };
}

export type { NatOutgoingPolicyRule, SubnetEgressView } from './subnet-egress.ts';

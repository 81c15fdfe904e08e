/**
 * The kinds kovn knows, declared once: each kind's API group and version,
 * its plural, whether it lives in a namespace, how it is decoded (with its
 * support table, kube/objects/support/), what it owns, and whether the
 * controller watches it. The cluster sources (namespace rule, apiVersion
 * defaults), the scenario loader (which kinds are read, kube/objects/kinds.ts),
 * the decode reporting, docs/fields.md and the controller's informers all
 * derive their lists from here; docs/architecture.md ("Adding a kind") says
 * what else a new kind touches.
 */
import type { KubeObject } from './cluster/types.ts';
import {
  decodeAdminNetworkPolicy,
  decodeBaselineAdminNetworkPolicy,
  decodeEndpointSlice,
  decodeIP,
  decodeIPPool,
  decodeNetworkAttachmentDefinition,
  decodeNamespace,
  decodeNetworkPolicy,
  decodeNode,
  decodePod,
  decodeQoSPolicy,
  decodeSecurityGroup,
  decodeService,
  decodeSubnet,
  decodeSwitchLBRule,
  decodeVip,
  decodeVpc,
  decodeProviderNetwork,
  decodeVlan,
} from './objects/objects.ts';
import { decodeIptablesEIP, decodeIptablesRule, decodeVpcNatGateway } from './objects/vpc-nat-gateway.ts';
import type { Decoded } from './objects/meta.ts';
import type { KindSupport } from './objects/support.ts';
import {
  ADMIN_NETWORK_POLICY_SUPPORT,
  BASELINE_ADMIN_NETWORK_POLICY_SUPPORT,
  ENDPOINT_SLICE_SUPPORT,
  IP_SUPPORT,
  IPPOOL_SUPPORT,
  NETWORK_ATTACHMENT_DEFINITION_SUPPORT,
  NAMESPACE_SUPPORT,
  NETWORK_POLICY_SUPPORT,
  NODE_SUPPORT,
  POD_SUPPORT,
  QOS_POLICY_SUPPORT,
  SECURITY_GROUP_SUPPORT,
  SERVICE_SUPPORT,
  SUBNET_SUPPORT,
  SWITCH_LB_RULE_SUPPORT,
  VIP_SUPPORT,
  VPC_SUPPORT,
  PROVIDER_NETWORK_SUPPORT,
  VLAN_SUPPORT,
} from './objects/support/index.ts';
import {
  IPTABLES_DNAT_RULE_SUPPORT,
  IPTABLES_EIP_SUPPORT,
  IPTABLES_FIP_RULE_SUPPORT,
  IPTABLES_SNAT_RULE_SUPPORT,
  VPC_NAT_GATEWAY_SUPPORT,
} from './objects/support/vpc-nat-gateway.ts';
import { decodeOvnDnatRule, decodeOvnEip, decodeOvnFip, decodeOvnSnatRule } from './objects/ovn-nat.ts';
import {
  OVN_DNAT_RULE_SUPPORT,
  OVN_EIP_SUPPORT,
  OVN_FIP_SUPPORT,
  OVN_SNAT_RULE_SUPPORT,
} from './objects/support/ovn-nat.ts';

/** What kovn does with objects of a kind. */
export type KindRole =
  /** The controller watches it (an informer) and reads it. */
  | 'watched'
  /** The cluster turns it into pods (Deployment → ReplicaSet → Pods); the controller sees only the pods. */
  | 'workload'
  /** Written by the controller only (Events, its Lease): served by the cluster, not read from scenario files. */
  | 'written'
  /**
   * Stored and served by the API front (`kovn sim serve`) so kovn's own install
   * manifests apply (RBAC, ServiceAccounts, ConfigMaps, CRDs); no part of kovn
   * acts on them, and a scenario holding one is told so.
   */
  | 'served';

export interface KindDef {
  /** '' for the core group (`v1`). */
  readonly group: string;
  readonly version: string;
  /** The resource name in API paths (`/apis/kubeovn.io/v1/subnets`). */
  readonly plural: string;
  readonly namespaced: boolean;
  readonly role: KindRole;
  /** The typed view and its issues (kube/objects); the support table it checks the object against. */
  readonly decode?: (o: KubeObject) => Decoded<unknown>;
  readonly support?: KindSupport;
  /** Kinds of the objects the controller creates for an object of this kind (a Pod's IP object). */
  readonly owns?: readonly string[];
}

const core = (plural: string, namespaced: boolean) => ({ group: '', version: 'v1', plural, namespaced }) as const;
const kubeovn = (plural: string) => ({ group: 'kubeovn.io', version: 'v1', plural, namespaced: false }) as const;
const apps = (plural: string) => ({ group: 'apps', version: 'v1', plural, namespaced: true }) as const;
const rbac = (plural: string, namespaced: boolean) =>
  ({ group: 'rbac.authorization.k8s.io', version: 'v1', plural, namespaced, role: 'served' }) as const;

/**
 * Every kind, in the order the controller creates its informers.
 *
 * @example REGISTRY.Subnet.plural // 'subnets'
 */
export const REGISTRY = Object.freeze({
  Vpc: { ...kubeovn('vpcs'), role: 'watched', decode: decodeVpc, support: VPC_SUPPORT },
  Subnet: { ...kubeovn('subnets'), role: 'watched', decode: decodeSubnet, support: SUBNET_SUPPORT },
  IPPool: { ...kubeovn('ippools'), role: 'watched', decode: decodeIPPool, support: IPPOOL_SUPPORT },
  ProviderNetwork: {
    ...kubeovn('provider-networks'),
    role: 'watched',
    decode: decodeProviderNetwork,
    support: PROVIDER_NETWORK_SUPPORT,
  },
  Vlan: { ...kubeovn('vlans'), role: 'watched', decode: decodeVlan, support: VLAN_SUPPORT },
  Node: { ...core('nodes', false), role: 'watched', decode: decodeNode, support: NODE_SUPPORT },
  Namespace: { ...core('namespaces', false), role: 'watched', decode: decodeNamespace, support: NAMESPACE_SUPPORT },
  Pod: { ...core('pods', true), role: 'watched', decode: decodePod, support: POD_SUPPORT, owns: ['IP'] },
  Service: { ...core('services', true), role: 'watched', decode: decodeService, support: SERVICE_SUPPORT },
  EndpointSlice: {
    ...{ group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', namespaced: true },
    role: 'watched',
    decode: decodeEndpointSlice,
    support: ENDPOINT_SLICE_SUPPORT,
  },
  NetworkPolicy: {
    ...{ group: 'networking.k8s.io', version: 'v1', plural: 'networkpolicies', namespaced: true },
    role: 'watched',
    decode: decodeNetworkPolicy,
    support: NETWORK_POLICY_SUPPORT,
  },
  AdminNetworkPolicy: {
    ...{ group: 'policy.networking.k8s.io', version: 'v1alpha1', plural: 'adminnetworkpolicies', namespaced: false },
    role: 'watched',
    decode: decodeAdminNetworkPolicy,
    support: ADMIN_NETWORK_POLICY_SUPPORT,
  },
  BaselineAdminNetworkPolicy: {
    ...{
      group: 'policy.networking.k8s.io',
      version: 'v1alpha1',
      plural: 'baselineadminnetworkpolicies',
      namespaced: false,
    },
    role: 'watched',
    decode: decodeBaselineAdminNetworkPolicy,
    support: BASELINE_ADMIN_NETWORK_POLICY_SUPPORT,
  },
  IP: { ...kubeovn('ips'), role: 'watched', decode: decodeIP, support: IP_SUPPORT },
  SecurityGroup: {
    ...kubeovn('security-groups'),
    role: 'watched',
    decode: decodeSecurityGroup,
    support: SECURITY_GROUP_SUPPORT,
  },
  VpcNatGateway: {
    ...kubeovn('vpc-nat-gateways'),
    role: 'watched',
    decode: decodeVpcNatGateway,
    support: VPC_NAT_GATEWAY_SUPPORT,
    owns: ['StatefulSet'],
  },
  IptablesEIP: {
    ...kubeovn('iptables-eips'),
    role: 'watched',
    decode: decodeIptablesEIP,
    support: IPTABLES_EIP_SUPPORT,
  },
  IptablesFIPRule: {
    ...kubeovn('iptables-fip-rules'),
    role: 'watched',
    decode: decodeIptablesRule,
    support: IPTABLES_FIP_RULE_SUPPORT,
  },
  IptablesSnatRule: {
    ...kubeovn('iptables-snat-rules'),
    role: 'watched',
    decode: decodeIptablesRule,
    support: IPTABLES_SNAT_RULE_SUPPORT,
  },
  IptablesDnatRule: {
    ...kubeovn('iptables-dnat-rules'),
    role: 'watched',
    decode: decodeIptablesRule,
    support: IPTABLES_DNAT_RULE_SUPPORT,
  },
  Vip: { ...kubeovn('vips'), role: 'watched', decode: decodeVip, support: VIP_SUPPORT },
  SwitchLBRule: {
    ...kubeovn('switch-lb-rules'),
    role: 'watched',
    decode: decodeSwitchLBRule,
    support: SWITCH_LB_RULE_SUPPORT,
    owns: ['Service', 'EndpointSlice'],
  },
  QoSPolicy: { ...kubeovn('qos-policies'), role: 'watched', decode: decodeQoSPolicy, support: QOS_POLICY_SUPPORT },
  NetworkAttachmentDefinition: {
    ...{ group: 'k8s.cni.cncf.io', version: 'v1', plural: 'network-attachment-definitions', namespaced: true },
    role: 'watched',
    decode: decodeNetworkAttachmentDefinition,
    support: NETWORK_ATTACHMENT_DEFINITION_SUPPORT,
  },
  OvnEip: { ...kubeovn('ovn-eips'), role: 'watched', decode: decodeOvnEip, support: OVN_EIP_SUPPORT },
  OvnFip: { ...kubeovn('ovn-fips'), role: 'watched', decode: decodeOvnFip, support: OVN_FIP_SUPPORT },
  OvnSnatRule: {
    ...kubeovn('ovn-snat-rules'),
    role: 'watched',
    decode: decodeOvnSnatRule,
    support: OVN_SNAT_RULE_SUPPORT,
  },
  OvnDnatRule: {
    ...kubeovn('ovn-dnat-rules'),
    role: 'watched',
    decode: decodeOvnDnatRule,
    support: OVN_DNAT_RULE_SUPPORT,
  },
  Event: { ...core('events', true), role: 'written' },
  Deployment: { ...apps('deployments'), role: 'workload' },
  StatefulSet: { ...apps('statefulsets'), role: 'workload' },
  DaemonSet: { ...apps('daemonsets'), role: 'workload' },
  ReplicaSet: { ...apps('replicasets'), role: 'workload' },
  Job: { group: 'batch', version: 'v1', plural: 'jobs', namespaced: true, role: 'workload' },
  /** The controller's leader election (controller/leader). */
  Lease: { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', namespaced: true, role: 'written' },
  ServiceAccount: { ...core('serviceaccounts', true), role: 'served' },
  ConfigMap: { ...core('configmaps', true), role: 'served' },
  Secret: { ...core('secrets', true), role: 'served' },
  ClusterRole: rbac('clusterroles', false),
  ClusterRoleBinding: rbac('clusterrolebindings', false),
  Role: rbac('roles', true),
  RoleBinding: rbac('rolebindings', true),
  CustomResourceDefinition: {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
    namespaced: false,
    role: 'served',
  },
} as const satisfies Record<string, KindDef>);

export type KindName = keyof typeof REGISTRY;

/** The kinds the controller watches (an informer each). */
export type WatchedKind = { [K in KindName]: (typeof REGISTRY)[K]['role'] extends 'watched' ? K : never }[KindName];

const entries = Object.entries(REGISTRY) as [KindName, KindDef][];

/** The kinds the controller watches, in registry order. */
export const WATCHED_KINDS: readonly WatchedKind[] = Object.freeze(
  entries.filter(([, d]) => d.role === 'watched').map(([k]) => k as WatchedKind),
);

/** The kinds whose controllers make pods (the in-memory cluster's workload controllers run them). */
export const WORKLOAD_KINDS: ReadonlySet<string> = new Set(
  entries.filter(([, d]) => d.role === 'workload').map(([k]) => k),
);

/** `group/version`, or `version` for the core group. */
export const apiVersionOf = (d: Pick<KindDef, 'group' | 'version'>): string =>
  d.group === '' ? d.version : `${d.group}/${d.version}`;

/** The kind's definition, or undefined for a kind kovn does not know. */
export function kindDef(kind: string): KindDef | undefined {
  return Object.hasOwn(REGISTRY, kind) ? REGISTRY[kind as KindName] : undefined;
}

/**
 * Kinds by their API group version, as the API server names them.
 *
 * @example API_VERSION.NetworkPolicy // 'networking.k8s.io/v1'
 */
export const API_VERSION: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(entries.map(([k, d]) => [k, apiVersionOf(d)])),
);

/** Kinds that live in a namespace; the rest are cluster-scoped (kubeovn.io/v1's kinds are). */
export const NAMESPACED: ReadonlySet<string> = new Set(entries.filter(([, d]) => d.namespaced).map(([k]) => k));

/** The decoder of each kind that has one (the decode reporting and the decoding fuzz target use them). */
export const DECODERS: Readonly<Record<string, (o: KubeObject) => Decoded<unknown>>> = Object.freeze(
  Object.fromEntries(entries.flatMap(([k, d]) => (d.decode ? [[k, d.decode]] : []))),
);

/** The support tables of the kinds kovn decodes, in registry order (docs/fields.md is rendered from them). */
export const SUPPORT_TABLES: readonly KindSupport[] = Object.freeze(entries.flatMap(([, d]) => d.support ?? []));

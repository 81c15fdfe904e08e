/**
 * The built-in resources of the API front: every kind of kube/registry.ts,
 * with what discovery says about it (short names, the `all` category, the
 * status subresource) as a Kubernetes 1.20 API server says it. kubeovn.io
 * kinds are served from here only until a CustomResourceDefinition covers
 * them (catalog.ts): a cluster without kovn's CRD manifests still answers
 * `kubectl get subnets`.
 */
import { type KindName, REGISTRY } from '../../registry.ts';
import type { ServedResource } from '../types.ts';

/**
 * The verbs the HTTP side implements for every resource (discovery lists them).
 *
 * @example SERVED_VERBS.includes('watch') // true
 */
export const SERVED_VERBS: readonly string[] = Object.freeze([
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
]);

/** The verbs of a `<plural>/status` subresource. */
export const STATUS_VERBS: readonly string[] = Object.freeze(['get', 'patch', 'update']);

interface Extras {
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly status?: boolean;
}

const ALL = ['all'] as const;

/** As a 1.20 API server's discovery has them (Kube-OVN's CRDs for kubeovn.io). */
const EXTRAS: Readonly<Record<KindName, Extras>> = {
  Vpc: { shortNames: ['vpc'], status: true },
  Subnet: { shortNames: ['subnet'], status: true },
  IPPool: { shortNames: ['ippool'], status: true },
  ProviderNetwork: { shortNames: ['pn'], status: true },
  Vlan: { shortNames: ['vlan'], status: true },
  Node: { shortNames: ['no'], status: true },
  Namespace: { shortNames: ['ns'], status: true },
  Pod: { shortNames: ['po'], categories: ALL, status: true },
  Service: { shortNames: ['svc'], categories: ALL, status: true },
  EndpointSlice: {},
  NetworkPolicy: { shortNames: ['netpol'] },
  AdminNetworkPolicy: { shortNames: ['anp'], status: true },
  BaselineAdminNetworkPolicy: { shortNames: ['banp'], status: true },
  IP: { shortNames: ['ip'] },
  SecurityGroup: { shortNames: ['sg'], status: true },
  VpcNatGateway: { shortNames: ['vpc-nat-gw'], status: true },
  IptablesEIP: { shortNames: ['eip'], status: true },
  IptablesFIPRule: { shortNames: ['fip'], status: true },
  IptablesSnatRule: { shortNames: ['snat'], status: true },
  IptablesDnatRule: { shortNames: ['dnat'], status: true },
  Vip: { shortNames: ['vip'], status: true },
  SwitchLBRule: { shortNames: ['slr'], status: true },
  QoSPolicy: { shortNames: ['qos'], status: true },
  NetworkAttachmentDefinition: { shortNames: ['net-attach-def'] },
  OvnEip: { shortNames: ['oeip'], status: true },
  OvnFip: { shortNames: ['ofip'], status: true },
  OvnSnatRule: { shortNames: ['osnat'], status: true },
  OvnDnatRule: { shortNames: ['odnat'], status: true },
  Event: { shortNames: ['ev'] },
  Deployment: { shortNames: ['deploy'], categories: ALL, status: true },
  StatefulSet: { shortNames: ['sts'], categories: ALL, status: true },
  DaemonSet: { shortNames: ['ds'], categories: ALL, status: true },
  ReplicaSet: { shortNames: ['rs'], categories: ALL, status: true },
  Job: { categories: ALL, status: true },
  Lease: {},
  ServiceAccount: { shortNames: ['sa'] },
  ConfigMap: { shortNames: ['cm'] },
  Secret: {},
  ClusterRole: {},
  ClusterRoleBinding: {},
  Role: {},
  RoleBinding: {},
  CustomResourceDefinition: { shortNames: ['crd', 'crds'], status: true },
};

/** Groups whose kinds are CRDs in a real cluster: JSON merge patches only, as the API server allows for custom resources. */
const CUSTOM_GROUPS: ReadonlySet<string> = new Set(['kubeovn.io', 'policy.networking.k8s.io']);

/**
 * The built-in resources, in registry order.
 *
 * @example builtinResources().find((r) => r.kind === 'Pod')?.shortNames // ['po']
 */
export function builtinResources(): readonly ServedResource[] {
  return (Object.keys(REGISTRY) as KindName[]).map((kind) => {
    const d = REGISTRY[kind];
    const x = EXTRAS[kind];
    return Object.freeze({
      group: d.group,
      version: d.version,
      kind,
      plural: d.plural,
      singular: kind.toLowerCase(),
      listKind: `${kind}List`,
      namespaced: d.namespaced,
      verbs: SERVED_VERBS,
      shortNames: x.shortNames ?? [],
      categories: x.categories ?? [],
      statusSubresource: x.status ?? false,
      strategicMerge: !CUSTOM_GROUPS.has(d.group),
      origin: 'builtin' as const,
    });
  });
}

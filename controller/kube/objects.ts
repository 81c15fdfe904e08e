/**
 * The Kubernetes and kubeovn.io/v1 objects the controller reads, as typed
 * views holding only the fields it uses, each decoded with the issues found
 * (see decode.ts). Field names are the APIs' own; kubeovn.io/v1 spec fields
 * are Kube-OVN's (pkg/apis/kubeovn/v1/subnet.go, vpc.go, ippool.go, ip.go).
 */
import type { KubeObject } from '../cluster/types.ts';
import { type DecodeIssue, type Plain, Reader } from './decode.ts';

export interface Decoded<T> {
  readonly value: T;
  readonly issues: readonly DecodeIssue[];
}

export interface Meta {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly deleting: boolean;
  readonly finalizers: readonly string[];
  readonly ownerReferences: readonly { readonly kind: string; readonly name: string }[];
}

function meta(o: KubeObject, r: Reader): Meta {
  const m = o.metadata as unknown as Plain;
  return {
    name: o.metadata.name,
    namespace: o.metadata.namespace ?? '',
    uid: o.metadata.uid ?? '',
    labels: r.strMap(m, 'labels', 'metadata'),
    annotations: r.strMap(m, 'annotations', 'metadata'),
    deleting: o.metadata.deletionTimestamp !== undefined,
    finalizers: r.strs(m, 'finalizers', 'metadata') ?? [],
    ownerReferences: r
      .objs(m, 'ownerReferences', 'metadata')
      .map(({ at, value }) => ({ kind: r.str(value, 'kind', at) ?? '', name: r.str(value, 'name', at) ?? '' })),
  };
}

const objName = (o: KubeObject) =>
  `${o.kind}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

export type L4Protocol = 'TCP' | 'UDP' | 'SCTP';
const L4: readonly string[] = ['TCP', 'UDP', 'SCTP'];

function protocol(r: Reader, o: Plain, path: string): L4Protocol {
  const p = r.str(o, 'protocol', path) ?? 'TCP';
  if (L4.includes(p)) return p as L4Protocol;
  r.issue('invalid-value', `${path}.protocol`, `${path}.protocol must be TCP, UDP or SCTP, got ${JSON.stringify(p)}`);
  return 'TCP';
}

export interface ContainerPort {
  readonly name?: string;
  readonly containerPort: number;
  readonly protocol: L4Protocol;
}

export interface PodView extends Meta {
  readonly nodeName: string;
  readonly hostNetwork: boolean;
  /** Pending, Running, Succeeded, Failed, Unknown ('' when absent). */
  readonly phase: string;
  readonly ports: readonly ContainerPort[];
  readonly ready: boolean;
  /** The pod's addresses the kubelet reported (status.podIPs), informational. */
  readonly podIPs: readonly string[];
}

export function decodePod(o: KubeObject): Decoded<PodView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  const status = r.obj(o, 'status', '');
  const ports: ContainerPort[] = [];
  for (const c of r.objs(spec, 'containers', 'spec')) {
    for (const p of r.objs(c.value, 'ports', c.at)) {
      const containerPort = r.int(p.value, 'containerPort', p.at);
      if (containerPort === undefined) {
        if (p.value.containerPort == null)
          r.issue('missing-field', `${p.at}.containerPort`, `${p.at}.containerPort is required`);
        continue;
      }
      const name = r.str(p.value, 'name', p.at);
      ports.push({ containerPort, protocol: protocol(r, p.value, p.at), ...(name ? { name } : {}) });
    }
  }
  const conditions = r.objs(status, 'conditions', 'status');
  const readyCond = conditions.find((c) => c.value.type === 'Ready');
  const value: PodView = {
    ...meta(o, r),
    nodeName: r.str(spec, 'nodeName', 'spec') ?? '',
    hostNetwork: r.bool(spec, 'hostNetwork', 'spec') ?? false,
    phase: r.str(status, 'phase', 'status') ?? '',
    ports,
    // A pod without a Ready condition counts as ready: scenarios describe running pods.
    ready: readyCond === undefined || readyCond.value.status === 'True',
    podIPs: r.objs(status, 'podIPs', 'status').flatMap((p) => r.str(p.value, 'ip', p.at) ?? []),
  };
  return { value, issues: r.issues };
}

export type NamespaceView = Meta;

export function decodeNamespace(o: KubeObject): Decoded<NamespaceView> {
  const r = new Reader(objName(o));
  const m = meta(o, r);
  // Every namespace carries its name as a label (the NamespaceDefaultLabelName feature, GA since 1.22).
  return { value: { ...m, labels: { ...m.labels, 'kubernetes.io/metadata.name': m.name } }, issues: r.issues };
}

export interface NodeView extends Meta {
  readonly internalIPs: readonly string[];
}

export function decodeNode(o: KubeObject): Decoded<NodeView> {
  const r = new Reader(objName(o));
  const status = r.obj(o, 'status', '');
  const internalIPs = r
    .objs(status, 'addresses', 'status')
    .filter((a) => a.value.type === 'InternalIP')
    .flatMap((a) => r.str(a.value, 'address', a.at) ?? []);
  return { value: { ...meta(o, r), internalIPs }, issues: r.issues };
}

export interface ServicePort {
  readonly name?: string;
  readonly protocol: L4Protocol;
  readonly port: number;
  readonly targetPort?: number | string;
}

export interface ServiceView extends Meta {
  readonly type: string;
  readonly clusterIPs: readonly string[];
  readonly externalIPs: readonly string[];
  readonly selector?: Readonly<Record<string, string>>;
  readonly ports: readonly ServicePort[];
  readonly sessionAffinity: 'ClientIP' | 'None';
}

export function decodeService(o: KubeObject): Decoded<ServiceView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  const ports: ServicePort[] = [];
  for (const p of r.objs(spec, 'ports', 'spec')) {
    const port = r.int(p.value, 'port', p.at);
    if (port === undefined) {
      if (p.value.port == null) r.issue('missing-field', `${p.at}.port`, `${p.at}.port is required`);
      continue;
    }
    const name = r.str(p.value, 'name', p.at);
    const targetPort = r.intOrStr(p.value, 'targetPort', p.at);
    ports.push({
      port,
      protocol: protocol(r, p.value, p.at),
      ...(name ? { name } : {}),
      ...(targetPort !== undefined ? { targetPort } : {}),
    });
  }
  const clusterIP = r.str(spec, 'clusterIP', 'spec');
  const clusterIPs = r.strs(spec, 'clusterIPs', 'spec') ?? (clusterIP ? [clusterIP] : []);
  const selector = spec?.selector === undefined ? undefined : r.strMap(spec, 'selector', 'spec');
  const affinity = r.str(spec, 'sessionAffinity', 'spec');
  return {
    value: {
      ...meta(o, r),
      type: r.str(spec, 'type', 'spec') ?? 'ClusterIP',
      clusterIPs: clusterIPs.filter((ip) => ip !== '' && ip !== 'None'),
      externalIPs: r.strs(spec, 'externalIPs', 'spec') ?? [],
      ...(selector !== undefined ? { selector } : {}),
      ports,
      sessionAffinity: affinity === 'ClientIP' ? 'ClientIP' : 'None',
    },
    issues: r.issues,
  };
}

export interface EndpointSliceView extends Meta {
  /** `kubernetes.io/service-name`. */
  readonly service: string;
  readonly addressType: string;
  readonly ports: readonly { readonly name?: string; readonly port?: number; readonly protocol: L4Protocol }[];
  readonly endpoints: readonly {
    readonly addresses: readonly string[];
    readonly ready: boolean;
    readonly targetPod?: string;
  }[];
}

export function decodeEndpointSlice(o: KubeObject): Decoded<EndpointSliceView> {
  const r = new Reader(objName(o));
  const m = meta(o, r);
  const top = o as unknown as Plain;
  const ports = r.objs(top, 'ports', '').map((p) => {
    const name = r.str(p.value, 'name', p.at);
    const port = r.int(p.value, 'port', p.at);
    return { protocol: protocol(r, p.value, p.at), ...(name ? { name } : {}), ...(port !== undefined ? { port } : {}) };
  });
  const endpoints = r.objs(top, 'endpoints', '').map((e) => {
    const conditions = r.obj(e.value, 'conditions', e.at);
    const ref = r.obj(e.value, 'targetRef', e.at);
    const target = ref?.kind === 'Pod' ? r.str(ref, 'name', `${e.at}.targetRef`) : undefined;
    return {
      addresses: r.strs(e.value, 'addresses', e.at) ?? [],
      ready: r.bool(conditions, 'ready', `${e.at}.conditions`) ?? true,
      ...(target ? { targetPod: target } : {}),
    };
  });
  return {
    value: {
      ...m,
      service: m.labels['kubernetes.io/service-name'] ?? '',
      addressType: r.str(top, 'addressType', '') ?? 'IPv4',
      ports,
      endpoints,
    },
    issues: r.issues,
  };
}

export interface LabelSelector {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchExpressions: readonly {
    readonly key: string;
    readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    readonly values: readonly string[];
  }[];
}

const OPERATORS: readonly string[] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

function selector(r: Reader, o: Plain | undefined, k: string, path: string): LabelSelector | undefined {
  const s = r.obj(o, k, path);
  return s === undefined ? undefined : selectorOf(r, s, path === '' ? k : `${path}.${k}`);
}

function selectorOf(r: Reader, s: Plain, at: string): LabelSelector {
  const matchExpressions = r.objs(s, 'matchExpressions', at).flatMap((e) => {
    const operator = r.str(e.value, 'operator', e.at) ?? '';
    const key = r.str(e.value, 'key', e.at) ?? '';
    if (!OPERATORS.includes(operator)) {
      r.issue(
        'invalid-value',
        `${e.at}.operator`,
        `${e.at}.operator ${JSON.stringify(operator)} is not a selector operator`,
      );
      return [];
    }
    return [
      {
        key,
        operator: operator as LabelSelector['matchExpressions'][number]['operator'],
        values: r.strs(e.value, 'values', e.at) ?? [],
      },
    ];
  });
  return { matchLabels: r.strMap(s, 'matchLabels', at), matchExpressions };
}

/** Kubernetes label selector semantics; an absent selector selects nothing, an empty one everything. */
export function selects(sel: LabelSelector | undefined, labels: Readonly<Record<string, string>>): boolean {
  if (sel === undefined) return false;
  for (const [k, v] of Object.entries(sel.matchLabels)) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions) {
    const has = Object.hasOwn(labels, e.key);
    const inValues = has && e.values.includes(labels[e.key]!);
    const ok =
      e.operator === 'In' ? inValues : e.operator === 'NotIn' ? !inValues : e.operator === 'Exists' ? has : !has;
    if (!ok) return false;
  }
  return true;
}

export interface PolicyPeer {
  readonly podSelector?: LabelSelector;
  readonly namespaceSelector?: LabelSelector;
  readonly ipBlock?: { readonly cidr: string; readonly except: readonly string[] };
}

export interface PolicyRule {
  /** Absent: every peer. */
  readonly peers?: readonly PolicyPeer[];
  readonly ports: readonly {
    readonly protocol: L4Protocol;
    readonly port?: number | string;
    readonly endPort?: number;
  }[];
}

export interface NetworkPolicyView extends Meta {
  readonly podSelector: LabelSelector;
  readonly policyTypes: readonly ('Ingress' | 'Egress')[];
  readonly ingress: readonly PolicyRule[];
  readonly egress: readonly PolicyRule[];
}

export function decodeNetworkPolicy(o: KubeObject): Decoded<NetworkPolicyView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  const rules = (k: 'ingress' | 'egress', peerKey: 'from' | 'to'): PolicyRule[] =>
    r.objs(spec, k, 'spec').map((rule) => {
      const list = r.arr(rule.value, peerKey, rule.at);
      const peers =
        list === undefined || list.length === 0
          ? undefined
          : r.objs(rule.value, peerKey, rule.at).map((p): PolicyPeer => {
              const block = r.obj(p.value, 'ipBlock', p.at);
              if (block) {
                const cidr = r.str(block, 'cidr', `${p.at}.ipBlock`) ?? '';
                return { ipBlock: { cidr, except: r.strs(block, 'except', `${p.at}.ipBlock`) ?? [] } };
              }
              const ps = selector(r, p.value, 'podSelector', p.at);
              const ns = selector(r, p.value, 'namespaceSelector', p.at);
              return { ...(ps ? { podSelector: ps } : {}), ...(ns ? { namespaceSelector: ns } : {}) };
            });
      const ports = r.objs(rule.value, 'ports', rule.at).map((p) => {
        const port = r.intOrStr(p.value, 'port', p.at);
        const endPort = r.int(p.value, 'endPort', p.at);
        return {
          protocol: protocol(r, p.value, p.at),
          ...(port !== undefined ? { port } : {}),
          ...(endPort !== undefined ? { endPort } : {}),
        };
      });
      return { ...(peers ? { peers } : {}), ports };
    });
  const ingress = rules('ingress', 'from');
  const egress = rules('egress', 'to');
  const given = r.strs(spec, 'policyTypes', 'spec');
  const policyTypes = (given ?? ['Ingress', ...(spec?.egress !== undefined ? ['Egress'] : [])]).filter(
    (t): t is 'Ingress' | 'Egress' => {
      if (t === 'Ingress' || t === 'Egress') return true;
      r.issue('invalid-value', 'spec.policyTypes', `spec.policyTypes: ${JSON.stringify(t)} is not Ingress or Egress`);
      return false;
    },
  );
  return {
    value: {
      ...meta(o, r),
      podSelector: selector(r, spec, 'podSelector', 'spec') ?? { matchLabels: {}, matchExpressions: [] },
      policyTypes,
      ingress,
      egress,
    },
    issues: r.issues,
  };
}

const SUBNET_FIELDS = [
  'default',
  'vpc',
  'protocol',
  'namespaces',
  'cidrBlock',
  'gateway',
  'excludeIps',
  'provider',
  'gatewayType',
  'gatewayNode',
  'natOutgoing',
  'externalEgressGateway',
  'policyRoutingPriority',
  'policyRoutingTableID',
  'mtu',
  'private',
  'allowSubnets',
  'vlan',
  'vips',
  'logicalGateway',
  'disableGatewayCheck',
  'disableInterConnection',
  'enableDHCP',
  'dhcpV4Options',
  'dhcpV6Options',
  'enableIPv6RA',
  'ipv6RAConfigs',
  'acls',
  'allowEWTraffic',
  'natOutgoingPolicyRules',
  'u2oInterconnectionIP',
  'u2oInterconnection',
  'enableLb',
  'enableEcmp',
  'enableMulticastSnoop',
  'routeTable',
  'namespaceSelectors',
];

export interface SubnetView extends Meta {
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
  readonly natOutgoing: boolean;
  readonly private: boolean;
  readonly allowSubnets: readonly string[];
  readonly acls: readonly { direction?: string; priority?: number; match?: string; action?: string }[];
  readonly allowEWTraffic: boolean;
  readonly enableLb: boolean;
  readonly mtu?: number;
}

export function decodeSubnet(o: KubeObject): Decoded<SubnetView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.closed(spec, SUBNET_FIELDS, 'spec');
  const cidrBlock = r.str(spec, 'cidrBlock', 'spec') ?? '';
  if (cidrBlock === '') r.issue('missing-field', 'spec.cidrBlock', 'spec.cidrBlock is required');
  const gatewayType = r.str(spec, 'gatewayType', 'spec') ?? 'distributed';
  if (gatewayType !== 'distributed' && gatewayType !== 'centralized')
    r.issue(
      'invalid-value',
      'spec.gatewayType',
      `spec.gatewayType must be distributed or centralized, got ${JSON.stringify(gatewayType)}`,
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
      protocol: r.str(spec, 'protocol', 'spec') ?? '',
      cidrBlock,
      ...(gateway ? { gateway } : {}),
      excludeIps: r.strs(spec, 'excludeIps', 'spec') ?? [],
      provider: r.str(spec, 'provider', 'spec') || 'ovn',
      namespaces: r.strs(spec, 'namespaces', 'spec') ?? [],
      namespaceSelectors: r.objs(spec, 'namespaceSelectors', 'spec').map((s) => selectorOf(r, s.value, s.at)),
      gatewayType: gatewayType === 'centralized' ? 'centralized' : 'distributed',
      gatewayNode: r.str(spec, 'gatewayNode', 'spec') ?? '',
      natOutgoing: r.bool(spec, 'natOutgoing', 'spec') ?? false,
      private: r.bool(spec, 'private', 'spec') ?? false,
      allowSubnets: r.strs(spec, 'allowSubnets', 'spec') ?? [],
      acls,
      allowEWTraffic: r.bool(spec, 'allowEWTraffic', 'spec') ?? false,
      enableLb: r.bool(spec, 'enableLb', 'spec') ?? true,
      ...(mtu !== undefined ? { mtu } : {}),
    },
    issues: r.issues,
  };
}

const VPC_FIELDS = [
  'namespaces',
  'staticRoutes',
  'policyRoutes',
  'vpcPeerings',
  'enableExternal',
  'extraExternalSubnets',
  'enableBfd',
  'defaultSubnet',
  'bfdPort',
];

export interface VpcView extends Meta {
  readonly namespaces: readonly string[];
  readonly staticRoutes: readonly {
    policy?: string;
    cidr: string;
    nextHopIP: string;
    routeTable?: string;
    ecmpMode?: string;
  }[];
  readonly policyRoutes: readonly { priority?: number; match?: string; action?: string; nextHopIP?: string }[];
  readonly vpcPeerings: readonly { readonly remoteVpc: string; readonly localConnectIP: string }[];
}

export function decodeVpc(o: KubeObject): Decoded<VpcView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.closed(spec, VPC_FIELDS, 'spec');
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
      staticRoutes,
      policyRoutes,
      vpcPeerings,
    },
    issues: r.issues,
  };
}

export interface IPPoolView extends Meta {
  readonly subnet: string;
  readonly ips: readonly string[];
  readonly namespaces: readonly string[];
}

export function decodeIPPool(o: KubeObject): Decoded<IPPoolView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  r.closed(spec, ['subnet', 'ips', 'namespaces'], 'spec');
  return {
    value: {
      ...meta(o, r),
      subnet: r.str(spec, 'subnet', 'spec') ?? '',
      ips: r.strs(spec, 'ips', 'spec') ?? [],
      namespaces: r.strs(spec, 'namespaces', 'spec') ?? [],
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

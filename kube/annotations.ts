/**
 * The pod and node annotation contract (Kube-OVN pkg/util/const.go,
 * pkg/controller/pod.go, node.go): the keys the controller writes once a
 * port is in NB and the node agent reads to plumb the interface, the keys
 * users set to ask for addresses, and their codec. One copy, for the
 * controller, the node agent and the scenario probes.
 *
 * Keys are `<provider>.kubernetes.io/<name>`: `ovn` for the default network,
 * an attachment's provider (`<nad>.<namespace>[.ovn]`) for the others.
 */
import { tryParseIP } from '../model/addr/ip.ts';
import { tryParseMAC } from '../model/addr/mac.ts';

/** The default network's provider. */
export const OVN_PROVIDER = 'ovn';

/** What the controller writes on a pod (and, with `port_name`, on a node). */
export type WrittenKey =
  | 'allocated'
  | 'routed'
  | 'ip_address'
  | 'mac_address'
  | 'cidr'
  | 'gateway'
  | 'logical_switch'
  | 'logical_router'
  | 'pod_nic_type'
  | 'port_name';

/** What a user sets to ask for an address, a subnet or port security (`ip_address` etc. are also read back). */
export type RequestKey = 'ip_address' | 'mac_address' | 'ip_pool' | 'logical_switch' | 'port_security' | 'ip_family';

/**
 * `<provider>.kubernetes.io/<key>`.
 *
 * @example annotationKey('ovn', 'ip_address') // 'ovn.kubernetes.io/ip_address'
 */
export function annotationKey(provider: string, key: WrittenKey | RequestKey): string {
  return `${provider}.kubernetes.io/${key}`;
}

/**
 * A pod's logical switch port: the name the controller gives its NB port and
 * the node agent sets as the interface's `external_ids:iface-id` (Kube-OVN's
 * ovs.PodNameToPortName): `<pod>.<namespace>`, with `.<provider>` for an
 * attachment.
 *
 * @example podPortName('web-0', 'default') // 'web-0.default'
 */
export function podPortName(pod: string, namespace: string, provider = OVN_PROVIDER): string {
  return provider === OVN_PROVIDER ? `${pod}.${namespace}` : `${pod}.${namespace}.${provider}`;
}

/** A pod's network as the controller writes it once its port is in NB. */
export interface PodNetwork {
  /** One per family, v4 first. */
  readonly ips: readonly string[];
  readonly mac: string;
  /** The subnet's CIDRs and gateways, one per family. */
  readonly cidrs: readonly string[];
  readonly gateways: readonly string[];
  readonly logicalSwitch: string;
  readonly logicalRouter: string;
  readonly podNicType: string;
  /** The port is in NB and the pod has a node (the CNI waits for it). */
  readonly routed: boolean;
}

/**
 * A pod's network as read back: `allocated` and `ip_address` are required,
 * the rest may be missing (written by an older controller, or by hand).
 */
export type PodNetworkRead = Pick<PodNetwork, 'ips' | 'cidrs' | 'gateways' | 'routed'> &
  Partial<Pick<PodNetwork, 'mac' | 'logicalSwitch' | 'logicalRouter' | 'podNicType'>>;

/** Why annotations did not decode: nothing allocated yet, a required key missing, or a value that does not parse. */
export interface AnnotationIssue {
  readonly code: 'not-allocated' | 'missing' | 'invalid';
  /** `metadata.annotations[ovn.kubernetes.io/ip_address]`. */
  readonly path: string;
  readonly message: string;
}

export type Decoded<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issue: AnnotationIssue };

type Annotations = Readonly<Record<string, string | undefined>>;

const list = (v: string | undefined): string[] => (v ? v.split(',').map((s) => s.trim()) : []);
const pathOf = (key: string) => `metadata.annotations[${key}]`;

/**
 * @example
 * encodePodNetwork({ ips: ['10.16.0.5'], mac: '0a:58:0a:10:00:05', cidrs: ['10.16.0.0/16'], gateways: ['10.16.0.1'],
 *   logicalSwitch: 'ovn-default', logicalRouter: 'ovn-cluster', podNicType: 'veth-pair', routed: true })
 * // { 'ovn.kubernetes.io/allocated': 'true', 'ovn.kubernetes.io/ip_address': '10.16.0.5', ... }
 */
export function encodePodNetwork(n: PodNetwork, provider = OVN_PROVIDER): Record<string, string> {
  const k = (key: WrittenKey) => annotationKey(provider, key);
  return {
    [k('allocated')]: 'true',
    [k('ip_address')]: n.ips.join(','),
    [k('mac_address')]: n.mac,
    [k('cidr')]: n.cidrs.join(','),
    [k('gateway')]: n.gateways.join(','),
    [k('logical_switch')]: n.logicalSwitch,
    [k('logical_router')]: n.logicalRouter,
    [k('pod_nic_type')]: n.podNicType,
    ...(n.routed ? { [k('routed')]: 'true' } : {}),
  };
}

/**
 * The network the controller gave a pod, from its annotations.
 *
 * @example
 * decodePodNetwork({ 'ovn.kubernetes.io/allocated': 'true', 'ovn.kubernetes.io/ip_address': '10.16.0.5' })
 * // { ok: true, value: { ips: ['10.16.0.5'], cidrs: [], gateways: [], routed: false } }
 */
export function decodePodNetwork(a: Annotations, provider = OVN_PROVIDER): Decoded<PodNetworkRead> {
  const k = (key: WrittenKey) => annotationKey(provider, key);
  if (a[k('allocated')] !== 'true')
    return issue('not-allocated', k('allocated'), 'no address allocated yet (allocated is not "true")');
  const ips = list(a[k('ip_address')]);
  if (ips.length === 0) return issue('missing', k('ip_address'), 'allocated, but no ip_address');
  const badIp = ips.find((ip) => tryParseIP(ip) === undefined);
  if (badIp !== undefined) return issue('invalid', k('ip_address'), `${JSON.stringify(badIp)} is not an IP address`);
  const mac = a[k('mac_address')] || undefined;
  if (mac !== undefined && tryParseMAC(mac) === undefined)
    return issue('invalid', k('mac_address'), `${JSON.stringify(mac)} is not a MAC address`);
  const optional = (key: WrittenKey) => a[k(key)] || undefined;
  const value: { -readonly [F in keyof PodNetworkRead]: PodNetworkRead[F] } = {
    ips,
    cidrs: list(a[k('cidr')]),
    gateways: list(a[k('gateway')]),
    routed: a[k('routed')] === 'true',
  };
  if (mac !== undefined) value.mac = mac;
  const logicalSwitch = optional('logical_switch');
  if (logicalSwitch !== undefined) value.logicalSwitch = logicalSwitch;
  const logicalRouter = optional('logical_router');
  if (logicalRouter !== undefined) value.logicalRouter = logicalRouter;
  const podNicType = optional('pod_nic_type');
  if (podNicType !== undefined) value.podNicType = podNicType;
  return { ok: true, value };
}

function issue(code: AnnotationIssue['code'], key: string, message: string): Decoded<never> {
  return { ok: false, issue: { code, path: pathOf(key), message: `${key}: ${message}` } };
}

/** A node's join-network port as the controller writes it (pkg/controller/node.go handleAddNode). */
export interface NodeNetwork {
  readonly ips: readonly string[];
  readonly mac: string;
  readonly cidrs: readonly string[];
  readonly gateways: readonly string[];
  /** The join switch. */
  readonly logicalSwitch: string;
  readonly portName: string;
}

export function encodeNodeNetwork(n: NodeNetwork): Record<string, string> {
  const k = (key: WrittenKey) => annotationKey(OVN_PROVIDER, key);
  return {
    [k('ip_address')]: n.ips.join(','),
    [k('mac_address')]: n.mac,
    [k('cidr')]: n.cidrs.join(','),
    [k('gateway')]: n.gateways.join(','),
    [k('logical_switch')]: n.logicalSwitch,
    [k('port_name')]: n.portName,
    [k('allocated')]: 'true',
  };
}

/**
 * A node's join port from its annotations: the same `allocated`,
 * `ip_address` and `mac_address` keys as a pod's, in the default network.
 *
 * @example decodeNodeNetwork(node.annotations) // { ok: true, value: { ips: ['100.64.0.2'], mac: '...', ... } }
 */
export function decodeNodeNetwork(a: Annotations): Decoded<PodNetworkRead> {
  return decodePodNetwork(a, OVN_PROVIDER);
}

/**
 * What the annotations ask of the IPAM and the port, as written (the IPAM
 * parses addresses and reports its own errors): set by a user, or read back
 * from an earlier allocation (a pod keeps its addresses across reconciles).
 */
export interface AddressRequest {
  /** `ip_address`: addresses, comma separated. */
  readonly ips?: string;
  readonly mac?: string;
  /** `ip_pool`: a pool name or addresses. */
  readonly ipPool?: string;
  readonly logicalSwitch?: string;
  readonly portSecurity: boolean;
}

/**
 * @example
 * decodeAddressRequest({ 'ovn.kubernetes.io/ip_address': '10.16.0.9' }) // { ips: '10.16.0.9', portSecurity: false }
 */
export function decodeAddressRequest(a: Annotations, provider = OVN_PROVIDER): AddressRequest {
  const k = (key: RequestKey) => annotationKey(provider, key);
  const out: { -readonly [F in keyof AddressRequest]: AddressRequest[F] } = {
    portSecurity: a[k('port_security')] === 'true',
  };
  if (a[k('ip_address')]) out.ips = a[k('ip_address')];
  if (a[k('mac_address')]) out.mac = a[k('mac_address')];
  if (a[k('ip_pool')]) out.ipPool = a[k('ip_pool')];
  if (a[k('logical_switch')]) out.logicalSwitch = a[k('logical_switch')];
  return out;
}

/**
 * Services → VIPs on their VPC's load balancers, Kube-OVN's way
 * (pkg/controller/init.go initLB, pkg/controller/endpoint_slice.go):
 * - each VPC has a TCP, a UDP and an SCTP load balancer, and a "session"
 *   twin of each for `sessionAffinity: ClientIP` (selection on the client
 *   address, `affinity_timeout` 10800 s); the non-session UDP one flushes
 *   conntrack when its VIPs change (`ct_flush`);
 * - a Service port becomes the VIP `<clusterIP>:<port>` (`[ip]:port` for
 *   IPv6) on the load balancer of its protocol, with the ready endpoints'
 *   addresses of the VIP's family and the target port the endpoint slice
 *   gives the port's name (so a named target port resolves per slice, and
 *   slices group endpoints by number);
 * - a Service port with no ready endpoint has no VIP at all (Kube-OVN
 *   deletes it "for performance reason"): traffic to it is routed like any
 *   other address of the service CIDR.
 *
 * OVN 23.03's `selection_fields` has no `ipv6_src`: `ip_src` covers both
 * families there, so the session load balancers select on `ip_src` only
 * (Kube-OVN, built for newer OVN, also names `ipv6_src`).
 */
import type { LbProtocol, LoadBalancer } from '../../model/topology/index.ts';
import type { Contribution } from '../desired/store.ts';
import type { VpcLoadBalancers } from './names.ts';

/** Kube-OVN's `DefaultServiceSessionStickinessTimeout`, in seconds. */
export const SESSION_STICKINESS_TIMEOUT = 10800;

export type ServiceProtocol = 'TCP' | 'UDP' | 'SCTP';

export interface ServiceInput {
  readonly clusterIPs: readonly string[];
  /** spec.externalIPs: Kube-OVN adds them as VIPs beside the cluster IPs. */
  readonly externalIPs?: readonly string[];
  readonly ports: readonly { readonly name?: string; readonly protocol?: ServiceProtocol; readonly port: number }[];
  readonly sessionAffinity?: 'ClientIP' | 'None';
}

export interface EndpointSliceInput {
  readonly ports: readonly { readonly name?: string; readonly port?: number; readonly protocol?: ServiceProtocol }[];
  readonly endpoints: readonly { readonly addresses: readonly string[]; readonly ready?: boolean }[];
}

/** The six load balancers of a VPC as rows. */
export function vpcLoadBalancerRows(lbs: VpcLoadBalancers): LoadBalancer[] {
  const row = (name: string, protocol: LbProtocol, session: boolean): LoadBalancer => ({
    name,
    vips: {},
    protocol,
    selectionFields: session ? ['ip_src'] : [],
    options: session
      ? { affinity_timeout: String(SESSION_STICKINESS_TIMEOUT) }
      : protocol === 'udp'
        ? { ct_flush: 'true' }
        : {},
    externalIds: {},
  });
  return [
    row(lbs.tcp, 'tcp', false),
    row(lbs.udp, 'udp', false),
    row(lbs.sctp, 'sctp', false),
    row(lbs.tcpSession, 'tcp', true),
    row(lbs.udpSession, 'udp', true),
    row(lbs.sctpSession, 'sctp', true),
  ];
}

const isV6 = (ip: string) => ip.includes(':');
const hostPort = (ip: string, port: number) => (isV6(ip) ? `[${ip}]:${port}` : `${ip}:${port}`);

function lbFor(lbs: VpcLoadBalancers, protocol: ServiceProtocol, session: boolean): string {
  switch (protocol) {
    case 'UDP':
      return session ? lbs.udpSession : lbs.udp;
    case 'SCTP':
      return session ? lbs.sctpSession : lbs.sctp;
    default:
      return session ? lbs.tcpSession : lbs.tcp;
  }
}

/**
 * The VIP entries one Service puts on its VPC's load balancers, as
 * contributions to the load balancers' `vips` (the load balancer rows
 * themselves belong to the VPC).
 *
 * @example
 * serviceVips({ clusterIPs: ['10.96.0.10'], ports: [{ name: 'dns', protocol: 'UDP', port: 53 }] }, slices, lbs)
 * // [{ table: 'loadBalancer', key: 'cluster-udp-loadbalancer', column: 'vips', entries: { '10.96.0.10:53': '10.16.0.5:53' } }]
 */
export function serviceVips(
  svc: ServiceInput,
  slices: readonly EndpointSliceInput[],
  lbs: VpcLoadBalancers,
): Contribution[] {
  const session = svc.sessionAffinity === 'ClientIP';
  const byLb = new Map<string, Record<string, string>>();
  const vips = [...svc.clusterIPs, ...(svc.externalIPs ?? [])].filter((ip) => ip !== '' && ip !== 'None');
  for (const vip of vips) {
    for (const port of svc.ports) {
      const protocol = port.protocol ?? 'TCP';
      const backends = backendsFor(slices, port.name ?? '', protocol, isV6(vip));
      if (backends.length === 0) continue;
      const lb = lbFor(lbs, protocol, session);
      let entries = byLb.get(lb);
      if (entries === undefined) byLb.set(lb, (entries = {}));
      entries[hostPort(vip, port.port)] = backends.join(',');
    }
  }
  return [...byLb].map(([key, entries]) => ({ table: 'loadBalancer', key, column: 'vips', entries }));
}

function backendsFor(
  slices: readonly EndpointSliceInput[],
  name: string,
  protocol: ServiceProtocol,
  v6: boolean,
): string[] {
  const out: string[] = [];
  for (const slice of slices) {
    const p = slice.ports.find((sp) => (sp.name ?? '') === name && (sp.protocol ?? 'TCP') === protocol);
    if (p?.port === undefined) continue;
    for (const ep of slice.endpoints) {
      // An endpoint without a Ready condition counts as ready (EndpointSlice API).
      if (ep.ready === false) continue;
      for (const a of ep.addresses) if (isV6(a) === v6) out.push(hostPort(a, p.port));
    }
  }
  return [...new Set(out)];
}

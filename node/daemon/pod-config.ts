/**
 * What a pod's interface should be, from the annotations the controller
 * wrote (kube/annotations.ts): the veth's pod end (addresses with the
 * subnet's prefix, the default route per family via the subnet's gateway,
 * MAC, MTU) and the CNI result the runtime gets. Pure: the daemon decides
 * when the annotations are complete, this only reads them.
 */
import { type PodNetworkRead, annotationKey } from '../../kube/annotations.ts';
import type { CniResult, CniRoute } from '../cni/protocol.ts';
import type { LinkRoute, PodLink } from '../netlink/types.ts';
import { tryParseIP } from '../../model/addr/ip.ts';

/** A pod network whose annotations are complete enough to plumb it. */
export interface PlumbableNetwork extends PodNetworkRead {
  readonly mac: string;
}

export interface LinkTarget {
  readonly hostIfName: string;
  readonly netns: string;
  readonly ifName: string;
  readonly mtu: number;
}

/** Why annotations cannot be plumbed: the key and what is wrong with it. */
export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
}

const isV6 = (ip: string): boolean => ip.includes(':');

/** Keys the daemon reads that kube/annotations.ts does not write: Kube-OVN's `routes` and `default_route`. */
const podKey = (provider: string, name: string): string => `${provider}.kubernetes.io/${name}`;

/**
 * The routes a pod's annotations add (Kube-OVN's `routes`: a JSON list of
 * `{dst, gw}`, an empty dst the default route); an entry that does not
 * parse is left out, as Kube-OVN skips it. Undefined when the annotation
 * itself is not such a list.
 */
function extraRoutes(v: string | undefined): LinkRoute[] | undefined {
  if (v === undefined || v === '') return [];
  let list: unknown;
  try {
    list = JSON.parse(v);
  } catch {
    return undefined;
  }
  if (!Array.isArray(list)) return undefined;
  const out: LinkRoute[] = [];
  for (const r of list as { dst?: unknown; gw?: unknown }[]) {
    const dst = typeof r?.dst === 'string' ? r.dst : '';
    const gw = typeof r?.gw === 'string' ? r.gw : '';
    const [net, prefix] = dst.split('/');
    if (dst !== '' && (tryParseIP(net ?? '') === undefined || !/^\d+$/.test(prefix ?? ''))) continue;
    if (gw !== '' && tryParseIP(gw) === undefined) continue;
    if (dst === '' && gw === '') continue;
    out.push({ dst: dst === '' ? 'default' : dst, ...(gw === '' ? {} : { gw }) });
  }
  return out;
}

/**
 * The pod end as the Netlink interface takes it: the default route per
 * family via the subnet's gateway when the interface is the default one
 * (Kube-OVN: `default_route`, else eth0), then the `routes` annotation's.
 *
 * @example
 * podLinkOf(net, { hostIfName: 'abc_h', netns: '/run/netns/p', ifName: 'eth0', mtu: 1400 }, 'ovn')
 * // { ok: true, value: { addresses: ['10.16.0.5/16'], routes: [{ dst: 'default', gw: '10.16.0.1' }], ... } }
 */
export function podLinkOf(
  n: PlumbableNetwork,
  t: LinkTarget,
  provider: string,
  annotations: Readonly<Record<string, string | undefined>> = {},
): { ok: true; value: PodLink } | { ok: false; issue: ConfigIssue } {
  const flag = annotations[podKey(provider, 'default_route')];
  const isDefault = flag === 'true' ? true : flag === 'false' ? false : t.ifName === 'eth0';
  const addresses: string[] = [];
  const routes: LinkRoute[] = [];
  for (const ip of n.ips) {
    const cidr = n.cidrs.find((c) => isV6(c) === isV6(ip));
    if (cidr === undefined) return fail(provider, 'cidr', `no ${isV6(ip) ? 'IPv6' : 'IPv4'} CIDR for address ${ip}`);
    addresses.push(`${ip}/${cidr.split('/')[1]}`);
    const gw = n.gateways.find((g) => isV6(g) === isV6(ip));
    if (gw !== undefined && isDefault) routes.push({ dst: 'default', gw });
  }
  const extra = extraRoutes(annotations[podKey(provider, 'routes')]);
  if (extra === undefined) return fail(provider, 'routes', 'not a JSON list of {dst, gw}');
  return {
    ok: true,
    value: {
      hostIfName: t.hostIfName,
      netns: t.netns,
      ifName: t.ifName,
      mac: n.mac,
      mtu: t.mtu,
      addresses,
      routes: [...routes, ...extra],
    },
  };
}

function fail(provider: string, key: 'cidr' | 'routes', message: string): { ok: false; issue: ConfigIssue } {
  const k = key === 'cidr' ? annotationKey(provider, key) : podKey(provider, key);
  return { ok: false, issue: { path: `metadata.annotations[${k}]`, message: `${k}: ${message}` } };
}

/**
 * The CNI result for an attached pod link: its one interface in the
 * sandbox, an address per family with the gateway, and the default routes
 * (as Kube-OVN's plugin answers, cmd/cni generateCNIResult).
 *
 * @example
 * cniResultOf(link, '1.0.0') // { cniVersion: '1.0.0', interfaces: [{ name: 'eth0', mac, sandbox }], ips: [...], routes: [...] }
 */
export function cniResultOf(l: PodLink, cniVersion: string): CniResult {
  const gwOf = (addr: string) => l.routes.find((r) => r.dst === 'default' && r.gw && isV6(r.gw) === isV6(addr))?.gw;
  const routes: CniRoute[] = l.routes.map((r) =>
    r.dst === 'default'
      ? { dst: isV6(r.gw ?? '') ? '::/0' : '0.0.0.0/0', ...(r.gw === undefined ? {} : { gw: r.gw }) }
      : { dst: r.dst, ...(r.gw === undefined ? {} : { gw: r.gw }) },
  );
  return {
    cniVersion,
    interfaces: [{ name: l.ifName, mac: l.mac, mtu: l.mtu, sandbox: l.netns }],
    ips: l.addresses.map((address) => {
      const gateway = gwOf(address);
      return { address, ...(gateway === undefined ? {} : { gateway }), interface: 0 };
    }),
    routes,
  };
}

/**
 * Probes to an address a VPC's router translates to a pod: an EIP of an
 * OvnFip (a `dnat_and_snat` row) or of an OvnDnatRule (a load balancer VIP
 * on the router). The probe is sent to that address and must reach the pod
 * behind it (its port is the target), so the translation is what the
 * verdict checks: without it, the address leads nowhere.
 */
import type { LogicalRouterPort, Topology } from '../model/topology/index.ts';

/** The router VIP's address of a load balancer key (`ip`, `ip:port`, `[v6]:port`). */
function vipAddress(vip: string): string {
  if (vip.startsWith('[')) return vip.slice(1, vip.indexOf(']'));
  const colon = vip.indexOf(':');
  return colon >= 0 && vip.indexOf(':', colon + 1) < 0 ? vip.slice(0, colon) : vip;
}

/**
 * The internal addresses (and their router) an external address is
 * translated to: FIPs first, then the backends of router VIPs on it.
 *
 * @example natTargets(topology, '172.18.0.20') // [{ router: 'vpc1', ip: '10.1.0.2' }]
 */
export function natTargets(t: Topology, ip: string): { router: string; ip: string }[] {
  const out: { router: string; ip: string }[] = [];
  for (const n of t.nat.values())
    if (n.type !== 'snat' && n.externalIp === ip) out.push({ router: n.router, ip: n.logicalIp });
  for (const r of t.router.values()) {
    for (const name of r.loadBalancers) {
      const lb = t.loadBalancer.get(name);
      for (const [vip, backends] of Object.entries(lb?.vips ?? {})) {
        if (vipAddress(vip) !== ip) continue;
        for (const b of backends.split(',').filter(Boolean)) out.push({ router: r.name, ip: vipAddress(b) });
      }
    }
  }
  return out;
}

/**
 * The MAC a router's gateway port answers ARP with for `ip` when `ip` is one
 * of its router's NAT addresses (northd 23.03 build_lrouter_arp_nd_for_datapath
 * on a distributed gateway port): a distributed FIP's `external_mac`, else the
 * port's own MAC, for every NAT external address and load balancer VIP.
 *
 * @example natArpMac(topology, topology.routerPort.get('vpc1-external')!, '172.18.0.21') // the port's MAC
 */
export function natArpMac(t: Topology, rp: LogicalRouterPort, ip: string): string | undefined {
  if (rp.gatewayChassis.length === 0) return undefined;
  for (const n of t.nat.values()) {
    if (n.router !== rp.router || n.externalIp !== ip) continue;
    return n.type === 'dnat_and_snat' && n.externalMac && n.logicalPort ? n.externalMac : rp.mac;
  }
  for (const lb of t.router.get(rp.router)?.loadBalancers ?? [])
    for (const vip of Object.keys(t.loadBalancer.get(lb)?.vips ?? {})) if (vipAddress(vip) === ip) return rp.mac;
  return undefined;
}

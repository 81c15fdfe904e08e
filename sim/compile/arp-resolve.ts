/**
 * lr_in_arp_resolve's static entries (northd.c
 * build_arp_resolve_flows_for_lrouter_port and the NAT part of
 * build_lrouter_nat_defrag_and_lb): what MAC a router uses for a next hop it
 * can know without asking.
 *
 * - VIF addresses of a switch a router port attaches to, when the address is
 *   in one of that router port's networks;
 * - the addresses of other router ports on the same switch (unless the
 *   router sets options:dynamic_neigh_routers);
 * - a directly peered router port's addresses;
 * - NAT external IPs on a distributed gateway port (external_mac for
 *   distributed NAT, else the gateway port's MAC).
 */
import type { Topology } from '../../model/topology/index.ts';
import { inNetwork, type IpKey, ipKey } from './addresses.ts';
import { IpTable } from './int-table.ts';
import type { PortInfo, RouterDp, RouterPortInfo, SwitchDp } from './types.ts';

type Table = Map<string, Map<IpKey, number>>;

function put(t: Table, outport: string, ip: number | bigint, mac: number): void {
  let m = t.get(outport);
  if (m === undefined) {
    m = new Map();
    t.set(outport, m);
  }
  if (!m.has(ipKey(ip))) m.set(ipKey(ip), mac);
}

function addrsOf(rp: RouterPortInfo): (number | bigint)[] {
  return rp.networks.map((n) => n.ip);
}

function switchEntries(
  t: Table,
  rp: RouterPortInfo,
  sw: SwitchDp,
  ports: ReadonlyMap<string, PortInfo>,
  dynamicNeigh: boolean,
): void {
  for (const name of sw.ports) {
    const p = ports.get(name);
    if (p?.kind !== 'lsp' || !p.enabled) continue;
    if (p.type === 'router') {
      const other = p.routerPort === undefined ? undefined : ports.get(p.routerPort);
      if (dynamicNeigh || other?.kind !== 'lrp' || other.name === rp.name) continue;
      for (const ip of addrsOf(other)) put(t, rp.name, ip, other.mac);
      continue;
    }
    if (p.type === 'virtual') continue;
    for (const a of p.addresses) {
      for (const ip of [...a.ip4, ...a.ip6]) {
        if (rp.networks.some((n) => inNetwork(n, ip))) put(t, rp.name, ip, a.mac);
      }
    }
  }
}

/** Fill each router's arpResolve table. */
export function buildArpResolve(
  t: Topology,
  routers: Map<string, RouterDp>,
  switches: ReadonlyMap<string, SwitchDp>,
  ports: ReadonlyMap<string, PortInfo>,
): void {
  for (const [name, r] of routers) {
    const table: Table = new Map();
    const dynamicNeigh = t.router.get(name)?.options['dynamic_neigh_routers'] === 'true';
    for (const pn of r.ports) {
      const rp = ports.get(pn);
      if (rp?.kind !== 'lrp') continue;
      const peer = rp.peer === undefined ? undefined : ports.get(rp.peer);
      if (peer?.kind === 'lrp' && peer.peer === rp.name)
        for (const ip of addrsOf(peer)) put(table, rp.name, ip, peer.mac);
      const sp = rp.switchPort === undefined ? undefined : ports.get(rp.switchPort);
      const sw = sp?.kind === 'lsp' ? switches.get(sp.switch) : undefined;
      if (sw) switchEntries(table, rp, sw, ports, dynamicNeigh);
    }
    if (!r.isGateway) {
      for (const n of r.nats) {
        if (n.gatewayPort === undefined) continue;
        const gp = ports.get(n.gatewayPort);
        if (gp?.kind !== 'lrp') continue;
        put(table, gp.name, n.externalIp, n.distributed && n.externalMac !== undefined ? n.externalMac : gp.mac);
      }
    }
    const tables = new Map<string, IpTable<number>>();
    for (const [port, m] of table) tables.set(port, IpTable.of(m));
    routers.set(name, { ...r, arpResolve: tables });
  }
}

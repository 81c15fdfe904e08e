/**
 * Where packets go between datapaths, resolved once: the datapath each port
 * belongs to, and for every patch port the datapath and port a packet
 * leaving through it enters (a switch port of type router → its router
 * port; a router port → the switch port attaching it, or its peer router
 * port when the two name each other). The pipelines follow these instead of
 * looking ports and datapaths up by name per packet.
 */
import type { PortInfo, PortPlace, RouterDp, SwitchDp } from './types.ts';

function linkOf(
  p: PortInfo,
  ports: ReadonlyMap<string, PortInfo>,
  switches: ReadonlyMap<string, SwitchDp>,
  routers: ReadonlyMap<string, RouterDp>,
): PortPlace | undefined {
  if (p.kind === 'lsp') {
    if (p.type !== 'router' || p.routerPort === undefined) return undefined;
    const rp = ports.get(p.routerPort);
    const router = rp?.kind === 'lrp' ? routers.get(rp.router) : undefined;
    return router === undefined ? undefined : { dp: router, port: p.routerPort, info: rp! };
  }
  if (p.switchPort !== undefined) {
    const sp = ports.get(p.switchPort);
    const sw = sp?.kind === 'lsp' ? switches.get(sp.switch) : undefined;
    // A router port attached to a switch goes there or nowhere (never to a peer).
    return sw === undefined ? undefined : { dp: sw, port: p.switchPort, info: sp! };
  }
  if (p.peer !== undefined) {
    const peer = ports.get(p.peer);
    const router = peer?.kind === 'lrp' && peer.peer === p.name ? routers.get(peer.router) : undefined;
    // northd types a gateway router's ports l3gateway and a distributed router's patch, and
    // ovn-controller (physical.c) installs a peer link only between ports of one type: a gateway
    // router peered directly with a distributed one passes nothing either way.
    if (router !== undefined && router.isGateway !== routers.get(p.router)?.isGateway) return undefined;
    return router === undefined ? undefined : { dp: router, port: p.peer, info: peer! };
  }
  return undefined;
}

/**
 * @example const { places, links } = buildLinks(ports, switches, routers);
 * links.get('sw1-r1') // { dp: <router r1>, port: 'r1-sw1' }
 */
export function buildLinks(
  ports: ReadonlyMap<string, PortInfo>,
  switches: ReadonlyMap<string, SwitchDp>,
  routers: ReadonlyMap<string, RouterDp>,
): { places: Map<string, PortPlace>; links: Map<string, PortPlace> } {
  const places = new Map<string, PortPlace>();
  const links = new Map<string, PortPlace>();
  for (const p of ports.values()) {
    const dp = p.kind === 'lsp' ? switches.get(p.switch) : routers.get(p.router);
    if (dp !== undefined) places.set(p.name, { dp, port: p.name, info: p });
    const link = linkOf(p, ports, switches, routers);
    if (link) links.set(p.name, link);
  }
  return { places, links };
}

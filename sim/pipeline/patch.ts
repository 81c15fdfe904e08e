/**
 * Crossing between datapaths over patch ports. As ovn-controller's physical
 * flows do (physical.c, patch ports), the packet enters the peer's ingress
 * pipeline with conntrack state cleared, zones, flags and registers zeroed,
 * and the peer port as inport.
 */
import type { Datapath } from '../compile/types.ts';
import { NO_CARRY } from './context.ts';
import type { StageRun } from './run.ts';

function enter<D extends Datapath>(s: StageRun<D>, dp: Datapath, inport: string): void {
  s.spawn({ dp, pipeline: 'ingress', inport, outport: '', packet: s.ctx.packet, carry: NO_CARRY });
}

/** From a switch port of type router into its router port. */
export function patchToRouter<D extends Datapath>(s: StageRun<D>, routerPort: string): void {
  const rp = s.net.ports.get(routerPort);
  const router = rp?.kind === 'lrp' ? s.net.routers.get(rp.router) : undefined;
  if (router === undefined) return;
  enter(s, router, routerPort);
}

/** From a router port into the switch (or peer router) it is attached to; false when it goes nowhere. */
export function patchFromRouterPort<D extends Datapath>(s: StageRun<D>, routerPort: string): boolean {
  const rp = s.net.ports.get(routerPort);
  if (rp?.kind !== 'lrp') return false;
  if (rp.switchPort !== undefined) {
    const sp = s.net.ports.get(rp.switchPort);
    const sw = sp?.kind === 'lsp' ? s.net.switches.get(sp.switch) : undefined;
    if (sw === undefined) return false;
    enter(s, sw, rp.switchPort);
    return true;
  }
  if (rp.peer !== undefined) {
    const peer = s.net.ports.get(rp.peer);
    const router = peer?.kind === 'lrp' && peer.peer === rp.name ? s.net.routers.get(peer.router) : undefined;
    if (router === undefined) return false;
    enter(s, router, rp.peer);
    return true;
  }
  return false;
}

/**
 * Crossing between datapaths over patch ports. As ovn-controller's physical
 * flows do (physical.c, patch ports), the packet enters the peer's ingress
 * pipeline with conntrack state cleared, zones, flags and registers zeroed,
 * and the peer port as inport. Where each patch port leads is resolved at
 * compile time (`net.links`, compile/links.ts).
 */
import type { Datapath } from '../compile/types.ts';
import { NO_CARRY } from './context.ts';
import type { StageRun } from './run.ts';

/** Out of patch port `port` into the datapath on the other side; false when it leads nowhere. */
export function crossPatch<D extends Datapath>(s: StageRun<D>, port: string): boolean {
  const link = s.net.links.get(port);
  if (link === undefined) return false;
  s.spawn({
    dp: link.dp,
    pipeline: 'ingress',
    inport: link.port,
    outport: '',
    packet: s.ctx.packet,
    carry: NO_CARRY,
    inInfo: link.info,
  });
  return true;
}

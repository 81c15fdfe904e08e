/**
 * The node daemon as the real-runtime tests and `kovn bench cni` run it: in
 * this process over the world's in-memory cluster (until the daemon reads a
 * real API server), with the real rtnetlink, on the node's conf.db, and the
 * plugin executable the runtime calls.
 */
import { startNodeDaemon } from '../../node/daemon/index.ts';
import { RtNetlink } from '../../node/netlink/index.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import type { StartDaemon } from './world.ts';

/**
 * @example
 * const world = await RuntimeWorld.start({ startDaemon: realDaemon() });
 */
export function realDaemon(log?: (line: string) => void): StartDaemon {
  return async (o) => {
    const d = await startNodeDaemon({
      node: o.node,
      cluster: o.cluster,
      netlink: new RtNetlink(),
      ovsRemote: o.ovsRemote,
      socket: o.socket,
      clock: realClock,
      ...(log !== undefined ? { log } : {}),
    });
    return { close: () => d.close() };
  };
}

/**
 * The node daemon assembled: the local Open_vSwitch database, the pod
 * informer, the agent, the sweep of what belongs to gone pods, the socket.
 * `kovn daemon` (cli/daemon.ts), the lab and the tests start it in process
 * over a cluster source they hand it.
 */
import type { Timers } from '../../backends/ovn/ovsdb/index.ts';
import type { ClusterSource } from '../../kube/cluster/types.ts';
import type { Clock } from '../../kube/runtime/clock.ts';
import { DEFAULT_DAEMON_SOCKET } from '../cni/protocol.ts';
import type { Netlink } from '../netlink/types.ts';
import { Vswitch } from '../ovs/index.ts';
import { NodeAgent, type NodeAgentOptions } from './agent.ts';
import type { Attachment } from './attachments.ts';
import { PodWatch } from './pod-watch.ts';
import { type DaemonServer, listenDaemon } from './server.ts';

export interface NodeDaemonOptions extends Omit<NodeAgentOptions, 'vswitch' | 'pods' | 'netlink'> {
  readonly cluster: ClusterSource;
  readonly netlink: Netlink;
  /** The local conf.db, e.g. `unix:/run/openvswitch/db.sock`. */
  readonly ovsRemote: string;
  /** Default DEFAULT_DAEMON_SOCKET. */
  readonly socket?: string;
  readonly clock: Clock;
  /** For the OVSDB session's waits (default: the system's). */
  readonly timers?: Timers;
}

export interface NodeDaemon {
  readonly agent: NodeAgent;
  readonly server: DaemonServer;
  readonly vswitch: Vswitch;
  /** What the start-up sweep removed. */
  readonly swept: readonly Attachment[];
  close(): Promise<void>;
}

/**
 * Opens conf.db, lists the pods, removes the attachments of pods (or
 * namespaces) that are gone, then listens.
 *
 * @example
 * const d = await startNodeDaemon({ node: 'node1', cluster, netlink, ovsRemote: 'unix:/run/openvswitch/db.sock', clock: realClock });
 * // plugin requests on /run/kovn/daemon.sock
 * await d.close();
 */
export async function startNodeDaemon(opts: NodeDaemonOptions): Promise<NodeDaemon> {
  const log = opts.log ?? (() => {});
  const vswitch = await Vswitch.open({ remote: opts.ovsRemote, ...(opts.timers ? { timers: opts.timers } : {}) });
  const pods = new PodWatch(opts.cluster, { clock: opts.clock, onError: (e) => log(`pods: ${String(e)}`) });
  let server: DaemonServer | undefined;
  try {
    await pods.start();
    const subnetMtu = async (name: string) => {
      const mtu = ((await opts.cluster.get({ kind: 'Subnet', name })) as { spec?: { mtu?: unknown } } | undefined)?.spec
        ?.mtu;
      return typeof mtu === 'number' ? mtu : undefined;
    };
    const agent = new NodeAgent({ subnetMtu, ...opts, vswitch, pods, log });
    const swept = await agent.sweep();
    pods.onChange((pod, deleted) => {
      if (!deleted) agent.refreshBandwidth(pod).catch((e) => log(`bandwidth: ${String(e)}`));
    });
    server = await listenDaemon(opts.socket ?? DEFAULT_DAEMON_SOCKET, (req) => agent.handle(req));
    const s = server;
    return {
      agent,
      server: s,
      vswitch,
      swept,
      async close() {
        await s.close();
        pods.stop();
        vswitch.close();
      },
    };
  } catch (e) {
    await server?.close();
    pods.stop();
    vswitch.close();
    throw e;
  }
}

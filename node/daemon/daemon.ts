/**
 * The node daemon assembled: the local Open_vSwitch database, the pod
 * informer, the agent, the sweep of what belongs to gone pods, the socket.
 * `kovn daemon` (cli/daemon.ts), the lab and the tests start it in process
 * over a cluster source they hand it.
 */
import type { Timers } from '../../backends/ovn/ovsdb/index.ts';
import type { ClusterSource } from '../../kube/cluster/types.ts';
import type { Clock } from '../../kube/runtime/clock.ts';
import { DEFAULT_DAEMON_SOCKET, type DaemonRequest, type DaemonResponse } from '../cni/protocol.ts';
import type { Netlink } from '../netlink/types.ts';
import { Vswitch } from '../ovs/index.ts';
import { NodeAgent, type NodeAgentOptions } from './agent.ts';
import type { Attachment } from './attachments.ts';
import { NodeSetup, type NodeSetupConfig } from './node-setup.ts';
import type { RequestObserver } from './metrics.ts';
import { PodWatch } from './pod-watch.ts';
import { type DaemonServer, listenDaemon } from './server.ts';

export interface NodeDaemonOptions extends Omit<NodeAgentOptions, 'vswitch' | 'pods' | 'netlink' | 'setupPending'> {
  readonly cluster: ClusterSource;
  readonly netlink: Netlink;
  /** The local conf.db, e.g. `unix:/run/openvswitch/db.sock`. */
  readonly ovsRemote: string;
  /** Default DEFAULT_DAEMON_SOCKET. */
  readonly socket?: string;
  readonly clock: Clock;
  /** For the OVSDB session's waits (default: the system's). */
  readonly timers?: Timers;
  /**
   * The node's set-up (node-setup.ts): Open_vSwitch settings and ovn0, run
   * once the socket listens (STATUS answers 50 until it is done). Absent:
   * the node is set up by someone else (the lab, the tests).
   */
  readonly setup?: NodeSetupConfig;
  /**
   * Read only this node's pods (a field selector on `spec.nodeName`, as
   * Kube-OVN's cniserver's pod informer does), which the source must apply:
   * the API does; the in-memory cluster refuses selectors, so the lab and
   * the tests leave it off.
   */
  readonly podsOfNodeOnly?: boolean;
  /** Told of every plugin request once answered, with how long it took on `clock` (metrics.ts). */
  readonly onRequest?: RequestObserver;
}

export interface NodeDaemon {
  readonly agent: NodeAgent;
  readonly server: DaemonServer;
  readonly vswitch: Vswitch;
  /** What the start-up sweep removed. */
  readonly swept: readonly Attachment[];
  /** The node set-up, when asked for: resolves once it is done, rejects when it failed. */
  readonly setup: Promise<void>;
  close(): Promise<void>;
}

/** The agent's request handler, timed for `onRequest` when given. */
function observed(agent: NodeAgent, opts: NodeDaemonOptions): (req: DaemonRequest) => Promise<DaemonResponse> {
  const { onRequest, clock } = opts;
  if (onRequest === undefined) return (req) => agent.handle(req);
  return async (req) => {
    const start = clock.now();
    let res: DaemonResponse | undefined;
    try {
      res = await agent.handle(req);
      return res;
    } finally {
      onRequest(req, res, clock.now() - start);
    }
  };
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
  const pods = new PodWatch(opts.cluster, {
    clock: opts.clock,
    onError: (e) => log(`pods: ${String(e)}`),
    ...(opts.podsOfNodeOnly ? { fieldSelector: `spec.nodeName=${opts.node}` } : {}),
  });
  let server: DaemonServer | undefined;
  const bridge = opts.bridge ?? 'br-int';
  const nodeSetup =
    opts.setup === undefined
      ? undefined
      : new NodeSetup(
          {
            node: opts.node,
            cluster: opts.cluster,
            vs: vswitch,
            netlink: opts.netlink,
            clock: opts.clock,
            bridge,
            mtu: opts.mtu ?? 1400,
            profile: opts.profile,
            waitApplied: (opts.wait ?? 'installed') !== 'none',
            log,
          },
          opts.setup,
        );
  try {
    await pods.start();
    const subnetMtu = async (name: string) => {
      const mtu = ((await opts.cluster.get({ kind: 'Subnet', name })) as { spec?: { mtu?: unknown } } | undefined)?.spec
        ?.mtu;
      return typeof mtu === 'number' ? mtu : undefined;
    };
    const subnetU2oGateways = async (name: string) => {
      const s = (await opts.cluster.get({ kind: 'Subnet', name })) as
        | { spec?: { u2oInterconnection?: unknown }; status?: { u2oInterconnectionIP?: unknown } }
        | undefined;
      const ip = s?.status?.u2oInterconnectionIP;
      return s?.spec?.u2oInterconnection === true && typeof ip === 'string' && ip !== '' ? ip.split(',') : undefined;
    };
    const setupPending = nodeSetup === undefined ? undefined : () => nodeSetup.pending();
    const agent = new NodeAgent({
      subnetMtu,
      subnetU2oGateways,
      ...opts,
      vswitch,
      pods,
      log,
      ...(setupPending ? { setupPending } : {}),
    });
    const swept = await agent.sweep();
    pods.onChange((pod, deleted) => {
      if (!deleted) agent.refreshBandwidth(pod).catch((e) => log(`bandwidth: ${String(e)}`));
    });
    server = await listenDaemon(opts.socket ?? DEFAULT_DAEMON_SOCKET, observed(agent, opts));
    const s = server;
    const setup = nodeSetup?.run() ?? Promise.resolve();
    // Marked handled here: a caller that never awaits it still sees the failure in STATUS and the log.
    setup.catch((e) => log(String(e instanceof Error ? e.message : e)));
    return {
      agent,
      server: s,
      vswitch,
      swept,
      setup,
      async close() {
        nodeSetup?.stop();
        await s.close();
        pods.stop();
        vswitch.close();
      },
    };
  } catch (e) {
    nodeSetup?.stop();
    await server?.close();
    pods.stop();
    vswitch.close();
    throw e;
  }
}

/**
 * The lab as a container runtime: each pod is wired by spawning kovn's CNI
 * plugin executable (node/bundle's dist/cni/kovn) exactly as a runtime does
 * (CNI_COMMAND, CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME, CNI_PATH, CNI_ARGS
 * with K8S_POD_NAMESPACE/K8S_POD_NAME; the network config on stdin), the
 * plugin talking to the node's daemon over its unix socket.
 */
import { ensurePluginBuilt } from '../../node/bundle/index.ts';
import type { CniErrorBody } from '../../node/cni/protocol.ts';
import { invokePlugin } from './cni-exec.ts';
import { LabError } from './errors.ts';
import { type LabPodSpec, type PodInterface, type PodWiring, PRIMARY } from './pods.ts';

export interface PluginCall {
  readonly command: 'ADD' | 'DEL' | 'CHECK';
  readonly containerId: string;
  /** The namespace's path, e.g. `/run/netns/kl-Ab12Cd-p0`. */
  readonly netns: string;
  readonly ifName: string;
  readonly podNamespace: string;
  readonly podName: string;
  /** The daemon's socket (`server_socket`). */
  readonly socket: string;
  /** The network config's provider (default `ovn`; a Multus attachment's `<nad>.<nad-ns>.ovn`). */
  readonly provider?: string;
}

export type PluginOutcome =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly exit: number | null; readonly error: CniErrorBody | string };

/**
 * The network config a conflist would hand kovn's plugin (its `type` is the executable's name).
 *
 * @example labNetConf('/tmp/kovn-lab-Ab12Cd/d0.sock') // { cniVersion: '1.0.0', name: 'kovn', type: 'kovn', server_socket: ..., provider: 'ovn' }
 */
export function labNetConf(socket: string, provider = 'ovn'): Record<string, unknown> {
  return { cniVersion: '1.0.0', name: 'kovn', type: 'kovn', server_socket: socket, provider };
}

/**
 * Runs the plugin once for a lab pod (scenarios/lab/cni-exec.ts does the
 * runtime's part), its outcome as the lab reads it.
 *
 * @example await callPlugin(await ensurePluginBuilt(), { command: 'ADD', containerId: 'klAb12Cdp0', netns: '/run/netns/kl-Ab12Cd-p0', ifName: 'eth0', podNamespace: 'default', podName: 'a', socket })
 */
export async function callPlugin(plugin: string, call: PluginCall, timeoutMs = 60_000): Promise<PluginOutcome> {
  const r = await invokePlugin({
    plugin,
    command: call.command,
    config: labNetConf(call.socket, call.provider),
    containerId: call.containerId,
    netns: call.netns,
    ifName: call.ifName,
    args: { K8S_POD_NAMESPACE: call.podNamespace, K8S_POD_NAME: call.podName },
    timeoutMs,
  });
  if (r.code === 0) return { ok: true, result: r.output };
  const body = r.output as CniErrorBody | undefined;
  return { ok: false, exit: r.code, error: body ?? (r.stderr.trim() || r.stdout.trim()) };
}

const describe = (o: PluginOutcome & { ok: false }): string =>
  typeof o.error === 'string'
    ? `exit ${o.exit}: ${o.error}`
    : `code ${o.error.code}: ${o.error.msg}${o.error.details ? ` (${o.error.details})` : ''}`;

/**
 * Pods wired through the plugin and the daemon of the pod's node.
 *
 * @example new CniWiring(plugin, (node) => sockets.get(node)!)
 */
export class CniWiring implements PodWiring {
  constructor(
    readonly plugin: string,
    /** The socket of the daemon of a node. */
    readonly socketOf: (node: string) => string,
  ) {}

  static async create(socketOf: (node: string) => string): Promise<CniWiring> {
    return new CniWiring(await ensurePluginBuilt(), socketOf);
  }

  #call(
    pod: LabPodSpec,
    at: { readonly netns: string; readonly hostNic: string },
    command: PluginCall['command'],
    iface: PodInterface,
  ) {
    return callPlugin(this.plugin, {
      command,
      containerId: at.hostNic,
      netns: `/run/netns/${at.netns}`,
      ifName: iface.ifName,
      provider: iface.provider,
      podNamespace: pod.namespace,
      podName: pod.name,
      socket: this.socketOf(pod.node),
    });
  }

  async add(pod: LabPodSpec, at: { readonly netns: string; readonly hostNic: string }, iface = PRIMARY): Promise<void> {
    const r = await this.#call(pod, at, 'ADD', iface);
    if (!r.ok)
      throw new LabError(
        'wiring-failed',
        `CNI ADD of pod ${pod.namespace}/${pod.name} ${iface.ifName}: ${describe(r)}`,
      );
  }

  async remove(
    pod: LabPodSpec,
    at: { readonly netns: string; readonly hostNic: string },
    iface = PRIMARY,
  ): Promise<void> {
    const r = await this.#call(pod, at, 'DEL', iface);
    if (!r.ok)
      throw new LabError(
        'wiring-failed',
        `CNI DEL of pod ${pod.namespace}/${pod.name} ${iface.ifName}: ${describe(r)}`,
      );
  }
}

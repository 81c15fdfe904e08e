/**
 * The lab as a container runtime: each pod is wired by spawning kovn's CNI
 * plugin executable (node/bundle's dist/cni/kovn) exactly as a runtime does
 * (CNI_COMMAND, CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME, CNI_PATH, CNI_ARGS
 * with K8S_POD_NAMESPACE/K8S_POD_NAME; the network config on stdin), the
 * plugin talking to the node's daemon over its unix socket.
 */
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { ensurePluginBuilt } from '../../node/bundle/index.ts';
import type { CniErrorBody } from '../../node/cni/protocol.ts';
import { LabError } from './errors.ts';
import type { LabPodSpec, PodWiring } from './pods.ts';

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
}

export type PluginOutcome =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly exit: number | null; readonly error: CniErrorBody | string };

/**
 * The network config a conflist would hand kovn's plugin (its `type` is the executable's name).
 *
 * @example labNetConf('/tmp/kovn-lab-Ab12Cd/d0.sock') // { cniVersion: '1.0.0', name: 'kovn', type: 'kovn', server_socket: ..., provider: 'ovn' }
 */
export function labNetConf(socket: string): Record<string, unknown> {
  return { cniVersion: '1.0.0', name: 'kovn', type: 'kovn', server_socket: socket, provider: 'ovn' };
}

/**
 * Runs the plugin once.
 *
 * @example await invokePlugin(await ensurePluginBuilt(), { command: 'ADD', containerId: 'klAb12Cdp0', netns: '/run/netns/kl-Ab12Cd-p0', ifName: 'eth0', podNamespace: 'default', podName: 'a', socket })
 */
export function invokePlugin(plugin: string, call: PluginCall, timeoutMs = 60_000): Promise<PluginOutcome> {
  const env = {
    PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
    CNI_COMMAND: call.command,
    CNI_CONTAINERID: call.containerId,
    CNI_NETNS: call.netns,
    CNI_IFNAME: call.ifName,
    CNI_PATH: dirname(plugin),
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${call.podNamespace};K8S_POD_NAME=${call.podName}`,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(plugin, [], { env, stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.once('error', (e) =>
      reject(new LabError('wiring-failed', `CNI plugin ${plugin}: ${e.message}`, { cause: e })),
    );
    child.once('close', (code) => {
      let body: unknown;
      try {
        body = out.trim() === '' ? undefined : JSON.parse(out);
      } catch {
        body = undefined;
      }
      if (code === 0) resolve({ ok: true, result: body });
      else resolve({ ok: false, exit: code, error: (body as CniErrorBody | undefined) ?? (err.trim() || out.trim()) });
    });
    child.stdin.end(JSON.stringify(labNetConf(call.socket)));
  });
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

  #call(pod: LabPodSpec, at: { readonly netns: string; readonly hostNic: string }, command: PluginCall['command']) {
    return invokePlugin(this.plugin, {
      command,
      containerId: at.hostNic,
      netns: `/run/netns/${at.netns}`,
      ifName: 'eth0',
      podNamespace: pod.namespace,
      podName: pod.name,
      socket: this.socketOf(pod.node),
    });
  }

  async add(pod: LabPodSpec, at: { readonly netns: string; readonly hostNic: string }): Promise<void> {
    const r = await this.#call(pod, at, 'ADD');
    if (!r.ok) throw new LabError('wiring-failed', `CNI ADD of pod ${pod.namespace}/${pod.name}: ${describe(r)}`);
  }

  async remove(pod: LabPodSpec, at: { readonly netns: string; readonly hostNic: string }): Promise<void> {
    const r = await this.#call(pod, at, 'DEL');
    if (!r.ok) throw new LabError('wiring-failed', `CNI DEL of pod ${pod.namespace}/${pod.name}: ${describe(r)}`);
  }
}

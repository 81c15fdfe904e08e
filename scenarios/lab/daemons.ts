/**
 * The parent side of daemon-main.ts: the lab's node daemons (and the
 * real-runtime world's one) in one process inside the run's host namespace,
 * told of nodes and fed the scenario's pods.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { INTEGRATION_BRIDGE } from '../../node/ovs/index.ts';
import type { NodeRequest } from './daemon-main.ts';
import { LabError } from './errors.ts';
import { LineProcess } from './line-process.ts';

const DAEMON_MAIN = fileURLToPath(new URL('./daemon-main.ts', import.meta.url));

/**
 * @example
 * const d = await LabDaemons.start({ host: 'kl-Ab12Cd-h', dir, ovsRemote: chassis.conf.remote });
 * await d.addNode({ name: 'node-1', ... }); await d.put(pod); // then the plugin, on d.socketOf('node-1')
 */
export class LabDaemons {
  readonly #sockets = new Map<string, string>();

  private constructor(
    private readonly p: LineProcess,
    private readonly dir: string,
  ) {}

  static async start(opts: { readonly host: string; readonly dir: string; readonly ovsRemote: string }) {
    // The TypeScript loader the lab itself runs under (tsx), by its resolved path: the child's cwd may be anywhere.
    const tsx = import.meta.resolve('tsx');
    const args = JSON.stringify({ ovsRemote: opts.ovsRemote, bridge: INTEGRATION_BRIDGE });
    const argv = [process.execPath, '--import', tsx, DAEMON_MAIN, args];
    return new LabDaemons(await LineProcess.start(opts.host, 'node daemons', argv), opts.dir);
  }

  /** The socket of a node's daemon (known once addNode ran). */
  socketOf(node: string): string {
    const s = this.#sockets.get(node);
    if (s === undefined) throw new LabError('wiring-failed', `node ${node}: no daemon (not a node of the lab)`);
    return s;
  }

  async #ask(op: string, body: Record<string, unknown>): Promise<void> {
    const r = await this.p.ask(op, body);
    if (r.ok !== true) throw new LabError('wiring-failed', `node daemons: ${op}: ${String(r.error)}`);
  }

  /** The node's ovn0 (when `req.ovn0` asks for it) and its daemon, on `socket` (default: one in the run dir). */
  async addNode(
    req: Omit<NodeRequest, 'socket'>,
    socket = join(this.dir, `d${this.#sockets.size}.sock`),
  ): Promise<void> {
    await this.#ask('node', { ...req, socket });
    this.#sockets.set(req.name, socket);
  }

  /** A pod, or a Subnet its pods are on, as the daemons' cluster has it (created or replaced). */
  async put(object: KubeObject): Promise<void> {
    await this.#ask('put', { object });
  }

  async delete(namespace: string, name: string): Promise<void> {
    await this.#ask('delete', { namespace, name });
  }

  async close(): Promise<void> {
    await this.p.close();
  }
}

/**
 * The parent side of daemon-main.ts: the world's node daemon in its own
 * process inside the world's host namespace, fed the world's pods.
 */
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { LineProcess } from '../lab/line-process.ts';
import { RuntimeError } from './errors.ts';

const DAEMON_MAIN = fileURLToPath(new URL('./daemon-main.ts', import.meta.url));

/**
 * @example
 * const d = await RuntimeDaemon.start({ host: 'krh-1f3a-0', node: 'kovn-node-1', ovsRemote, socket });
 * await d.put(pod); // then the plugin, with server_socket = socket
 * await d.close();
 */
export class RuntimeDaemon {
  private constructor(private readonly p: LineProcess) {}

  static async start(o: {
    readonly host: string;
    readonly node: string;
    readonly ovsRemote: string;
    readonly socket: string;
  }): Promise<RuntimeDaemon> {
    // The loader this process runs under (tsx), by its resolved path: the child's cwd may be anywhere.
    const tsx = import.meta.resolve('tsx');
    const args = JSON.stringify({ node: o.node, ovsRemote: o.ovsRemote, socket: o.socket });
    const argv = [process.execPath, '--import', tsx, DAEMON_MAIN, args];
    return new RuntimeDaemon(await LineProcess.start(o.host, `node daemon ${o.node}`, argv));
  }

  async #ask(op: string, body: Record<string, unknown>): Promise<void> {
    const r = await this.p.ask(op, body);
    if (r.ok !== true) throw new RuntimeError('tool-failed', `node daemon: ${op}: ${String(r.error)}`);
  }

  /** A pod as the daemon's cluster has it (created or replaced). */
  put(pod: KubeObject): Promise<void> {
    return this.#ask('put', { object: pod });
  }

  delete(namespace: string, name: string): Promise<void> {
    return this.#ask('delete', { namespace, name });
  }

  close(): Promise<void> {
    return this.p.close();
  }
}

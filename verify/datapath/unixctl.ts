/**
 * A client for an OVS/OVN daemon's unixctl socket: JSON-RPC 1.0 over a unix
 * stream socket (what `ovs-appctl` speaks), one connection kept open, calls
 * pipelined. Spawning `ovs-appctl` costs about 4 ms per call; this costs
 * tens of microseconds, which is what lets the datapath oracle send
 * thousands of frames (netdev-dummy/receive) a second.
 *
 * The framing and message shapes are OVSDB's (RFC 7047 §4), so the OVSDB
 * client's splitter and JSON-RPC codec are reused.
 */
import { connect, type Socket } from 'node:net';
import { JsonSplitter } from '../../backends/ovn/ovsdb/framing.ts';
import { emitRpcMessage, parseRpcMessage } from '../../backends/ovn/ovsdb/wire/jsonrpc.ts';
import { DatapathError } from './errors.ts';

interface Pending {
  readonly method: string;
  readonly resolve: (text: string) => void;
  readonly reject: (e: Error) => void;
}

/**
 * @example
 * const ctl = await UnixctlClient.connect(`${dir}/vswitchd.ctl`);
 * await ctl.call('netdev-dummy/receive', ['vif0', hexFrame]);
 * ctl.close();
 */
export class UnixctlClient {
  readonly #socket: Socket;
  readonly #pending = new Map<number, Pending>();
  readonly #splitter = new JsonSplitter();
  #nextId = 1;
  #closed: Error | undefined;

  private constructor(
    readonly path: string,
    socket: Socket,
  ) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (e) => this.#fail(new DatapathError('unixctl-failed', `unixctl ${path}: ${e.message}`)));
    socket.on('close', () => this.#fail(new DatapathError('unixctl-failed', `unixctl ${path}: connection closed`)));
  }

  static connect(path: string): Promise<UnixctlClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('connect', () => {
        socket.removeAllListeners('error');
        socket.unref();
        resolve(new UnixctlClient(path, socket));
      });
      socket.once('error', (e) =>
        reject(new DatapathError('unixctl-failed', `unixctl ${path}: cannot connect: ${e.message}`, { cause: e })),
      );
    });
  }

  /** Whether the connection is still usable. */
  get open(): boolean {
    return this.#closed === undefined;
  }

  /**
   * One command; resolves with the daemon's text answer.
   * @throws DatapathError unixctl-failed when the daemon answers with an error or the connection breaks.
   */
  call(method: string, params: readonly string[] = []): Promise<string> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    const text = JSON.stringify(emitRpcMessage({ kind: 'request', id, method, params }));
    return new Promise<string>((resolve, reject) => {
      this.#pending.set(id, { method, resolve, reject });
      this.#socket.ref();
      this.#socket.write(text);
    });
  }

  #onData(chunk: Buffer): void {
    let values: unknown[];
    try {
      values = this.#splitter.push(chunk);
    } catch (e) {
      this.#fail(new DatapathError('unixctl-failed', `unixctl ${this.path}: ${(e as Error).message}`, { cause: e }));
      return;
    }
    for (const v of values) {
      const msg = parseRpcMessage(v);
      if (msg.kind !== 'response' || typeof msg.id !== 'number') continue;
      const p = this.#pending.get(msg.id);
      if (p === undefined) continue;
      this.#pending.delete(msg.id);
      if (msg.error !== null) {
        const what = typeof msg.error === 'string' ? msg.error.trim() : JSON.stringify(msg.error);
        p.reject(new DatapathError('unixctl-failed', `unixctl ${this.path}: ${p.method}: ${what}`));
      } else p.resolve(typeof msg.result === 'string' ? msg.result : JSON.stringify(msg.result));
    }
    if (this.#pending.size === 0) this.#socket.unref();
  }

  #fail(e: Error): void {
    this.#closed ??= e;
    for (const p of this.#pending.values()) p.reject(e);
    this.#pending.clear();
  }

  close(): void {
    this.#fail(new DatapathError('unixctl-failed', `unixctl ${this.path}: closed by us`));
    this.#socket.destroy();
  }
}

/**
 * JSON-RPC 1.0 over a byte stream, as OVSDB speaks it (RFC 7047 §4):
 * numbered requests matched to replies, notifications dispatched in arrival
 * order, the server's `echo` requests answered, and an inactivity probe of our
 * own. Never hangs: when the stream closes, errors or sends garbage, every
 * pending request rejects with a typed error.
 */
import type { Duplex } from 'node:stream';
import { JsonSplitter } from './framing.ts';
import { type Timers, type TimerHandle, systemTimers } from './timers.ts';
import {
  OvsdbClientError,
  OvsdbConnectionClosedError,
  OvsdbProbeTimeoutError,
  OvsdbProtocolError,
  serverError,
} from './wire/errors.ts';
import { type RpcMessage, emitRpcMessage, parseRpcMessage, rpcIdKey } from './wire/jsonrpc.ts';
import { preview } from './wire/json.ts';

export interface RpcConnectionOptions {
  /**
   * Inactivity probe: after at least this many ms without receiving anything,
   * send an `echo`; if nothing arrives within as many ms again, close the
   * connection with {@link OvsdbProbeTimeoutError}. 0 (the default) disables it.
   */
  readonly probeIntervalMs?: number;
  readonly timers?: Timers;
  /** For messages (usually the remote string). */
  readonly name?: string;
  readonly maxMessageBytes?: number;
}

export type NotificationHandler = (method: string, params: unknown) => void;
export type CloseHandler = (reason: Error) => void;

interface Pending {
  readonly method: string;
  readonly resolve: (result: unknown) => void;
  readonly reject: (err: Error) => void;
  readonly onResult: ((result: unknown) => void) | undefined;
}

export interface RequestOptions {
  /**
   * Called synchronously with the result when the reply arrives, before any
   * later message is dispatched (the promise resolves a microtask later, after
   * notifications that follow the reply in the same read). Monitors use it so
   * their initial contents are applied before the first update. If it throws,
   * the connection closes with that error.
   */
  readonly onResult?: (result: unknown) => void;
}

/**
 * One JSON-RPC session on an open stream.
 *
 * @example
 * const rpc = new RpcConnection(socket, { probeIntervalMs: 5000 });
 * const dbs = await rpc.request('list_dbs', []);
 */
export class RpcConnection {
  readonly name: string;
  private readonly splitter: JsonSplitter;
  private readonly timers: Timers;
  private readonly probeMs: number;
  private readonly pending = new Map<string, Pending>();
  private readonly notificationHandlers = new Set<NotificationHandler>();
  private readonly closeHandlers = new Set<CloseHandler>();
  private nextId = 1;
  private closeReason: Error | undefined;
  private probeTimer: TimerHandle | undefined;
  private receivedSinceArm = false;
  private probeSent = false;

  constructor(
    private readonly stream: Duplex,
    opts: RpcConnectionOptions = {},
  ) {
    this.name = opts.name ?? 'ovsdb';
    this.timers = opts.timers ?? systemTimers;
    this.probeMs = opts.probeIntervalMs ?? 0;
    this.splitter = new JsonSplitter(
      opts.maxMessageBytes === undefined ? {} : { maxMessageBytes: opts.maxMessageBytes },
    );
    stream.on('data', (chunk: Buffer | string) => this.onData(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stream.on('end', () => this.close(new OvsdbConnectionClosedError(`${this.name}: peer closed the connection`)));
    stream.on('close', () => this.close(new OvsdbConnectionClosedError(`${this.name}: connection closed`)));
    stream.on('error', (err: Error) =>
      this.close(new OvsdbConnectionClosedError(`${this.name}: ${err.message}`, false, { cause: err })),
    );
    this.armProbe();
  }

  get closed(): boolean {
    return this.closeReason !== undefined;
  }

  /** Number of requests waiting for a reply. */
  get inFlight(): number {
    return this.pending.size;
  }

  /**
   * Sends a request and resolves with its `result`. Rejects with the typed
   * server error when `error` is set, {@link OvsdbProtocolError} for a
   * malformed reply, {@link OvsdbConnectionClosedError} when the connection
   * ends first (`maybeCommitted` set for `transact`).
   */
  request(method: string, params: unknown, opts: RequestOptions = {}): Promise<unknown> {
    if (this.closeReason !== undefined) return Promise.reject(this.closedError(method, false));
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      this.pending.set(rpcIdKey(id), { method, resolve, reject, onResult: opts.onResult });
      this.send({ kind: 'request', id, method, params });
    });
  }

  /** Sends a notification (no reply expected). */
  notify(method: string, params: unknown): void {
    if (this.closeReason !== undefined) throw this.closedError(method, false);
    this.send({ kind: 'notification', method, params });
  }

  /**
   * Registers a notification handler; returns its unsubscribe function. Handlers run synchronously, in arrival order.
   */
  onNotification(handler: NotificationHandler): () => void {
    this.notificationHandlers.add(handler);
    return () => this.notificationHandlers.delete(handler);
  }

  /** Registers a close handler (called once, with the reason); runs at once if already closed. */
  onClose(handler: CloseHandler): () => void {
    if (this.closeReason !== undefined) {
      handler(this.closeReason);
      return () => {};
    }
    this.closeHandlers.add(handler);
    return () => this.closeHandlers.delete(handler);
  }

  /**
   * Closes the stream; pending requests reject with `reason` wrapped in {@link OvsdbConnectionClosedError}.
   * Idempotent.
   */
  close(reason: Error = new OvsdbConnectionClosedError(`${this.name}: closed by client`)): void {
    if (this.closeReason !== undefined) return;
    this.closeReason = reason;
    if (this.probeTimer !== undefined) this.timers.clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    this.stream.destroy();
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(this.closedError(p.method, true));
    for (const h of this.closeHandlers) h(reason);
    this.closeHandlers.clear();
    this.notificationHandlers.clear();
  }

  private closedError(method: string, wasSent: boolean): Error {
    const reason = this.closeReason;
    if (reason instanceof OvsdbProtocolError && wasSent) {
      // The server answered something we cannot read: a transaction sent on this connection may have committed.
      return method === 'transact'
        ? new OvsdbProtocolError(`transact on ${this.name}: ${reason.message.replace(/^ovsdb protocol: /, '')}`, {
            cause: reason,
            maybeCommitted: true,
          })
        : reason;
    }
    const detail =
      reason instanceof OvsdbConnectionClosedError
        ? reason.message.replace(/^ovsdb connection closed: /, '')
        : (reason?.message ?? 'closed');
    return new OvsdbConnectionClosedError(`${method} on ${detail}`, wasSent && method === 'transact', {
      cause: reason,
    });
  }

  private send(msg: RpcMessage): void {
    this.stream.write(JSON.stringify(emitRpcMessage(msg)));
  }

  private onData(chunk: Buffer): void {
    if (this.closeReason !== undefined) return;
    this.receivedSinceArm = true;
    this.probeSent = false;
    try {
      for (const json of this.splitter.push(chunk)) {
        this.dispatch(parseRpcMessage(json));
        if (this.closeReason !== undefined) return;
      }
    } catch (err) {
      this.close(
        err instanceof OvsdbClientError
          ? err
          : new OvsdbProtocolError(`${this.name}: ${(err as Error).message}`, { cause: err }),
      );
    }
  }

  private dispatch(msg: RpcMessage): void {
    switch (msg.kind) {
      case 'response': {
        const key = rpcIdKey(msg.id);
        const p = this.pending.get(key);
        if (p === undefined)
          throw new OvsdbProtocolError(`${this.name}: reply to unknown request id ${preview(msg.id)}`);
        // A malformed error member throws here, closing the connection with the request still pending.
        const error = msg.error === null ? undefined : rpcError(p.method, msg.error);
        if (error === undefined) {
          p.onResult?.(msg.result);
          this.pending.delete(key);
          p.resolve(msg.result);
        } else {
          this.pending.delete(key);
          p.reject(error);
        }
        return;
      }
      case 'request':
        if (msg.method === 'echo') this.send({ kind: 'response', id: msg.id, result: msg.params, error: null });
        else this.send({ kind: 'response', id: msg.id, result: null, error: 'unknown method' });
        return;
      case 'notification':
        for (const h of this.notificationHandlers) h(msg.method, msg.params);
    }
  }

  private armProbe(): void {
    if (this.probeMs <= 0 || this.closeReason !== undefined) return;
    this.receivedSinceArm = false;
    this.probeTimer = this.timers.setTimeout(() => this.onProbeTimer(), this.probeMs);
  }

  private onProbeTimer(): void {
    this.probeTimer = undefined;
    if (this.closeReason !== undefined) return;
    if (this.receivedSinceArm) {
      this.armProbe();
    } else if (!this.probeSent) {
      this.probeSent = true;
      // The reply (or anything else) counts as activity; the result itself is ignored.
      this.request('echo', []).catch(() => {});
      this.armProbe();
    } else {
      this.close(new OvsdbProbeTimeoutError(this.probeMs));
    }
  }
}

/** The typed error for a JSON-RPC `error` member: a bare string or an `<error>` object. */
function rpcError(method: string, error: unknown): Error {
  if (typeof error === 'string') return serverError({ error });
  if (typeof error === 'object' && error !== null && typeof (error as { error?: unknown }).error === 'string') {
    const e = error as { error: string; details?: unknown; syntax?: unknown };
    return serverError({
      error: e.error,
      ...(typeof e.details === 'string' ? { details: e.details } : {}),
      ...(typeof e.syntax === 'string' ? { syntax: e.syntax } : {}),
    });
  }
  throw new OvsdbProtocolError(`reply to ${method}: malformed error ${preview(error)}`);
}

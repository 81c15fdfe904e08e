/**
 * OvsdbSession: a cached, self-healing view of one database over a list of
 * remotes (one server, or the members of a raft cluster).
 *
 * Connecting: remotes are tried in order, starting with the last one that
 * worked, except after that one's connection was lost: then every other
 * member is tried first and it comes last (a frozen member's kernel still
 * accepts TCP connections, and it would be chosen again). A member is used
 * only if `_Server` says it suits us (cluster.ts: the leader, by default).
 * Members that are in their cluster but not its leader are kept connected,
 * with their `_Server` row monitored, while the pass goes on: when the pass
 * finds no leader (an election is under way), the session waits for one of
 * them to announce leadership and uses it at once, rather than sleeping
 * through a backoff step. A pass without any usable member waits
 * (exponential backoff on injectable timers) and starts over.
 *
 * Liveness: the RPC inactivity probe (rpc.ts) sends an `echo` after
 * `probeIntervalMs` of silence and closes the connection when the next
 * interval passes without a byte: a silent member is given up within two to
 * three intervals. The default interval is 1,500 ms (at most 4.5 s to give up
 * a frozen member; raft's own election timer is 1 s by default), where
 * ovsdb-server's and OVS's clients use 5 s: the echo costs the server almost
 * nothing, and a controller stuck on a dead member for 15 s is the worse
 * trade. The set-up of a connection (`_Server` read, schema, monitor) has
 * its own deadline, `setupTimeoutMs` (default 5 s).
 *
 * Visibility: `stats.lastClose` says why the last synced connection ended,
 * `stats.lastPass` which members the last connecting pass tried and why each
 * was not used; `onEvent` reports both as they happen.
 *
 * Resync: the cache is fed by `monitor_cond_since` from the last transaction
 * id it saw. If the server still has that id (`found`), only the changes
 * since arrive; otherwise (standalone servers keep no history, or it is too
 * old) the reply is a full dump and the cache is replaced by it, deleted rows
 * removed. `stats` counts which happened.
 *
 * Transactions are queued while disconnected and sent once synced, in
 * submission order. One written to a connection that then breaks has an
 * unknown outcome (raft commits are at-least-once): it is sent again only
 * when replay.ts says a second application cannot duplicate anything (its
 * inserts are guarded or uniquely indexed, its mutations idempotent);
 * otherwise it fails with `OvsdbConnectionClosedError` (`maybeCommitted`).
 * Errors of a replayed transaction carry `replayed: true`; a guard that
 * fails on replay usually means the first attempt did commit
 * ({@link isReplayedDuplicate}).
 *
 * Read-your-writes: when `transact` resolves, the cache already shows the
 * transaction's effects. ovsdb-server sends a monitor's pending updates
 * before any reply on the same connection (ovsdb-server(7) §4.1.5;
 * `ovsdb_jsonrpc_session_send` flushes monitors first), we write only to the
 * leader (or a standalone server), and the RPC layer applies notifications
 * synchronously in stream order, so the updates are in the cache before the
 * reply is seen. `transact` still checks what the operations and results
 * tell for certain (effects.ts: inserted rows present, rows deleted by uuid
 * gone) and, should that fail, waits for the cache up to
 * `readYourWritesTimeoutMs` (servers that forward writes: followers, relays).
 */
import { OvsdbCache, type CacheRow } from './cache.ts';
import type { OvsdbClient } from './client.ts';
import { OpBuilder } from './build.ts';
import { replayVerdict } from './replay.ts';
import { EffectWatch, expectedEffects } from './effects.ts';
import { type MemberAttempt, type PassHost, type SessionEvent, connectPass, passOrder } from './members.ts';
import { type Timers, systemTimers } from './timers.ts';
import { type Remote, type TlsCredentials, formatRemote, parseRemotes } from './transport.ts';
import {
  OvsdbCanceledError,
  OvsdbDeadlineError,
  OvsdbClientError,
  OvsdbConnectionClosedError,
  OvsdbConstraintViolationError,
  OvsdbDuplicateUuidError,
  OvsdbNotLeaderError,
  OvsdbServerError,
  OvsdbTimedOutError,
  OvsdbUnknownMethodError,
} from './wire/errors.ts';
import type { Operation } from './wire/operation.ts';
import { type OperationResult, type ResultsOf, interpretTransactReply } from './wire/result.ts';
import type { DatabaseSchema } from './wire/schema.ts';

export interface SessionOptions {
  /** `unix:…`, `tcp:…`, `ssl:…`, or a comma-separated list (a cluster). */
  readonly remotes: string | readonly Remote[];
  readonly db: string;
  /** Tables to cache → columns (undefined: all). */
  readonly tables: Readonly<Record<string, readonly string[] | undefined>>;
  readonly indexes?: Readonly<Record<string, readonly string[]>>;
  readonly tls?: TlsCredentials;
  /** Use only the raft leader of a clustered database (default true). */
  readonly leaderOnly?: boolean;
  /** RPC inactivity probe (default 1500 ms; 0 disables). */
  readonly probeIntervalMs?: number;
  /** Deadline for a connection's set-up: `_Server` read, schema, monitor (default 5000 ms). */
  readonly setupTimeoutMs?: number;
  readonly timers?: Timers;
  /** Reconnect backoff between full passes over the remotes (default 100 ms doubling to 4000 ms). */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  readonly readYourWritesTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  /** `open` gives up (and closes the session) after this long without a first sync (default 60 s). */
  readonly openTimeoutMs?: number;
}

export type SessionState = 'connecting' | 'synced' | 'closed';
export type { MemberAttempt, SessionEvent } from './members.ts';

export interface SessionStats {
  /** Successful syncs (connections that got as far as a monitored cache). */
  connects: number;
  /** Syncs where monitor_cond_since found our txn id: only changes were sent. */
  resumed: number;
  /** Syncs that replaced the cache with a full dump. */
  fullResyncs: number;
  /** Transactions sent again after a broken connection. */
  replays: number;
  /** Why the last synced connection ended. */
  lastClose?: { readonly remote: string; readonly reason: string };
  /** The last connecting pass: each member tried, in order, and what came of it. */
  lastPass?: readonly MemberAttempt[];
}

export interface SessionTransactOptions {
  /** `auto` (default): replay after a broken connection when replay.ts says it is safe; `never`: fail instead. */
  readonly retry?: 'auto' | 'never';
  /**
   * A deadline: when it aborts before the reply, the call rejects with
   * {@link OvsdbDeadlineError}, `maybeCommitted` saying whether the
   * transaction had been written to a server (if not, it is never sent).
   */
  readonly signal?: AbortSignal;
}

interface PendingTxn {
  readonly seq: number;
  readonly ops: readonly Operation[];
  readonly retry: 'auto' | 'never';
  readonly resolve: (r: OperationResult[]) => void;
  readonly reject: (e: Error) => void;
  replayed: boolean;
  /** Written to a connection at least once. */
  sent: boolean;
}

const MONITOR_ID = 'kovn-cache';

/**
 * @example
 * const s = await OvsdbSession.open<nb.Tables>({ remotes: 'tcp:127.0.0.1:6641,tcp:127.0.0.1:6643', db:
 * 'OVN_Northbound', tables: { Logical_Switch: undefined }, indexes: { Logical_Switch: ['name'] } });
 * await s.transact([s.ops.insert('Logical_Switch', { name: 'ls1' })]);
 * s.cache.lookup('Logical_Switch', 'name', 'ls1') // [row]
 * s.close();
 */
export class OvsdbSession<Tables extends object = Record<string, CacheRow>> {
  readonly remotes: readonly Remote[];
  readonly stats: SessionStats = { connects: 0, resumed: 0, fullResyncs: 0, replays: 0 };
  private readonly timers: Timers;
  private readonly opts: SessionOptions;
  private client: OvsdbClient | undefined;
  private preferred = 0;
  private seq = 0;
  private readonly queue: PendingTxn[] = [];
  private stateValue: SessionState = 'connecting';
  private readonly stateListeners = new Set<(s: SessionState) => void>();
  private cacheValue: OvsdbCache<Tables> | undefined;
  private opsValue: OpBuilder<Tables> | undefined;
  private lastError: Error | undefined;
  private wakeUp: (() => void) | undefined;
  /** The member whose connection was just lost: tried last in the next pass. */
  private avoid: number | undefined;
  private readonly eventListeners = new Set<(e: SessionEvent) => void>();

  private constructor(opts: SessionOptions) {
    this.opts = opts;
    this.remotes = typeof opts.remotes === 'string' ? parseRemotes(opts.remotes) : opts.remotes;
    this.timers = opts.timers ?? systemTimers;
  }

  /** Connects and resolves once the cache holds the database; rejects (and closes) after `openTimeoutMs`. */
  static async open<T extends object = Record<string, CacheRow>>(opts: SessionOptions): Promise<OvsdbSession<T>> {
    const s = new OvsdbSession<T>(opts);
    s.run().catch((e: unknown) => {
      // run() handles connection failures itself; anything else is a bug: stop rather than spin.
      s.lastError = e as Error;
      s.close();
    });
    try {
      await s.waitSynced(opts.openTimeoutMs ?? 60_000);
    } catch (e) {
      s.close();
      throw e;
    }
    return s;
  }

  get state(): SessionState {
    return this.stateValue;
  }

  get cache(): OvsdbCache<Tables> {
    if (this.cacheValue === undefined) throw new OvsdbClientError('not-connected', 'ovsdb session: no schema yet');
    return this.cacheValue;
  }

  /** Operation builder for the database's schema. */
  get ops(): OpBuilder<Tables> {
    if (this.opsValue === undefined) throw new OvsdbClientError('not-connected', 'ovsdb session: no schema yet');
    return this.opsValue;
  }

  get schema(): DatabaseSchema {
    return this.cache.schema;
  }

  /** The remote currently synced to, if any. */
  get currentRemote(): string | undefined {
    return this.stateValue === 'synced' ? formatRemote(this.remotes[this.preferred] as Remote) : undefined;
  }

  /** Connection events: synced (after a pass or an election), closed (with the reason), pass failed (what was tried). */
  onEvent(listener: (e: SessionEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  private emit(e: SessionEvent): void {
    for (const l of [...this.eventListeners]) l(e);
  }

  onState(listener: (s: SessionState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** Resolves when synced (at once if already). */
  waitSynced(timeoutMs: number): Promise<void> {
    if (this.stateValue === 'synced') return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        off();
        reject(
          new OvsdbConnectionClosedError(
            `no usable server among ${this.remotes.map(formatRemote).join(',')} within ${timeoutMs} ms${this.lastError ? ` (last error: ${this.lastError.message})` : ''}`,
            false,
            { cause: this.lastError },
          ),
        );
      }, timeoutMs);
      const off = this.onState((s) => {
        if (s === 'connecting') return;
        off();
        this.timers.clearTimeout(timer);
        if (s === 'synced') resolve();
        else reject(new OvsdbConnectionClosedError('session closed'));
      });
    });
  }

  /**
   * Runs a transaction on the current server (queued while reconnecting).
   * Resolves with typed results once the cache shows the effects.
   */
  transact<const Ops extends readonly Operation[]>(
    ops: Ops,
    opts: SessionTransactOptions = {},
  ): Promise<ResultsOf<Ops>> {
    if (this.stateValue === 'closed') return Promise.reject(new OvsdbConnectionClosedError('session closed'));
    const signal = opts.signal;
    if (signal?.aborted) return Promise.reject(new OvsdbDeadlineError('aborted before it was sent', false));
    return new Promise<OperationResult[]>((resolve, reject) => {
      const onAbort = () => {
        const queued = this.queue.indexOf(txn);
        if (queued >= 0) this.queue.splice(queued, 1);
        // A transaction already written is not recalled: the server may commit it; the caller stops waiting.
        reject(
          new OvsdbDeadlineError(
            txn.sent ? 'no reply before the deadline; the server may still commit it' : 'aborted before it was sent',
            txn.sent,
            { cause: signal?.reason },
          ),
        );
      };
      const txn: PendingTxn = {
        seq: this.seq++,
        ops,
        retry: opts.retry ?? 'auto',
        resolve: (r) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(r);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
        replayed: false,
        sent: false,
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(txn);
      this.flush();
    }) as Promise<ResultsOf<Ops>>;
  }

  /** Drops the current connection (the session reconnects). For tests and operators. */
  reconnect(): void {
    this.client?.close(new OvsdbConnectionClosedError('reconnect requested'));
  }

  close(): void {
    if (this.stateValue === 'closed') return;
    this.setState('closed');
    this.client?.close();
    this.wakeUp?.();
    for (const t of this.queue.splice(0)) t.reject(new OvsdbConnectionClosedError('session closed'));
  }

  private isClosed(): boolean {
    return this.stateValue === 'closed';
  }

  private setState(s: SessionState): void {
    if (this.stateValue === s || this.stateValue === 'closed') return;
    this.stateValue = s;
    for (const l of [...this.stateListeners]) l(s);
  }

  private async run(): Promise<void> {
    let pass = 0;
    while (this.stateValue !== 'closed') {
      const client = await this.connectPass();
      if (client === undefined) {
        const { initialMs, maxMs } = this.opts.backoff ?? { initialMs: 100, maxMs: 4000 };
        await this.sleep(Math.min(maxMs, initialMs * 2 ** pass++));
        continue;
      }
      pass = 0;
      await this.serve(client);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = this.timers.setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        this.timers.clearTimeout(timer);
        resolve();
      };
    });
  }

  /** One pass over the members (members.ts); remembers the member that synced and what the pass tried. */
  private async connectPass(): Promise<OvsdbClient | undefined> {
    const host: PassHost = {
      remotes: this.remotes,
      timers: this.timers,
      settings: this.opts,
      isClosed: () => this.isClosed(),
      onClosed: (cb) =>
        this.onState((st) => {
          if (st === 'closed') cb();
        }),
      setCurrent: (c) => {
        this.client = c;
      },
      monitorData: (c, remote) => this.monitorData(c, remote),
      emit: (e) => this.emit(e),
    };
    const r = await connectPass(host, passOrder(this.remotes.length, this.preferred, this.avoid));
    this.stats.lastPass = r.attempts;
    if (r.client === undefined) {
      if ('lastError' in r && r.lastError) this.lastError = r.lastError;
      return undefined;
    }
    this.preferred = r.index;
    this.avoid = undefined;
    return r.client;
  }

  /** (Re)builds the cache from a monitor on a usable member. */
  private async monitorData(client: OvsdbClient, remote: string): Promise<void> {
    const db = this.opts.db;
    if (this.cacheValue === undefined) {
      const schema = await client.getSchema(db);
      this.cacheValue = new OvsdbCache<Tables>({
        schema,
        tables: this.opts.tables,
        ...(this.opts.indexes ? { indexes: this.opts.indexes } : {}),
      });
      this.opsValue = new OpBuilder<Tables>(schema);
    }
    const cache = this.cacheValue;
    // Monitors are cancelled rather than the connection dropped when the database changes; either way we resync.
    await client.setDbChangeAware(true);
    client.onMonitorCanceled(() =>
      client.close(new OvsdbConnectionClosedError(`${remote}: monitor canceled by the server`)),
    );
    let found: boolean;
    try {
      found = (
        await client.monitorCondSince(db, MONITOR_ID, cache.monitorRequests(), cache.lastTxnId, (e) => cache.apply(e))
      ).found;
    } catch (e) {
      if (!(e instanceof OvsdbUnknownMethodError)) throw e;
      cache.lastTxnId = undefined; // a server without monitor_cond_since: full dumps only
      await client.monitorCond(db, MONITOR_ID, cache.monitorRequests(), (ev) => cache.apply(ev));
      found = false;
    }
    this.stats.connects++;
    if (found) this.stats.resumed++;
    else this.stats.fullResyncs++;
  }

  /** Uses a synced client until it closes. */
  private async serve(client: OvsdbClient): Promise<void> {
    const remote = formatRemote(this.remotes[this.preferred] as Remote);
    const closed = new Promise<Error>((resolve) => client.onClose((reason) => resolve(reason)));
    this.client = client;
    this.setState('synced');
    this.flush();
    const reason = await closed;
    this.client = undefined;
    if (this.isClosed()) return;
    // Lost: the next pass tries every other member first.
    this.avoid = this.preferred;
    this.stats.lastClose = { remote, reason: reason.message };
    this.emit({ kind: 'closed', remote, reason: reason.message });
    this.setState('connecting');
  }

  /** Sends every queued transaction, in submission order, when synced. */
  private flush(): void {
    const client = this.client;
    if (client === undefined || client.closed || this.stateValue !== 'synced') return;
    this.queue.sort((a, b) => a.seq - b.seq);
    for (const txn of this.queue.splice(0)) this.send(client, txn);
  }

  private send(client: OvsdbClient, txn: PendingTxn): void {
    txn.sent = true;
    const watch = new EffectWatch(this.cache, txn.ops); // before sending: see effects however soon they arrive
    client
      .transactRaw(this.opts.db, txn.ops)
      .then(async (entries) => {
        const results = interpretTransactReply(txn.ops, entries, txn.replayed) as OperationResult[];
        await watch.wait(expectedEffects(this.cache, txn.ops, results), {
          timeoutMs: this.opts.readYourWritesTimeoutMs ?? 10_000,
          timers: this.timers,
        });
        txn.resolve(results);
      })
      .catch((err: unknown) => {
        watch.dispose();
        this.onSendError(client, txn, err as Error);
      });
  }

  private onSendError(client: OvsdbClient, txn: PendingTxn, err: Error): void {
    if (err instanceof OvsdbNotLeaderError) {
      // Not applied: the member refused it. Find the leader and send it there.
      client.close(new OvsdbConnectionClosedError(err.message));
      this.requeue(txn, false);
      return;
    }
    // A malformed reply closed the connection (the session reconnects and resyncs): the transaction fails with the
    // typed protocol error, `maybeCommitted` set, and is not replayed: a server that sent something we cannot read
    // once is not asked the same question again in a loop; the caller decides from a fresh read.
    const unknownOutcome =
      (err instanceof OvsdbConnectionClosedError && err.maybeCommitted) || err instanceof OvsdbCanceledError;
    if (err instanceof OvsdbConnectionClosedError && !err.maybeCommitted) return this.requeue(txn, false);
    if (!unknownOutcome || this.stateValue === 'closed') return txn.reject(err);
    const verdict = replayVerdict(this.cache.schema, txn.ops);
    if (txn.retry === 'never' || !verdict.safe) {
      const why = verdict.safe ? 'retry disabled' : `not replayed: ${verdict.reason}`;
      return txn.reject(new OvsdbConnectionClosedError(`transaction outcome unknown (${why})`, true, { cause: err }));
    }
    this.requeue(txn, true);
  }

  private requeue(txn: PendingTxn, replay: boolean): void {
    if (this.stateValue === 'closed') return txn.reject(new OvsdbConnectionClosedError('session closed'));
    if (replay) {
      txn.replayed = true;
      this.stats.replays++;
    }
    this.queue.push(txn);
    this.flush();
  }
}

/**
 * Whether an error says a replayed transaction found its own earlier
 * attempt: a guard `wait` that timed out, a unique index that rejected the
 * insert, or an insert with a fixed `uuid` that already exists, on a replay.
 */
export function isReplayedDuplicate(err: unknown): boolean {
  return (
    err instanceof OvsdbServerError &&
    err.replayed &&
    (err instanceof OvsdbTimedOutError ||
      err instanceof OvsdbConstraintViolationError ||
      err instanceof OvsdbDuplicateUuidError)
  );
}

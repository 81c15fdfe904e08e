/**
 * OvsdbClient: the OVSDB methods (RFC 7047 §4.1 and ovsdb-server(7) §4.1) on
 * one connection. Stateless apart from monitor and lock subscriptions: no
 * cache, no reconnection (see cache.ts and session.ts). Operations are built
 * elsewhere (build.ts) and only sent here.
 */
import { RpcConnection, type RpcConnectionOptions } from './rpc.ts';
import { type ConnectOptions, type Remote, connectRemote, formatRemote, parseRemote } from './transport.ts';
import { OvsdbProtocolError, OvsdbRemoteError } from './wire/errors.ts';
import { expectArray, expectObject, expectString, preview } from './wire/json.ts';
import {
  type MonitorCondRequests,
  emitMonitorCondRequests,
  parseMonitorCondSinceHead,
  ZERO_TXN_ID,
} from './wire/monitor.ts';
import { type Operation, emitOperation } from './wire/operation.ts';
import { type ReplyEntry, type ResultsOf, interpretTransactReply, parseTransactReply } from './wire/result.ts';
import { type DatabaseSchema, parseSchema } from './wire/schema.ts';
import { type TableUpdates2, parseTableUpdates2 } from './wire/update.ts';
import { isUuid } from './wire/atom.ts';

/**
 * What a monitor's handler receives, synchronously and in stream order: first
 * the reply to the monitor request, then each update notification.
 *
 * Events from the client carry the `<table-updates2>` as received (`json`)
 * and parse `updates` from it only when asked: the cache decodes `json`
 * straight into its rows (and checks it as thoroughly as the parser would).
 * Events built by hand may give `updates` alone.
 */
export type MonitorEvent =
  | {
      readonly kind: 'reply';
      readonly updates: TableUpdates2;
      readonly json?: unknown;
      /** monitor_cond_since only: whether `updates` are changes since our txn id (else a full dump). */
      readonly found?: boolean;
      readonly lastTxnId?: string;
    }
  | { readonly kind: 'update'; readonly updates: TableUpdates2; readonly json?: unknown; readonly lastTxnId?: string };

export type MonitorHandler = (event: MonitorEvent) => void;

export type LockEvent = { readonly kind: 'locked' | 'stolen'; readonly lockId: string };

export interface OvsdbClientOptions extends RpcConnectionOptions, ConnectOptions {}

export interface TransactOptions {
  /** Marks errors as coming from a replayed transaction (session.ts sets it). */
  readonly replayed?: boolean;
}

/**
 * @example
 * const client = await OvsdbClient.connect('unix:/tmp/nb.sock');
 * const [ins] = await client.transact('OVN_Northbound', [
 *   { op: 'insert', table: 'Logical_Switch', row: { name: 'ls1' } },
 * ]);
 * console.log(ins.uuid);
 * client.close();
 */
export class OvsdbClient {
  private readonly monitors = new Map<string, MonitorHandler>();
  private readonly lockHandlers = new Set<(e: LockEvent) => void>();
  private readonly canceledHandlers = new Set<(monitorId: string) => void>();

  constructor(readonly rpc: RpcConnection) {
    rpc.onNotification((method, params) => this.onNotification(method, params));
  }

  /** Connects to one remote (`unix:`, `tcp:` or `ssl:`). */
  static async connect(remote: string | Remote, opts: OvsdbClientOptions = {}): Promise<OvsdbClient> {
    if (typeof remote === 'string' && remote.includes(',')) {
      throw new OvsdbRemoteError(
        remote,
        'a client connects to one remote; use OvsdbSession for a list of cluster members',
      );
    }
    const r = typeof remote === 'string' ? parseRemote(remote) : remote;
    const stream = await connectRemote(r, opts);
    return new OvsdbClient(new RpcConnection(stream, { name: formatRemote(r), ...opts }));
  }

  get closed(): boolean {
    return this.rpc.closed;
  }

  /** Closes the connection; pending requests reject (with `reason` as the cause). */
  close(reason?: Error): void {
    this.rpc.close(reason);
  }

  onClose(handler: (reason: Error) => void): () => void {
    return this.rpc.onClose(handler);
  }

  /**
   * A request whose result is parsed as it arrives: a malformed result closes
   * the connection with the typed protocol error, and every request on it
   * rejects (a server that sends what we cannot read is not trusted to be in
   * step with us; the session reconnects and resyncs).
   */
  private async requestParsed<T>(method: string, params: unknown[], parse: (result: unknown) => T): Promise<T> {
    let parsed: { value: T } | undefined;
    await this.rpc.request(method, params, {
      onResult: (r) => {
        parsed = { value: parse(r) };
      },
    });
    return (parsed as { value: T }).value;
  }

  async listDbs(): Promise<string[]> {
    return this.requestParsed('list_dbs', [], (r) =>
      expectArray(r, 'list_dbs result').map((d, i) => expectString(d, `list_dbs result[${i}]`)),
    );
  }

  async getSchema(db: string): Promise<DatabaseSchema> {
    return this.requestParsed('get_schema', [db], parseSchema);
  }

  /**
   * Runs the operations as one transaction; resolves with one typed result per
   * operation, or throws the typed error of the first failed operation (with
   * `opIndex` and `table`) or of the commit.
   */
  async transact<const Ops extends readonly Operation[]>(
    db: string,
    ops: Ops,
    opts: TransactOptions = {},
  ): Promise<ResultsOf<Ops>> {
    return interpretTransactReply(ops, await this.transactRaw(db, ops), opts.replayed ?? false);
  }

  /** The transact reply as is (errors included as entries), for callers that inspect partial results. */
  async transactRaw(db: string, ops: readonly Operation[]): Promise<ReplyEntry[]> {
    return this.requestParsed('transact', [db, ...ops.map(emitOperation)], (r) =>
      parseTransactReply(r, 'transact result'),
    );
  }

  /**
   * monitor_cond: `handler` gets the initial contents (`kind: 'reply'`) and
   * then every `update2`. Resolves with the initial contents.
   */
  async monitorCond(
    db: string,
    monitorId: string,
    requests: MonitorCondRequests,
    handler: MonitorHandler,
  ): Promise<TableUpdates2> {
    let initial: MonitorEvent | undefined;
    await this.startMonitor(
      monitorId,
      handler,
      'monitor_cond',
      [db, monitorId, emitMonitorCondRequests(requests)],
      (result) => {
        initial = withLazyUpdates({ kind: 'reply' }, result, 'monitor_cond result');
        handler(initial);
      },
    );
    return initial?.updates ?? {};
  }

  /**
   * monitor_cond_since: like {@link monitorCond}, but asks only for changes
   * after `lastTxnId` (the zero uuid for everything); updates arrive as
   * `update3`, each with the id of its transaction.
   */
  async monitorCondSince(
    db: string,
    monitorId: string,
    requests: MonitorCondRequests,
    lastTxnId: string | undefined,
    handler: MonitorHandler,
  ): Promise<{ readonly found: boolean; readonly lastTxnId: string; readonly updates: TableUpdates2 }> {
    let reply: { found: boolean; lastTxnId: string; updates: TableUpdates2 } = {
      found: false,
      lastTxnId: ZERO_TXN_ID,
      updates: {},
    };
    const params = [db, monitorId, emitMonitorCondRequests(requests), lastTxnId ?? ZERO_TXN_ID];
    await this.startMonitor(monitorId, handler, 'monitor_cond_since', params, (result) => {
      const path = 'monitor_cond_since reply';
      const [found, txnId, updates] = parseMonitorCondSinceHead(result, path);
      const event = withLazyUpdates({ kind: 'reply', found, lastTxnId: txnId }, updates, `${path}[2]`);
      reply = event as typeof reply;
      handler(event);
    });
    return reply;
  }

  private async startMonitor(
    id: string,
    handler: MonitorHandler,
    method: string,
    params: unknown[],
    onResult: (r: unknown) => void,
  ): Promise<void> {
    if (this.monitors.has(id))
      throw new OvsdbProtocolError(`monitor id ${JSON.stringify(id)} is already in use on this connection`);
    this.monitors.set(id, handler);
    try {
      await this.rpc.request(method, params, { onResult });
    } catch (e) {
      this.monitors.delete(id);
      throw e;
    }
  }

  async monitorCancel(monitorId: string): Promise<void> {
    await this.rpc.request('monitor_cancel', [monitorId]);
    this.monitors.delete(monitorId);
  }

  /** Called when the server cancels a monitor on its own (database removed, with change awareness on). */
  onMonitorCanceled(handler: (monitorId: string) => void): () => void {
    this.canceledHandlers.add(handler);
    return () => this.canceledHandlers.delete(handler);
  }

  /** Requests a lock; resolves true if granted now, false if queued (a `locked` event follows when granted). */
  async lock(lockId: string): Promise<boolean> {
    return this.requestParsed('lock', [lockId], (r) => lockedResult(r, 'lock'));
  }

  /** Takes the lock from its owner (who gets a `stolen` event). */
  async steal(lockId: string): Promise<void> {
    await this.requestParsed('steal', [lockId], (r) => lockedResult(r, 'steal'));
  }

  async unlock(lockId: string): Promise<void> {
    await this.rpc.request('unlock', [lockId]);
  }

  /** `locked` (a queued lock was granted) and `stolen` (another client took it) notifications. */
  onLockEvent(handler: (e: LockEvent) => void): () => void {
    this.lockHandlers.add(handler);
    return () => this.lockHandlers.delete(handler);
  }

  /** The uuid of the server process (a new one after every restart). */
  async getServerId(): Promise<string> {
    const r = await this.rpc.request('get_server_id', []);
    if (typeof r !== 'string' || !isUuid(r))
      throw new OvsdbProtocolError(`get_server_id result: expected a uuid, got ${preview(r)}`);
    return r;
  }

  /**
   * With `true`, the server cancels monitors instead of disconnecting us when a database changes (ovsdb-server(7)
   * §4.1.18).
   */
  async setDbChangeAware(on: boolean): Promise<void> {
    await this.rpc.request('set_db_change_aware', [on]);
  }

  async echo(params: readonly unknown[] = []): Promise<unknown> {
    return this.rpc.request('echo', params);
  }

  private onNotification(method: string, params: unknown): void {
    switch (method) {
      case 'update2':
      case 'update3':
        return this.onUpdate(method, params);
      case 'locked':
      case 'stolen': {
        const lockId = expectString(expectArray(params, `${method} params`)[0], `${method} params[0]`);
        for (const h of this.lockHandlers) h({ kind: method, lockId });
        return;
      }
      case 'monitor_canceled': {
        const id = expectString(expectArray(params, 'monitor_canceled params')[0], 'monitor_canceled params[0]');
        this.monitors.delete(id);
        for (const h of this.canceledHandlers) h(id);
        return;
      }
      default:
      // Unknown notifications are ignored, as OVS's own clients do.
    }
  }

  private onUpdate(method: 'update2' | 'update3', params: unknown): void {
    const p = expectArray(params, `${method} params`);
    const id = expectString(p[0], `${method} params[0]`);
    const handler = this.monitors.get(id);
    if (handler === undefined) throw new OvsdbProtocolError(`${method} for unknown monitor ${preview(p[0])}`);
    if (method === 'update2') {
      if (p.length !== 2)
        throw new OvsdbProtocolError(`update2 params: expected [id, updates], got ${p.length} elements`);
      handler(withLazyUpdates({ kind: 'update' }, p[1], 'update2 params[1]'));
    } else {
      if (p.length !== 3)
        throw new OvsdbProtocolError(`update3 params: expected [id, last-txn-id, updates], got ${p.length} elements`);
      const lastTxnId = expectString(p[1], 'update3 params[1]');
      handler(withLazyUpdates({ kind: 'update', lastTxnId }, p[2], 'update3 params[2]'));
    }
  }
}

function lockedResult(result: unknown, method: string): boolean {
  const locked = expectObject(result, `${method} result`).locked;
  if (typeof locked !== 'boolean')
    throw new OvsdbProtocolError(`${method} result: expected {locked: boolean}, got ${preview(result)}`);
  return locked;
}

/**
 * A monitor event carrying `json` (the `<table-updates2>` as received) and
 * parsing `updates` from it on first access (then kept).
 */
function withLazyUpdates<E extends { readonly kind: MonitorEvent['kind'] }>(
  head: E,
  json: unknown,
  path: string,
): MonitorEvent {
  let parsed: TableUpdates2 | undefined;
  return Object.defineProperty({ ...head, json }, 'updates', {
    enumerable: true,
    get: () => (parsed ??= parseTableUpdates2(json, path)),
  }) as unknown as MonitorEvent;
}

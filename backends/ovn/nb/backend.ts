/**
 * OvnBackend: the model's Backend on a real OVN Northbound database, through
 * our OVSDB session (one server or a raft cluster, leader only).
 *
 * apply: the plan is cut into transactions of at most
 * `maxOpsPerTransaction` plan operations each (so a plan of n operations
 * takes ceil(n / max) transactions), in plan order. Batches holding
 * operations of one kind (the plan's creates, updates and deletes come in
 * that order) are pipelined: the next one is built while the previous two
 * are in flight and sent as soon as the older of those is answered, so the
 * server always has the next transaction queued while the client decodes
 * the monitor updates of the last one. This is safe because the server
 * applies a connection's transactions in order and new rows have uuids
 * chosen here, so a batch can name rows of batches still in flight. A
 * batch that is mixed or starts a new kind is built and sent only once
 * everything before it committed, so a failed create or update never has a
 * delete after it committed.
 *
 * A transaction whose connection broke is replayed by the session when safe
 * (every insert kovn sends has a fixed uuid, and is guarded or uniquely
 * indexed); a replay that trips its guard means the first attempt committed,
 * which is checked against the cache before going on. On an error the apply
 * stops: the batches before the failed one are committed, the one sent
 * after it (same kind) may be, and `plan(await read(), desired)` gives what
 * is left.
 *
 * read: the topology from the cache, after waiting for the session to be in
 * sync (so never a stale view during a reconnect); readRows, the same for
 * some rows.
 *
 * watch: every change the monitor brings to kovn's rows (watch.ts), kovn's
 * own writes included: they come back through the monitor like anyone's.
 */
import type { ApplyOptions, ApplyResult, Backend, RowChange, RowKeys, RowsRead } from '../../backend.ts';
import type { Plan, Topology } from '../../../model/topology/index.ts';
import {
  OpBuilder,
  OvsdbDeadlineError,
  OvsdbServerError,
  OvsdbSession,
  OvsdbTimedOutError,
  type Remote,
  type SessionOptions,
  type TlsCredentials,
  isReplayedDuplicate,
  type nb,
} from '../ovsdb/index.ts';
import { Batch, type InsertedRows } from './batch.ts';
import { type ReadContext, memoParser } from './columns.ts';
import { type ErrorSite, OvnBackendError, describeSite } from './errors.ts';
import { type WaitForNorthdOptions, waitForNorthd } from './northd.ts';
import { addOperation } from './ops.ts';
import { readTopology } from './read.ts';
import { randomRowUuid } from './uuid.ts';
import { INDEXES, MONITOR } from './tables.ts';
import { NbView } from './view.ts';
import { modelChanges, readRowsNow } from './watch.ts';

export interface OvnBackendOptions {
  /** NB remote(s) as ovn-nbctl takes them: `unix:/x/nb.sock`, `tcp:127.0.0.1:6641`, or a comma list (a cluster). */
  readonly remotes: string | readonly Remote[];
  /** Plan operations per transaction (default 500). */
  readonly maxOpsPerTransaction?: number;
  readonly tls?: TlsCredentials;
  /** Session tuning passed through (probe interval, backoff, timeouts, timers). */
  readonly session?: Pick<
    SessionOptions,
    'probeIntervalMs' | 'backoff' | 'readYourWritesTimeoutMs' | 'connectTimeoutMs' | 'openTimeoutMs' | 'timers'
  >;
  /** How long apply/read wait for the session to (re)sync before failing (default 60 s). */
  readonly syncTimeoutMs?: number;
  /**
   * Send a batch while the previous one is still in flight, when both hold
   * operations of one kind (creates, updates or deletes). Default true.
   */
  readonly pipeline?: boolean;
  /** The uuid of each new row (default: random version-4 uuids, uuid.ts; injectable for tests). */
  readonly newUuid?: () => string;
}

export interface OvnApplyResult extends ApplyResult {
  /** OVSDB operations sent (comments, guards, inserts, parent mutations, ...). */
  readonly ovsdbOperations: number;
}

export const DEFAULT_MAX_OPS_PER_TRANSACTION = 500;

/**
 * @example
 * const be = await OvnBackend.connect({ remotes: cp.nb.remote });
 * await be.apply(plan(await be.read(), desired), { label: 'pod web-0.default' });
 * await be.waitForNorthd();
 * await be.close();
 */
export class OvnBackend implements Backend {
  readonly kind = 'ovn';
  readonly maxOpsPerTransaction: number;
  private readonly pipeline: boolean;
  private readonly newUuid: () => string;
  private readonly view: NbView;
  private readonly ctx: ReadContext;
  private readonly b: OpBuilder;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    /** The underlying session (for tests, tools and waits on the cache). */
    readonly session: OvsdbSession<nb.Tables>,
    private readonly opts: OvnBackendOptions,
  ) {
    this.maxOpsPerTransaction = Math.max(1, opts.maxOpsPerTransaction ?? DEFAULT_MAX_OPS_PER_TRANSACTION);
    this.pipeline = opts.pipeline ?? true;
    this.newUuid = opts.newUuid ?? randomRowUuid;
    this.view = new NbView(session.cache);
    this.ctx = { view: this.view, parse: memoParser() };
    this.b = new OpBuilder(session.schema);
  }

  /** Connects (to the leader, for a cluster) and resolves once the cache holds NB. */
  static async connect(opts: OvnBackendOptions): Promise<OvnBackend> {
    const session = await OvsdbSession.open<nb.Tables>({
      ...opts.session,
      remotes: opts.remotes,
      db: 'OVN_Northbound',
      tables: MONITOR,
      indexes: INDEXES,
      leaderOnly: true,
      ...(opts.tls === undefined ? {} : { tls: opts.tls }),
    });
    return new OvnBackend(session, opts);
  }

  /** Applies `plan` in batches; one apply at a time (later calls wait for earlier ones). */
  apply(plan: Plan, opts: ApplyOptions = {}): Promise<OvnApplyResult> {
    const run = this.queue.then(() => this.applyNow(plan, opts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async read(): Promise<Topology> {
    await this.synced();
    return readTopology(this.ctx);
  }

  async readRows(keys: RowKeys): Promise<RowsRead> {
    await this.synced();
    return readRowsNow(this.ctx, keys);
  }

  watch(listener: (changes: readonly RowChange[]) => void): () => void {
    return this.session.cache.onChange((batch) => {
      const changes = modelChanges(this.ctx, batch);
      if (changes.length > 0) listener(changes);
    });
  }

  /** The topology as the cache holds it right now, without waiting for a resync (e.g. inside `cache.waitFor`). */
  readCached(): Topology {
    return readTopology(this.ctx);
  }

  /** The `ovn-nbctl --wait=sb sync` equivalent; resolves with the nb_cfg northd reached. */
  waitForNorthd(opts: WaitForNorthdOptions = {}): Promise<number> {
    const run = this.queue.then(() => waitForNorthd(this.session, opts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    this.session.close();
  }

  private async synced(): Promise<void> {
    if (this.session.state === 'closed') throw new OvnBackendError('closed', 'ovn backend: closed');
    await this.session.waitSynced(this.opts.syncTimeoutMs ?? 60_000);
  }

  private async applyNow(plan: Plan, opts: ApplyOptions): Promise<OvnApplyResult> {
    if (opts.signal?.aborted)
      throw new OvnBackendError(
        'deadline',
        'ovn backend: the deadline passed before apply started',
        {},
        {
          committedTransactions: 0,
        },
      );
    await this.synced();
    const inserts: InsertedRows = new Map();
    let transactions = 0;
    let ovsdbOperations = 0;
    /** Sent, not yet settled, oldest first. */
    const inflight: { readonly done: Promise<number>; readonly kind: string }[] = [];
    const settleOldest = async () => {
      ovsdbOperations += await (inflight.shift() as { readonly done: Promise<number> }).done;
      transactions++;
    };
    try {
      for (let i = 0; i < plan.length; ) {
        const end = Math.min(plan.length, i + this.maxOpsPerTransaction);
        // Overlap only batches of one kind (see the file header): a batch that is mixed or starts a new
        // kind is built and sent once everything before it has settled. One of the same kind is built
        // while the previous two are in flight (its rows refer to theirs by the uuids chosen here).
        const kind = kindOf(plan, i, end);
        if (!this.pipeline || kind === 'mixed' || inflight.some((f) => f.kind !== kind))
          while (inflight.length > 0) await settleOldest();
        const batch = new Batch(this.b, this.view, inserts, this.newUuid);
        for (; i < end; i++) addOperation(batch, this.ctx, plan[i] as Plan[number], i);
        while (inflight.length >= MAX_IN_FLIGHT) await settleOldest();
        if (opts.signal?.aborted) {
          while (inflight.length > 0) await settleOldest();
          throw new OvnBackendError(
            'deadline',
            `ovn backend: the deadline passed after ${transactions} committed transactions (plan operation ${i - (batch.planOps ?? 0)} onwards not sent)`,
            {},
            { committedTransactions: transactions },
          );
        }
        const done = this.commit(batch, opts.label, opts.signal);
        done.catch(() => undefined); // awaited in settleOldest or in the catch
        inflight.push({ done, kind });
      }
      while (inflight.length > 0) await settleOldest();
    } catch (e) {
      // Never leave a transaction unanswered behind a failure.
      await Promise.all(inflight.map((f) => f.done.catch(() => undefined)));
      if (e instanceof OvsdbDeadlineError)
        throw new OvnBackendError(
          'deadline',
          `ovn backend: the deadline passed after ${transactions} committed transactions; ${e.maybeCommitted ? 'the one in flight may have committed' : 'nothing more was sent'}`,
          {},
          { cause: e, maybeCommitted: e.maybeCommitted, committedTransactions: transactions },
        );
      throw e;
    }
    return { operations: plan.length, transactions, ovsdbOperations };
  }

  /** Sends one batch; returns the number of OVSDB operations it took. */
  private async commit(batch: Batch, label: string | undefined, signal?: AbortSignal): Promise<number> {
    const { ops, owners, counted } = batch.finish(label);
    let results: readonly { count?: number }[];
    try {
      results = (await this.session.transact(ops, signal ? { signal } : {})) as readonly { count?: number }[];
    } catch (e) {
      if (isReplayedDuplicate(e)) {
        this.checkReplay(batch, e);
        return ops.length;
      }
      throw this.wrap(batch, owners, e);
    }
    results.forEach((r, i) => {
      if (!counted[i] || r.count === undefined || r.count > 0) return;
      const op = ops[i];
      const site = siteOf(batch, owners[i], op !== undefined && 'table' in op ? op.table : undefined);
      throw new OvnBackendError(
        'row-vanished',
        `${describeSite(site)}: ${ops[i]?.op} matched no kovn row (changed or deleted by someone else meanwhile?)`,
        site,
      );
    });
    return ops.length;
  }

  /** A replay whose guard failed: fine if every row the batch creates is there (the first attempt committed). */
  private checkReplay(batch: Batch, err: unknown): void {
    const missing = batch.created.find((c) => this.view.find(c.table, c.key) === undefined);
    if (missing === undefined) return;
    const site = batch.site(missing.planIndex);
    throw new OvnBackendError(
      'replay-mismatch',
      `${describeSite(site)}: a replayed transaction failed its guard, but the row it creates is not in NB`,
      site,
      { cause: err },
    );
  }

  private wrap(batch: Batch, owners: readonly (number | undefined)[], e: unknown): Error {
    if (!(e instanceof OvsdbServerError)) return e as Error;
    // Commit-time errors (referential integrity, constraints) have no operation index but name the row.
    const owner = e.opIndex === undefined ? batch.ownerNamedIn(e.details) : owners[e.opIndex];
    const site = siteOf(batch, owner, e.table);
    if (e instanceof OvsdbTimedOutError && !e.replayed) {
      return new OvnBackendError(
        'name-clash',
        `${describeSite(site)}: a row with the same name or key appeared in NB before the insert`,
        site,
        { cause: e },
      );
    }
    return new OvnBackendError('server-error', `${describeSite(site)}: ${e.message}`, site, { cause: e });
  }
}

/** Transactions sent and not yet answered, at most (the one being answered and the next one). */
const MAX_IN_FLIGHT = 2;

/** The kind of plan operations [from, to): one kind, or 'mixed'. */
function kindOf(plan: Plan, from: number, to: number): Plan[number]['op'] | 'mixed' {
  const kind = (plan[from] as Plan[number]).op;
  for (let i = from + 1; i < to; i++) if ((plan[i] as Plan[number]).op !== kind) return 'mixed';
  return kind;
}

function siteOf(batch: Batch, owner: number | undefined, nbTable: string | undefined): ErrorSite {
  const base = owner === undefined ? {} : batch.site(owner);
  return nbTable === undefined ? base : { ...base, nbTable };
}

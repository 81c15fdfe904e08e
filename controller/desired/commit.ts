/**
 * The committer: the one place where the controller's desired state reaches
 * a backend. Reconcilers hand it fragments (`set`, `delete`); it gathers the
 * rows they changed and commits them in batches, one backend `apply` at a
 * time: while one batch is in flight every further change waits for the
 * next, so a storm of pods becomes a few transactions, not one per pod
 * (ovn-kubernetes and Kube-OVN commit per object; batching is the point of
 * keeping the desired state here).
 *
 * Level-driven: a batch is always "what the backend holds" (the shadow)
 * against "what the store wants" for the dirty rows, so a failed batch is
 * simply tried again (with backoff) from whatever the backend holds then.
 * When a failure leaves the outcome unknown, the rows that batch touched are
 * read back from the backend first (only those).
 *
 * The shadow follows the backend's change stream (`Backend.watch`): a row of
 * ours changed or deleted behind kovn's back (someone editing NB by hand)
 * lands in the shadow, differs from what the store wants, and is put back by
 * the next batch, without a restart or a periodic resync. A change that
 * matches the store (our own writes coming back through the monitor) only
 * updates the shadow. Rows of other owners never reach the stream.
 *
 * Start-up (`start`): the shadow is read from the backend, the caller fills
 * the store, and the first flush covers every row of either side, which
 * removes orphans (rows of ours nothing explains) and writes nothing when
 * nothing changed.
 */
import type { Backend, RowChange, RowsRead } from '../../backends/backend.ts';
import { TABLE_ORDER, type TableName, type Tables, type Topology } from '../../model/topology/index.ts';
import { rowsEqual } from '../../model/topology/row-diff.ts';
import { backoffMs } from '../../kube/runtime/backoff.ts';
import type { Clock } from '../../kube/runtime/clock.ts';
import { applyToShadow, emptyShadow, planDirty, type Shadow } from './delta.ts';
import type { DesiredState, Fragment, OwnerKey, StoreIssue } from './store.ts';

/** The clock the committer schedules with (injected; simulated in tests). */
export type CommitClock = Clock;

export interface CommitterOptions {
  readonly backend: Backend;
  readonly store: DesiredState;
  readonly clock: CommitClock;
  /** Gather changes this long after the first one before a flush (default 0: the next timer turn). */
  readonly batchDelayMs?: number;
  /** Retry backoff after a failed apply: first delay and cap (default 50 ms .. 5 s, doubling). */
  readonly retry?: { readonly initialMs: number; readonly maxMs: number };
  /** Called for every failed apply (logging, events, metrics). */
  readonly onError?: (err: unknown, info: { readonly attempt: number; readonly operations: number }) => void;
  /** Called after every committed batch (metrics). */
  readonly onCommit?: (info: CommitInfo) => void;
  /** Called when a fragment could not be taken as given (a row another owner holds, ...). */
  readonly onStoreIssues?: (owner: OwnerKey, issues: readonly StoreIssue[]) => void;
  /** How long `close` waits for a batch in flight before it gives up on it (default 5,000 ms on the clock). */
  readonly closeGraceMs?: number;
}

/**
 * What `sync` rejects with once the committer is closed before the changes
 * it waits for were committed (they never will be, by this committer).
 */
export class CommitterClosedError extends Error {
  override readonly name = 'CommitterClosedError';
  readonly code = 'committer-closed';
  constructor() {
    super('committer closed before the changes were committed');
  }
}

export interface CommitInfo {
  readonly operations: number;
  readonly transactions: number;
  readonly rows: number;
  /** Clock time the batch was handed to the backend, and when it was committed. */
  readonly startedAt: number;
  readonly committedAt: number;
}

export interface CommitStats {
  readonly flushes: number;
  readonly operations: number;
  readonly transactions: number;
  readonly failures: number;
  readonly pendingRows: number;
  /** Changes of our rows the backend reported that the store did not want (repaired by the next batch). */
  readonly drifted: number;
  /** Rows read back after failed applies (each failure reads back only the rows its batch touched). */
  readonly rowsReread: number;
  readonly lastError?: unknown;
}

interface Waiter {
  readonly gen: number;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

/**
 * @example
 * const c = new Committer({ backend, store, clock });
 * await c.start(async () => { for (const s of subnets) c.set({ kind: 'Subnet', name: s.name }, translateSubnet(s)); });
 * c.set({ kind: 'Pod', namespace: 'default', name: 'web-0' }, fragment); await c.sync(); // the port is in NB
 */
export class Committer {
  private shadow: Shadow = emptyShadow();
  private gen = 0;
  private doneGen = 0;
  private timer: unknown;
  private inFlight: Promise<void> | undefined;
  private attempt = 0;
  /** Rows a failed apply touched, to read back before the next batch. */
  private reread = new Map<TableName, Set<string>>();
  /** Rows the backend reported while a batch was in flight: the report is newer than the batch's own rows. */
  private seen = new Map<TableName, Set<string>>();
  private unwatch: (() => void) | undefined;
  private started = false;
  private closed = false;
  private waiters: Waiter[] = [];
  private s = {
    flushes: 0,
    operations: 0,
    transactions: 0,
    failures: 0,
    drifted: 0,
    rowsReread: 0,
    lastError: undefined as unknown,
  };

  constructor(private readonly opts: CommitterOptions) {}

  /**
   * Read what the backend holds, let `fill` put the whole desired state in
   * the store, then commit the difference over every row (orphans removed).
   * Returns the start-up plan's size.
   */
  async start(fill: () => Promise<void> | void): Promise<{ operations: number }> {
    // Watch before reading: a change between the read and the subscription would be lost.
    this.unwatch ??= this.opts.backend.watch((changes) => this.follow(changes));
    await this.readShadow();
    await fill();
    for (const table of TABLE_ORDER) this.opts.store.markDirty(table, this.shadow.get(table)!.keys());
    this.started = true;
    const before = this.s.operations;
    this.kick();
    await this.sync();
    return { operations: this.s.operations - before };
  }

  /** Replace an owner's fragment and schedule a commit. */
  set(owner: OwnerKey, fragment: Fragment): StoreIssue[] {
    const issues = this.opts.store.set(owner, fragment);
    if (issues.length > 0) this.opts.onStoreIssues?.(owner, issues);
    this.kick();
    return issues;
  }

  delete(owner: OwnerKey): void {
    this.opts.store.delete(owner);
    this.kick();
  }

  /**
   * Resolves once everything changed before the call is committed (after
   * retries, however long); rejects with CommitterClosedError when the
   * committer is closed first.
   */
  sync(): Promise<void> {
    const gen = this.gen;
    if (this.doneGen >= gen && this.opts.store.dirtyCount === 0 && !this.inFlight) return Promise.resolve();
    if (this.closed) return Promise.reject(new CommitterClosedError());
    return new Promise((resolve, reject) => this.waiters.push({ gen, resolve, reject }));
  }

  get stats(): CommitStats {
    return { ...this.s, pendingRows: this.opts.store.dirtyCount };
  }

  /**
   * Stops scheduling (no retry either), waits for a batch in flight for at
   * most `closeGraceMs`, and rejects every `sync` still waiting: a backend
   * that refuses every apply cannot hold a shutdown.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.unwatch?.();
    this.unwatch = undefined;
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const inFlight = this.inFlight;
    if (inFlight !== undefined) {
      let grace: unknown;
      const expired = new Promise<void>(
        (r) => (grace = this.opts.clock.setTimeout(r, this.opts.closeGraceMs ?? 5_000)),
      );
      await Promise.race([inFlight, expired]);
      this.opts.clock.clearTimeout(grace);
    }
    this.release();
    const left = this.waiters;
    this.waiters = [];
    for (const w of left) w.reject(new CommitterClosedError());
  }

  /** Schedule a flush (no-op before start, while one is scheduled, or while one is in flight). */
  kick(): void {
    this.gen++;
    this.schedule(this.opts.batchDelayMs ?? 0);
  }

  private schedule(ms: number): void {
    if (!this.started || this.closed || this.timer !== undefined || this.inFlight) return;
    this.timer = this.opts.clock.setTimeout(() => {
      this.timer = undefined;
      this.inFlight = this.flush().finally(() => {
        this.inFlight = undefined;
        this.release();
        // A change made while it was in flight and dirtying nothing still has a sync waiting for its generation.
        if (this.opts.store.dirtyCount > 0 || this.reread.size > 0 || this.doneGen < this.gen)
          this.schedule(this.attempt > 0 ? this.backoff() : 0);
      });
    }, ms);
  }

  private backoff(): number {
    const r = this.opts.retry ?? { initialMs: 50, maxMs: 5_000 };
    return backoffMs(this.attempt, r.initialMs, r.maxMs);
  }

  private async flush(): Promise<void> {
    const gen = this.gen;
    const { store, backend, clock } = this.opts;
    if (this.reread.size > 0) {
      try {
        await this.readBack();
      } catch (err) {
        this.fail(err, 0);
        return;
      }
    }
    this.seen.clear();
    const dirty = store.takeDirty();
    const { plan, after } = planDirty(store, this.shadow, dirty);
    const startedAt = clock.now();
    if (plan.length > 0) {
      try {
        const r = await backend.apply(plan, { label: `kovn: ${plan.length} operations` });
        this.s.transactions += r.transactions;
        this.s.operations += r.operations;
        this.opts.onCommit?.({
          operations: r.operations,
          transactions: r.transactions,
          rows: countRows(after),
          startedAt,
          committedAt: clock.now(),
        });
      } catch (err) {
        for (const [table, keys] of dirty) {
          store.markDirty(table, keys);
          addKeys(this.reread, table, keys);
        }
        this.fail(err, plan.length);
        return;
      }
    }
    applyToShadow(this.shadow, after, this.seen);
    this.seen.clear();
    this.s.flushes++;
    this.attempt = 0;
    this.doneGen = Math.max(this.doneGen, gen);
  }

  private fail(err: unknown, operations: number): void {
    this.attempt++;
    this.s.failures++;
    this.s.lastError = err;
    this.opts.onError?.(err, { attempt: this.attempt, operations });
  }

  private release(): void {
    const ready = this.waiters.filter((w) => w.gen <= this.doneGen);
    this.waiters = this.waiters.filter((w) => w.gen > this.doneGen);
    for (const w of ready) w.resolve();
  }

  private async readShadow(): Promise<void> {
    this.shadow = shadowOf(await this.opts.backend.read());
  }

  /** Reads back the rows failed applies touched (what the backend holds of them is unknown). */
  private async readBack(): Promise<void> {
    const keys = this.reread;
    this.reread = new Map();
    let rows: RowsRead;
    try {
      rows = await this.opts.backend.readRows(keys);
    } catch (err) {
      for (const [table, ks] of keys) addKeys(this.reread, table, ks);
      throw err;
    }
    for (const [table, got] of rows) {
      const held = this.shadow.get(table)!;
      for (const [key, row] of got) {
        this.s.rowsReread++;
        if (row === undefined) held.delete(key);
        else held.set(key, row);
      }
    }
  }

  /**
   * The backend's report of our rows as they are now: the shadow takes it;
   * a row that is not what the store wants becomes dirty (put back by the
   * next batch). While a batch is in flight its own rows come back too
   * (real OVN); they match the store and only update the shadow.
   */
  private follow(changes: readonly RowChange[]): void {
    const store = this.opts.store;
    let drifted = false;
    for (const c of changes) {
      const held = this.shadow.get(c.table)!;
      if (c.row === undefined) held.delete(c.key);
      else held.set(c.key, c.row);
      if (this.inFlight !== undefined) addKeys(this.seen, c.table, [c.key]);
      if (sameRow(c.table, store.row(c.table, c.key), c.row)) continue;
      store.markDirty(c.table, [c.key]);
      this.s.drifted++;
      drifted = true;
    }
    if (drifted) this.kick();
  }
}

function sameRow<T extends TableName>(table: T, a: Tables[T] | undefined, b: Tables[T] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a === b || rowsEqual(table, a, b);
}

function addKeys(into: Map<TableName, Set<string>>, table: TableName, keys: Iterable<string>): void {
  let set = into.get(table);
  if (set === undefined) into.set(table, (set = new Set()));
  for (const k of keys) set.add(k);
}

function shadowOf(t: Topology): Shadow {
  const s = emptyShadow();
  for (const table of TABLE_ORDER) {
    const m = s.get(table)!;
    for (const [k, row] of t[table]) m.set(k, row);
  }
  return s;
}

function countRows(after: ReadonlyMap<unknown, ReadonlyMap<string, unknown>>): number {
  let n = 0;
  for (const m of after.values()) n += m.size;
  return n;
}

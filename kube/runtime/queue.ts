/**
 * The work queue each handler runs from, with client-go's semantics: keys
 * (typed values, as controller-runtime's `reconcile.Request`; `id` says when
 * two are the same key), not events, are queued, so a burst of changes to one object
 * is reconciled once (handlers are level-driven and read the object from the
 * informer cache); a key is never processed by two workers at once, and a
 * key added while it is being processed is processed once more afterwards;
 * failures are retried with a per-key exponential backoff.
 *
 * Time comes from the injected Clock, so backoff is exact under a SimClock.
 * A handler that succeeds resets its key's backoff (client-go's handlers
 * call Forget on success; here the queue does it, unless `manualForget` says
 * the key's work goes on after its handler returns).
 *
 * `addAfter` is controller-runtime's Result{RequeueAfter}: a key asked for
 * again after a delay (a handler that wants another look, or changes
 * gathered for a while); `quiet()` waits for those, while a key waiting out
 * a failure's backoff counts only in `delayed()`.
 */
import { backoffMs } from './backoff.ts';
import type { Clock } from './clock.ts';

export interface WorkQueueOptions<K> {
  readonly clock: Clock;
  /** A key's identity: keys with one id are one key (default `String(key)`). */
  readonly id?: (key: K) => string;
  /**
   * The caller resets a key's backoff itself (`forget`), once the key's work
   * is done: a handler that returns with writes still pending is not yet a
   * success, and `fail` after it must back off further, not start again.
   */
  readonly manualForget?: boolean;
  /** First retry delay (default 5 ms); doubled on every further failure of the key. */
  readonly initialMs?: number;
  /** Retry delay cap (default 60,000 ms). */
  readonly maxMs?: number;
  /** Called for every failed run, with the key's failure count (1 for the first); what it throws is ignored. */
  readonly onError?: (key: K, err: unknown, attempt: number) => void;
  /** Where the queue reports its depth and latencies (kube/observe/queue-metrics.ts), timed on `clock`. */
  readonly metrics?: QueueMetrics;
}

/**
 * What a queue reports, as client-go's workqueue metrics provider has it:
 * a key newly queued, the depth, how long a key waited before a worker took
 * it, how long its handler ran, a failure scheduled again.
 */
export interface QueueMetrics {
  added(): void;
  depth(n: number): void;
  started(waitedMs: number): void;
  finished(workedMs: number): void;
  retried(): void;
  /** Handed, once, how to read the runs in progress: the clock times they started, and now. */
  attach?(running: { readonly startTimes: () => Iterable<number>; readonly now: () => number }): void;
}

export interface WorkQueueStats {
  /** `add` calls taken (direct, delayed or retries), deduplicated ones included. */
  readonly adds: number;
  /** Handler runs finished, failed ones included. */
  readonly processed: number;
  /** Failed runs scheduled again. */
  readonly retries: number;
}

/**
 * @example
 * const q = new WorkQueue<ObjectKey>({ clock: realClock, id: formatKey, onError: (key, err) => log.warn(key, err) });
 * informer.addHandlers({ onAdd: (o) => q.add(objectKey(o)), onUpdate: (_, o) => q.add(objectKey(o)) });
 * q.run(async (key) => reconcile(key), 4);
 */
export class WorkQueue<K = string> {
  /** Keys waiting, in order; `dirty` holds their ids, for deduplication. */
  private readonly queue: K[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  /** Keys waiting for a time: `retry` for a failure's backoff, else an `addAfter` (a RequeueAfter). */
  private readonly waiting = new Map<
    string,
    { readonly at: number; readonly handle: unknown; readonly retry: boolean }
  >();
  private readonly failures = new Map<string, number>();
  private idleWaiters: (() => void)[] = [];
  private quietWaiters: (() => void)[] = [];
  private drainWaiters: (() => void)[] = [];
  private handler: ((key: K) => Promise<void>) | undefined;
  private readonly id: (key: K) => string;
  private workers = 0;
  private stopping = false;
  private readonly s = { adds: 0, processed: 0, retries: 0 };
  /** With metrics only: when each queued key was first added, and when each running key started. */
  private readonly addedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();
  private readonly initialMs: number;
  private readonly maxMs: number;

  constructor(private readonly opts: WorkQueueOptions<K>) {
    this.id = opts.id ?? String;
    this.initialMs = opts.initialMs ?? 5;
    this.maxMs = opts.maxMs ?? 60_000;
    opts.metrics?.attach?.({ startTimes: () => this.startedAt.values(), now: () => opts.clock.now() });
  }

  /**
   * Queues a key unless it is already waiting; a key being processed is
   * queued to run again once the current run ends. Ignored after shutdown.
   *
   * @example
   * q.add('default/web-0');
   */
  add(key: K): void {
    if (this.stopping) return;
    this.s.adds++;
    const id = this.id(key);
    if (this.dirty.has(id)) return;
    this.dirty.add(id);
    const m = this.opts.metrics;
    if (m !== undefined) {
      m.added();
      if (!this.addedAt.has(id)) this.addedAt.set(id, this.opts.clock.now());
    }
    if (this.processing.has(id)) return;
    this.queue.push(key);
    m?.depth(this.queue.length);
    this.pump();
  }

  /**
   * Adds the key after `ms` on the queue's clock; when the key is already
   * waiting for a later time, the earlier time wins (one timer per key).
   *
   * @example
   * q.addAfter('default/web-0', 1_000); // check again in a second
   */
  addAfter(key: K, ms: number): void {
    this.schedule(key, ms, false);
  }

  private schedule(key: K, ms: number, retry: boolean): void {
    if (this.stopping) return;
    if (!(ms > 0)) return this.add(key);
    const { clock } = this.opts;
    const id = this.id(key);
    const at = clock.now() + ms;
    const prev = this.waiting.get(id);
    if (prev !== undefined) {
      if (prev.at <= at) return;
      clock.clearTimeout(prev.handle);
    }
    const handle = clock.setTimeout(() => {
      this.waiting.delete(id);
      this.add(key);
      this.checkIdle();
    }, ms);
    this.waiting.set(id, { at, handle, retry });
  }

  /** Resets the key's backoff (its next failure waits `initialMs` again). */
  forget(key: K): void {
    this.failures.delete(this.id(key));
  }

  /** The key's current failure count. */
  retriesOf(key: K): number {
    return this.failures.get(this.id(key)) ?? 0;
  }

  /**
   * A failure of the key's work outside its handler run (a write made after
   * its batch was committed): reported and retried with the key's backoff,
   * exactly as a handler that threw (client-go's AddRateLimited).
   *
   * @example
   * q.fail({ namespace: 'prod', name: 'web' }, conflict); // runs again after the key's next backoff
   */
  fail(key: K, err: unknown): void {
    this.failed(key, err);
  }

  /**
   * Starts processing: at most `workers` keys at once, each key by one worker
   * at a time. A handler that throws is reported and retried with backoff.
   *
   * @example
   * q.run(async (key) => { await reconcile(key); }, 2);
   */
  run(handler: (key: K) => Promise<void>, workers: number): void {
    if (this.handler !== undefined) throw new Error('WorkQueue.run: already running');
    if (!(workers >= 1)) throw new Error(`WorkQueue.run: workers must be at least 1, not ${workers}`);
    this.handler = handler;
    this.workers = Math.floor(workers);
    this.pump();
  }

  /**
   * Stops taking keys (queued and delayed ones are dropped, adds ignored);
   * resolves once the handlers running now have finished.
   *
   * @example
   * await q.shutdown();
   */
  shutdown(): Promise<void> {
    this.stopping = true;
    for (const { handle } of this.waiting.values()) this.opts.clock.clearTimeout(handle);
    this.waiting.clear();
    this.queue.length = 0;
    this.dirty.clear();
    this.addedAt.clear();
    this.opts.metrics?.depth(0);
    this.checkIdle();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /**
   * Resolves when no key is queued and none is running (keys waiting out a
   * delay do not count: see `delayed()`).
   *
   * @example
   * q.add('a'); await q.idle(); // 'a' has been processed
   */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Resolves when no key is queued, running or waiting for an `addAfter`:
   * keys waiting out a failure's backoff do not count (a key that fails
   * until something outside changes would keep it from resolving).
   *
   * @example
   * q.addAfter('a', 20); await q.quiet(); // 'a' has been processed
   */
  quiet(): Promise<void> {
    if (this.isQuiet()) return Promise.resolve();
    return new Promise((resolve) => this.quietWaiters.push(resolve));
  }

  /** Keys waiting for an `addAfter` (not for a retry's backoff). */
  scheduled(): number {
    let n = 0;
    for (const w of this.waiting.values()) if (!w.retry) n++;
    return n;
  }

  /** Keys queued (not running, not delayed). */
  len(): number {
    return this.queue.length;
  }

  /** Keys waiting for an `addAfter` or retry timer. */
  delayed(): number {
    return this.waiting.size;
  }

  /** Keys being processed now. */
  running(): number {
    return this.processing.size;
  }

  get stats(): WorkQueueStats {
    return { ...this.s };
  }

  private pump(): void {
    const handler = this.handler;
    if (handler === undefined) return;
    while (!this.stopping && this.processing.size < this.workers && this.queue.length > 0) {
      const key = this.queue.shift()!;
      const id = this.id(key);
      this.dirty.delete(id);
      this.processing.add(id);
      if (this.opts.metrics !== undefined) this.took(id);
      // Started in a microtask, never inside the caller's add().
      void Promise.resolve()
        .then(() => handler(key))
        .then(
          () => this.done(key, undefined, false),
          (err: unknown) => this.done(key, err, true),
        );
    }
  }

  /** Metrics of a key a worker took: its wait, the depth left. */
  private took(id: string): void {
    const m = this.opts.metrics!;
    const now = this.opts.clock.now();
    m.started(now - (this.addedAt.get(id) ?? now));
    this.addedAt.delete(id);
    this.startedAt.set(id, now);
    m.depth(this.queue.length);
  }

  private done(key: K, err: unknown, failed: boolean): void {
    this.s.processed++;
    const id = this.id(key);
    this.processing.delete(id);
    const started = this.startedAt.get(id);
    if (started !== undefined) {
      this.startedAt.delete(id);
      this.opts.metrics?.finished(this.opts.clock.now() - started);
    }
    if (failed) this.failed(key, err);
    else if (!this.opts.manualForget) this.failures.delete(id);
    if (this.dirty.has(id) && !this.stopping) {
      this.queue.push(key);
      this.opts.metrics?.depth(this.queue.length);
    }
    this.pump();
    if (this.processing.size === 0 && this.stopping) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
    this.checkIdle();
  }

  private failed(key: K, err: unknown): void {
    const id = this.id(key);
    const attempt = (this.failures.get(id) ?? 0) + 1;
    this.failures.set(id, attempt);
    try {
      this.opts.onError?.(key, err, attempt);
    } catch {
      // A failing reporter must not stop the queue.
    }
    if (!this.stopping) {
      this.s.retries++;
      this.opts.metrics?.retried();
      this.schedule(key, backoffMs(attempt, this.initialMs, this.maxMs), true);
    }
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && this.processing.size === 0;
  }

  private isQuiet(): boolean {
    return this.isIdle() && (this.stopping || this.scheduled() === 0);
  }

  private checkIdle(): void {
    if (this.isIdle() && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
    if (this.quietWaiters.length > 0 && this.isQuiet()) {
      const waiters = this.quietWaiters;
      this.quietWaiters = [];
      for (const w of waiters) w();
    }
  }
}

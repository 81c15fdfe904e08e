/**
 * An informer: a local cache of one kind kept current by list + watch, and
 * the handlers that feed work queues. Handlers read the cache (level-driven),
 * so what matters is that the cache converges and every change is signalled,
 * not that every intermediate state is seen.
 *
 * When the watch fails (the source answers `Gone` when the version we watch
 * from is older than its history) the informer lists again and signals only
 * the difference against its cache: objects added, changed (by
 * resourceVersion) and gone. Replaying the whole list as adds would make
 * every handler reconcile every object after each disconnect.
 *
 * Failures never stop it: a failed list, and a watch that fails again
 * before it delivered anything, are retried on the injected clock with an
 * exponential backoff (client-go's reflector: 800 ms doubling to 30 s);
 * the first watch failure relists at once, as `Gone` is the common one. An
 * event delivered, or a watch that stayed up for the longest delay, resets
 * the backoff.
 *
 * Objects from the source are kept as they are: the in-memory cluster
 * freezes them, and handlers must not change them in any case.
 *
 * Indexers (client-go's Indexers) name functions from an object to the
 * values it is found under (`namespace` → its namespace); the indexes are
 * kept in step with the cache, updated before any handler of the change
 * runs, so a handler reading `byIndex` sees the change it is told about.
 */
import { type ClusterSource, type KubeObject, keyOf, type ListOptions, type Watch } from '../cluster/types.ts';
import { backoffMs } from './backoff.ts';
import type { Clock } from './clock.ts';

export interface InformerHandlers {
  onAdd?(obj: KubeObject): void;
  onUpdate?(oldObj: KubeObject, newObj: KubeObject): void;
  onDelete?(obj: KubeObject): void;
}

/** The values an object is found under in one index (none: not in the index). */
export type IndexFunc = (o: KubeObject) => readonly string[];

export interface InformerOptions {
  /** Schedules the retries. */
  readonly clock: Clock;
  /** Only objects of this namespace. */
  readonly namespace?: string;
  /**
   * Only objects these selectors match, applied by the source in its list
   * and watch (the API's syntax; a source that cannot apply one refuses it,
   * and the informer then retries and reports as for any failed list).
   */
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Watch errors other than `Gone`, failed lists and handlers that throw. */
  readonly onError?: (err: unknown) => void;
  /** The first retry delay (default 800 ms), doubled per consecutive failure up to `maxRetryMs` (default 30 s). */
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
}

/** What `start` and `synced` reject with when the informer is stopped before its first list succeeded. */
export class InformerStoppedError extends Error {
  override readonly name = 'InformerStoppedError';
  readonly code = 'informer-stopped';
  constructor(readonly kind: string) {
    super(`informer ${kind}: stopped before its first list`);
  }
}

export interface InformerStats {
  readonly lists: number;
  readonly events: number;
}

/**
 * @example
 * const pods = new Informer(cluster, 'Pod', { clock: realClock, onError: (e) => log.warn(e) });
 * pods.addHandlers({ onAdd: (p) => queue.add(keyOf(p)), onUpdate: (_, p) => queue.add(keyOf(p)) });
 * await pods.start(); // the cache holds every pod
 * pods.get('default/web-0');
 */
export class Informer {
  private cache = new Map<string, KubeObject>();
  /** The cache in key order, kept until the cache changes (handlers list small kinds, Nodes, Subnets, per event). */
  private sorted: KubeObject[] | undefined;
  private readonly handlers: InformerHandlers[] = [];
  private watch: Watch | undefined;
  /** Bumped by every (re)list and by stop; callbacks of an older epoch are ignored. */
  private epoch = 0;
  private started = false;
  private stopped = false;
  private syncedFlag = false;
  private retryTimer: unknown;
  /** Consecutive failures (lists, and watches that delivered nothing), and when the current watch started. */
  private failures = 0;
  private watchSince = 0;
  private readonly waiters = new Map<string, ((o: KubeObject | undefined) => void)[]>();
  private readonly syncedPromise: Promise<void>;
  private resolveSynced!: () => void;
  private rejectSynced!: (err: Error) => void;
  private readonly s = { lists: 0, events: 0 };
  private readonly indexers = new Map<string, IndexFunc>();
  private changes = 0;
  /** index name → value → cache key → object. */
  private readonly indexes = new Map<string, Map<string, Map<string, KubeObject>>>();
  /** index name → cache key → the values it is filed under (what a change removes, whatever `f` says now). */
  private readonly filed = new Map<string, Map<string, readonly string[]>>();

  constructor(
    private readonly source: ClusterSource,
    readonly kind: string,
    private readonly opts: InformerOptions,
  ) {
    this.syncedPromise = new Promise((resolve, reject) => {
      this.resolveSynced = resolve;
      this.rejectSynced = reject;
    });
    // Rejected only by a stop before the first list: whoever waits sees it; nobody waiting is no error.
    this.syncedPromise.catch(() => {});
  }

  /**
   * Registers handlers; returns a function that removes them. Handlers added
   * after the start see only later changes.
   *
   * @example
   * const off = informer.addHandlers({ onDelete: (o) => queue.add(keyOf(o)) });
   */
  addHandlers(h: InformerHandlers): () => void {
    this.handlers.push(h);
    return () => {
      const i = this.handlers.indexOf(h);
      if (i >= 0) this.handlers.splice(i, 1);
    };
  }

  /**
   * Adds indexes, filled from what the cache holds now and kept in step
   * with it from then on. A name given twice is refused.
   *
   * @example
   * pods.addIndexers({ namespace: (p) => [p.metadata.namespace ?? 'default'] });
   * pods.byIndex('namespace', 'prod'); // the pods of prod
   */
  addIndexers(indexers: Readonly<Record<string, IndexFunc>>): void {
    for (const [name, f] of Object.entries(indexers)) {
      if (this.indexers.has(name)) throw new Error(`informer ${this.kind}: index ${name} exists already`);
      this.indexers.set(name, f);
      this.indexes.set(name, new Map());
      this.filed.set(name, new Map());
      for (const [key, o] of this.cache) this.indexOne(name, f, key, o);
    }
  }

  /** The cached objects found under `value` in index `name`, in no particular order. */
  byIndex(name: string, value: string): Iterable<KubeObject> {
    const index = this.indexes.get(name);
    if (index === undefined) throw new Error(`informer ${this.kind}: no index ${name}`);
    return index.get(value)?.values() ?? [];
  }

  /** The values index `name` holds objects under. */
  indexValues(name: string): Iterable<string> {
    const index = this.indexes.get(name);
    if (index === undefined) throw new Error(`informer ${this.kind}: no index ${name}`);
    return index.keys();
  }

  /**
   * Lists (calling `onAdd` for every object), then watches from the list's
   * version. Resolves once the initial list is in the cache, however many
   * failed lists that takes; rejects with InformerStoppedError when stopped first.
   *
   * @example
   * await informer.start();
   */
  async start(): Promise<void> {
    if (this.started) return this.syncedPromise;
    this.started = true;
    await this.relist();
    return this.syncedPromise;
  }

  /** Whether the initial list is in the cache. */
  hasSynced(): boolean {
    return this.syncedFlag;
  }

  /** Resolves once the initial list is in the cache; rejects with InformerStoppedError when stopped before. */
  synced(): Promise<void> {
    return this.syncedPromise;
  }

  /** The cached object under `ns/name` (or `name` for cluster-scoped kinds). */
  get(key: string): KubeObject | undefined {
    return this.cache.get(key);
  }

  /**
   * The object under `key` once the cache holds it (at once when it does),
   * or undefined when the informer stops first: waits on the informer's own
   * events, however long the source takes to deliver them.
   *
   * @example
   * await cluster.create(subnet);
   * await subnets.waitFor('ovn-default');
   */
  waitFor(key: string): Promise<KubeObject | undefined> {
    const have = this.cache.get(key);
    if (have !== undefined || this.stopped) return Promise.resolve(have);
    return new Promise((resolve) => {
      let list = this.waiters.get(key);
      if (list === undefined) this.waiters.set(key, (list = []));
      list.push(resolve);
    });
  }

  /** The cached objects, in no particular order (for requeueing: the queue orders nothing either). */
  values(): IterableIterator<KubeObject> {
    return this.cache.values();
  }

  /** Every cached object, sorted by key. */
  list(): KubeObject[] {
    this.sorted ??= [...this.cache.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
    return this.sorted.slice();
  }

  get stats(): InformerStats {
    return { ...this.s };
  }

  /** Stops watching; no handler is called after it returns. The cache stays readable. */
  stop(): void {
    if (!this.stopped && !this.syncedFlag) this.rejectSynced(new InformerStoppedError(this.kind));
    this.stopped = true;
    this.epoch++;
    this.watch?.stop();
    this.watch = undefined;
    if (this.retryTimer !== undefined) this.opts.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    for (const list of this.waiters.values()) for (const w of list) w(undefined);
    this.waiters.clear();
  }

  private async relist(): Promise<void> {
    const epoch = ++this.epoch;
    this.watch?.stop();
    this.watch = undefined;
    let listed: Awaited<ReturnType<ClusterSource['list']>>;
    try {
      listed = await this.source.list(this.kind, this.scope());
    } catch (err) {
      if (epoch !== this.epoch || this.stopped) return;
      this.report(err);
      this.retry(false);
      return;
    }
    if (epoch !== this.epoch || this.stopped) return;
    this.s.lists++;
    const old = this.cache;
    const next = new Map<string, KubeObject>();
    for (const o of listed.items) next.set(keyOf(o), o);
    this.cache = next;
    this.sorted = undefined;
    // Every index is current before the first handler of this list runs.
    for (const [key, o] of next) {
      const before = old.get(key);
      if (before !== o) this.reindex(key, o);
    }
    for (const key of old.keys()) if (!next.has(key)) this.reindex(key, undefined);
    for (const [key, o] of next) {
      const before = old.get(key);
      if (before === undefined) this.call('onAdd', o);
      else if (before.metadata.resourceVersion !== o.metadata.resourceVersion) this.call('onUpdate', before, o);
    }
    for (const [key, o] of old) if (!next.has(key)) this.call('onDelete', o);
    if (!this.syncedFlag) {
      this.syncedFlag = true;
      this.resolveSynced();
    }
    for (const key of [...this.waiters.keys()]) this.wake(key);
    if (epoch !== this.epoch || this.stopped) return;
    this.startWatch(epoch, listed.resourceVersion);
  }

  private startWatch(epoch: number, resourceVersion: string): void {
    const failed = (err: unknown) => {
      if (epoch !== this.epoch || this.stopped) return;
      // Gone is the expected one (our version left the history); any other failure is handled alike.
      if ((err as { reason?: unknown }).reason !== 'Gone') this.report(err);
      this.epoch++;
      this.watch?.stop();
      this.watch = undefined;
      this.retry(true);
    };
    this.watchSince = this.opts.clock.now();
    try {
      this.watch = this.source.watch(
        this.kind,
        resourceVersion,
        (e) => this.deliver(epoch, e.type, e.object),
        failed,
        this.scope(),
      );
    } catch (err) {
      failed(err);
    }
  }

  /** The list and watch options: the namespace and selectors that are set. */
  private scope(): ListOptions {
    const { namespace, labelSelector, fieldSelector } = this.opts;
    return {
      ...(namespace !== undefined ? { namespace } : {}),
      ...(labelSelector !== undefined ? { labelSelector } : {}),
      ...(fieldSelector !== undefined ? { fieldSelector } : {}),
    };
  }

  private deliver(epoch: number, type: string, o: KubeObject): void {
    if (epoch !== this.epoch || this.stopped) return;
    this.s.events++;
    this.failures = 0;
    if (this.opts.namespace !== undefined && o.metadata.namespace !== this.opts.namespace) return;
    const key = keyOf(o);
    const before = this.cache.get(key);
    this.sorted = undefined;
    if (type === 'DELETED') {
      this.cache.delete(key);
      this.reindex(key, undefined);
      this.call('onDelete', before ?? o);
    } else {
      this.cache.set(key, o);
      this.reindex(key, o);
      if (before === undefined) this.call('onAdd', o);
      else this.call('onUpdate', before, o);
      this.wake(key);
    }
  }

  /** A list again after a failure: at once for a first watch failure, else after the backoff. */
  private retry(watchFailed: boolean): void {
    const { clock } = this.opts;
    if (this.stopped || this.retryTimer !== undefined) return;
    const max = this.opts.maxRetryMs ?? 30_000;
    // A watch that stayed up longer than the longest delay was healthy: its failure starts afresh.
    if (watchFailed && clock.now() - this.watchSince >= max) this.failures = 0;
    this.failures++;
    if (watchFailed && this.failures === 1) {
      void this.relist();
      return;
    }
    const delay = backoffMs(this.failures, this.opts.retryMs ?? 800, max);
    this.retryTimer = clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped) void this.relist();
    }, delay);
  }

  /**
   * How many changes the cache has taken: a reader that derives something
   * from the whole cache keeps it while this stays the same.
   */
  get revision(): number {
    return this.changes;
  }

  /** Moves `key` in every index from where it was filed to where `after` goes (undefined: nowhere). */
  private reindex(key: string, after: KubeObject | undefined): void {
    this.changes++;
    for (const [name, f] of this.indexers) {
      const index = this.indexes.get(name)!;
      for (const v of this.filed.get(name)!.get(key) ?? []) {
        const bucket = index.get(v);
        bucket?.delete(key);
        if (bucket?.size === 0) index.delete(v);
      }
      this.filed.get(name)!.delete(key);
      if (after !== undefined) this.indexOne(name, f, key, after);
    }
  }

  /** Files `o` under the values `f` gives (one that throws is reported and files it nowhere). */
  private indexOne(name: string, f: IndexFunc, key: string, o: KubeObject): void {
    let values: readonly string[];
    try {
      values = f(o);
    } catch (err) {
      this.report(err);
      return;
    }
    const index = this.indexes.get(name)!;
    for (const v of values) {
      let bucket = index.get(v);
      if (bucket === undefined) index.set(v, (bucket = new Map()));
      bucket.set(key, o);
    }
    if (values.length > 0) this.filed.get(name)!.set(key, values);
  }

  private wake(key: string): void {
    const list = this.waiters.get(key);
    const o = this.cache.get(key);
    if (list === undefined || o === undefined) return;
    this.waiters.delete(key);
    for (const w of list) w(o);
  }

  private call(what: 'onAdd' | 'onDelete', o: KubeObject): void;
  private call(what: 'onUpdate', before: KubeObject, o: KubeObject): void;
  private call(what: keyof InformerHandlers, a: KubeObject, b?: KubeObject): void {
    for (const h of [...this.handlers]) {
      try {
        if (what === 'onUpdate') h.onUpdate?.(a, b!);
        else h[what]?.(a);
      } catch (err) {
        this.report(err);
      }
    }
  }

  private report(err: unknown): void {
    try {
      this.opts.onError?.(err);
    } catch {
      // A failing reporter must not stop the informer.
    }
  }
}

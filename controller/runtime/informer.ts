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
 * Objects from the source are kept as they are: the in-memory cluster
 * freezes them, and handlers must not change them in any case.
 */
import { type ClusterError, type ClusterSource, type KubeObject, keyOf, type Watch } from '../cluster/types.ts';
import type { Clock } from './clock.ts';

export interface InformerHandlers {
  onAdd?(obj: KubeObject): void;
  onUpdate?(oldObj: KubeObject, newObj: KubeObject): void;
  onDelete?(obj: KubeObject): void;
}

export interface InformerOptions {
  /** Only objects of this namespace. */
  readonly namespace?: string;
  /** Watch errors, failed lists and handlers that throw. */
  readonly onError?: (err: unknown) => void;
  /** With a clock, a failed relist is tried again after `retryMs` (default 1,000); without, the informer stops. */
  readonly clock?: Clock;
  readonly retryMs?: number;
}

export interface InformerStats {
  readonly lists: number;
  readonly events: number;
}

/**
 * @example
 * const pods = new Informer(cluster, 'Pod');
 * pods.addHandlers({ onAdd: (p) => queue.add(keyOf(p)), onUpdate: (_, p) => queue.add(keyOf(p)) });
 * await pods.start(); // the cache holds every pod
 * pods.get('default/web-0');
 */
export class Informer {
  private cache = new Map<string, KubeObject>();
  private readonly handlers: InformerHandlers[] = [];
  private watch: Watch | undefined;
  /** Bumped by every (re)list and by stop; callbacks of an older epoch are ignored. */
  private epoch = 0;
  private started = false;
  private stopped = false;
  private syncedFlag = false;
  private retryTimer: unknown;
  private readonly syncedPromise: Promise<void>;
  private resolveSynced!: () => void;
  private readonly s = { lists: 0, events: 0 };

  constructor(
    private readonly source: ClusterSource,
    readonly kind: string,
    private readonly opts: InformerOptions = {},
  ) {
    this.syncedPromise = new Promise((resolve) => (this.resolveSynced = resolve));
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
   * Lists (calling `onAdd` for every object), then watches from the list's
   * version. Resolves once the initial list is in the cache.
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

  /** Resolves once the initial list is in the cache. */
  synced(): Promise<void> {
    return this.syncedPromise;
  }

  /** The cached object under `ns/name` (or `name` for cluster-scoped kinds). */
  get(key: string): KubeObject | undefined {
    return this.cache.get(key);
  }

  /** The cached keys, in no particular order (for requeueing: the queue orders nothing either). */
  keys(): IterableIterator<string> {
    return this.cache.keys();
  }

  /** Every cached object, sorted by key. */
  list(): KubeObject[] {
    return [...this.cache.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
  }

  get stats(): InformerStats {
    return { ...this.s };
  }

  /** Stops watching; no handler is called after it returns. The cache stays readable. */
  stop(): void {
    this.stopped = true;
    this.epoch++;
    this.watch?.stop();
    this.watch = undefined;
    if (this.retryTimer !== undefined) this.opts.clock?.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  private async relist(): Promise<void> {
    const epoch = ++this.epoch;
    this.watch?.stop();
    this.watch = undefined;
    let listed: Awaited<ReturnType<ClusterSource['list']>>;
    try {
      const opts = this.opts.namespace !== undefined ? { namespace: this.opts.namespace } : {};
      listed = await this.source.list(this.kind, opts);
    } catch (err) {
      if (epoch !== this.epoch || this.stopped) return;
      this.report(err);
      this.retry();
      if (!this.syncedFlag && this.opts.clock === undefined) throw err;
      return;
    }
    if (epoch !== this.epoch || this.stopped) return;
    this.s.lists++;
    const old = this.cache;
    const next = new Map<string, KubeObject>();
    for (const o of listed.items) next.set(keyOf(o), o);
    this.cache = next;
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
    if (epoch !== this.epoch || this.stopped) return;
    this.watch = this.source.watch(
      this.kind,
      listed.resourceVersion,
      (e) => {
        if (epoch !== this.epoch || this.stopped) return;
        this.s.events++;
        const o = e.object;
        if (this.opts.namespace !== undefined && o.metadata.namespace !== this.opts.namespace) return;
        const key = keyOf(o);
        const before = this.cache.get(key);
        if (e.type === 'DELETED') {
          this.cache.delete(key);
          this.call('onDelete', before ?? o);
        } else {
          this.cache.set(key, o);
          if (before === undefined) this.call('onAdd', o);
          else this.call('onUpdate', before, o);
        }
      },
      (err: ClusterError) => {
        if (epoch !== this.epoch || this.stopped) return;
        // Gone is the expected one (our version left the history); any other failure is handled alike.
        if (err.reason !== 'Gone') this.report(err);
        void this.relist();
      },
    );
  }

  private retry(): void {
    const { clock } = this.opts;
    if (clock === undefined || this.stopped) return;
    this.retryTimer = clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped) void this.relist();
    }, this.opts.retryMs ?? 1_000);
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

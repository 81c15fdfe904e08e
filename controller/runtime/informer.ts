/**
 * An informer for one kind: list, then watch from the list's version into a
 * cache, telling registered handlers about each change after the cache has
 * it. When the watch says its version is gone (`Gone`), it lists again and
 * tells only the differences against the cache (client-go's relist), so a
 * handler never sees a change twice nor misses a delete.
 */
import { ClusterError, type ClusterSource, type KubeObject, keyOf, type Watch } from '../cluster/types.ts';

export interface InformerHandlers {
  add?(o: KubeObject): void;
  update?(old: KubeObject, o: KubeObject): void;
  delete?(o: KubeObject): void;
}

/**
 * @example
 * const pods = new Informer(cluster, 'Pod');
 * pods.on({ add: (p) => queue.add(keyOf(p)) });
 * await pods.start(); pods.get('default/web-0');
 */
export class Informer {
  private readonly cache = new Map<string, KubeObject>();
  private readonly handlers: InformerHandlers[] = [];
  private w: Watch | undefined;
  private stopped = false;
  private syncedFlag = false;
  private syncWaiters: (() => void)[] = [];
  private sorted: KubeObject[] | undefined;
  /** Relists after a `Gone` watch. */
  relists = 0;

  constructor(
    private readonly cluster: ClusterSource,
    readonly kind: string,
  ) {}

  on(h: InformerHandlers): void {
    this.handlers.push(h);
  }

  /** Lists into the cache (no handler calls for it) and watches from there. */
  async start(): Promise<void> {
    const l = await this.cluster.list(this.kind);
    for (const o of l.items) this.cache.set(keyOf(o), o);
    this.sorted = undefined;
    this.watchFrom(l.resourceVersion);
    this.syncedFlag = true;
    for (const w of this.syncWaiters.splice(0)) w();
  }

  hasSynced(): boolean {
    return this.syncedFlag;
  }

  synced(): Promise<void> {
    return this.syncedFlag ? Promise.resolve() : new Promise((r) => this.syncWaiters.push(r));
  }

  get(key: string): KubeObject | undefined {
    return this.cache.get(key);
  }

  /** Every cached object, sorted by key (the same array until the next change). */
  list(): readonly KubeObject[] {
    this.sorted ??= [...this.cache.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[1]);
    return this.sorted;
  }

  get size(): number {
    return this.cache.size;
  }

  stop(): void {
    this.stopped = true;
    this.w?.stop();
  }

  private watchFrom(rv: string): void {
    if (this.stopped) return;
    this.w = this.cluster.watch(
      this.kind,
      rv,
      (e) => {
        const key = keyOf(e.object);
        const old = this.cache.get(key);
        this.sorted = undefined;
        if (e.type === 'DELETED') {
          this.cache.delete(key);
          for (const h of this.handlers) h.delete?.(e.object);
        } else {
          this.cache.set(key, e.object);
          for (const h of this.handlers) old === undefined ? h.add?.(e.object) : h.update?.(old, e.object);
        }
      },
      (err) => {
        if (err instanceof ClusterError && err.reason === 'Gone') void this.relist();
      },
    );
  }

  private async relist(): Promise<void> {
    this.w?.stop();
    if (this.stopped) return;
    this.relists++;
    const l = await this.cluster.list(this.kind);
    const seen = new Set<string>();
    this.sorted = undefined;
    for (const o of l.items) {
      const key = keyOf(o);
      seen.add(key);
      const old = this.cache.get(key);
      this.cache.set(key, o);
      if (old === undefined) for (const h of this.handlers) h.add?.(o);
      else if (old.metadata.resourceVersion !== o.metadata.resourceVersion)
        for (const h of this.handlers) h.update?.(old, o);
    }
    for (const [key, old] of [...this.cache]) {
      if (seen.has(key)) continue;
      this.cache.delete(key);
      for (const h of this.handlers) h.delete?.(old);
    }
    this.watchFrom(l.resourceVersion);
  }
}

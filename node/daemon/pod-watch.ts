/**
 * The pods the daemon reads, through an informer (list + watch, kept
 * current), and bounded waits on one pod until its annotations say what
 * the daemon needs: ADD waits here for `allocated` and `routed`, as
 * Kube-OVN's cniserver polls its pod lister (pkg/daemon/handler.go), but
 * woken by the informer's events instead of a 1 s sleep.
 */
import type { ClusterSource, KubeObject } from '../../kube/cluster/types.ts';
import { Informer } from '../../kube/runtime/informer.ts';
import type { Clock } from '../../kube/runtime/clock.ts';

export interface PodWatchOptions {
  readonly clock: Clock;
  /** Watch and list failures (the informer retries them). */
  readonly onError?: (err: unknown) => void;
  /** Only the pods this field selector matches (the daemon's: `spec.nodeName=<node>`), applied by the source. */
  readonly fieldSelector?: string;
}

/** What a wait ends with: the value the predicate gave, or the pod as last seen when time ran out. */
export type WaitResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly last: KubeObject | undefined };

interface Waiter {
  readonly check: (pod: KubeObject | undefined) => boolean;
}

/**
 * @example
 * const pods = new PodWatch(cluster, { clock: realClock });
 * await pods.start();
 * const r = await pods.waitUntil('shop/web-0', (p) => (p && ready(p) ? p : undefined), 30_000);
 */
export class PodWatch {
  readonly #informer: Informer;
  readonly #waiters = new Map<string, Set<Waiter>>();
  readonly #clock: Clock;

  constructor(cluster: ClusterSource, opts: PodWatchOptions) {
    this.#clock = opts.clock;
    this.#informer = new Informer(cluster, 'Pod', {
      clock: opts.clock,
      ...(opts.onError === undefined ? {} : { onError: opts.onError }),
      ...(opts.fieldSelector === undefined ? {} : { fieldSelector: opts.fieldSelector }),
    });
    const wake = (o: KubeObject) => this.#wake(`${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    this.#informer.addHandlers({ onAdd: wake, onUpdate: (_, o) => wake(o), onDelete: wake });
  }

  /** Resolves once the first list is in the cache. */
  start(): Promise<void> {
    return this.#informer.start();
  }

  hasSynced(): boolean {
    return this.#informer.hasSynced();
  }

  /** The pod under `namespace/name`, as the cache holds it now. */
  get(namespace: string, name: string): KubeObject | undefined {
    return this.#informer.get(`${namespace}/${name}`);
  }

  /** Calls `f` for every later change of a pod (its last state for a delete); returns the unsubscribe. */
  onChange(f: (pod: KubeObject, deleted: boolean) => void): () => void {
    return this.#informer.addHandlers({
      onAdd: (o) => f(o, false),
      onUpdate: (_, o) => f(o, false),
      onDelete: (o) => f(o, true),
    });
  }

  /**
   * Resolves with `f`'s first defined answer for the pod under `key`
   * (`namespace/name`; the pod may be missing), evaluated now and at each of
   * its changes; after `timeoutMs`, with the pod as last seen.
   */
  waitUntil<T>(
    key: string,
    f: (pod: KubeObject | undefined) => T | undefined,
    timeoutMs: number,
  ): Promise<WaitResult<T>> {
    const first = f(this.#informer.get(key));
    if (first !== undefined) return Promise.resolve({ ok: true, value: first });
    return new Promise((resolve) => {
      let set = this.#waiters.get(key);
      if (set === undefined) this.#waiters.set(key, (set = new Set()));
      const done = (r: WaitResult<T>) => {
        this.#clock.clearTimeout(timer);
        set.delete(waiter);
        if (set.size === 0 && this.#waiters.get(key) === set) this.#waiters.delete(key);
        resolve(r);
      };
      const waiter: Waiter = {
        check: (pod) => {
          const v = f(pod);
          if (v === undefined) return false;
          done({ ok: true, value: v });
          return true;
        },
      };
      const timer = this.#clock.setTimeout(() => done({ ok: false, last: this.#informer.get(key) }), timeoutMs);
      set.add(waiter);
    });
  }

  stop(): void {
    this.#informer.stop();
  }

  #wake(key: string): void {
    const set = this.#waiters.get(key);
    if (set === undefined) return;
    const pod = this.#informer.get(key);
    for (const w of [...set]) w.check(pod);
  }
}

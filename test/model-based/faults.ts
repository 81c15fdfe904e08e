/**
 * What the model-based runs do to the controller's surroundings: a clock
 * whose time passes only when the run says (zero-delay timers fire on the
 * next turn of the event loop, so commits happen by themselves), a cluster
 * source whose watches duplicate, hold back or drop events per kind, and
 * connections a crash cuts at once.
 */
import type { ApplyOptions, Backend } from '../../backends/backend.ts';
import type { Plan } from '../../model/topology/index.ts';
import { ClusterError, type ClusterSource, type Watch, type WatchEvent } from '../../kube/cluster/types.ts';
import type { Clock } from '../../kube/runtime/clock.ts';
import type { WatchFault } from './ops.ts';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

/**
 * Virtual time: a timer of 0 ms fires on the next turn (a batch commit, a
 * policy flush); longer ones (retry backoffs, relists) wait for `advance`
 * or `fireNext`, so a run decides when retries come due.
 */
export class RunClock implements Clock {
  private t = 1_000_000;
  private seq = 0;
  private readonly timers = new Map<number, Timer>();
  private readonly immediate = new Map<number, NodeJS.Immediate>();

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    if (!(ms > 0)) {
      this.immediate.set(
        id,
        setImmediate(() => {
          this.immediate.delete(id);
          fn();
        }),
      );
    } else this.timers.set(id, { at: this.t + ms, seq: id, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    const id = handle as number;
    this.timers.delete(id);
    const im = this.immediate.get(id);
    if (im !== undefined) clearImmediate(im);
    this.immediate.delete(id);
  }

  /** When the next delayed timer is due, or undefined. */
  nextAt(): number | undefined {
    let best: Timer | undefined;
    for (const t of this.timers.values()) if (best === undefined || t.at < best.at) best = t;
    return best?.at;
  }

  /** Moves time by `ms`, firing what comes due, in order. */
  advance(ms: number): number {
    const end = this.t + ms;
    let fired = 0;
    for (let at = this.nextAt(); at !== undefined && at <= end; at = this.nextAt()) {
      this.fireDue(at);
      fired++;
    }
    this.t = end;
    return fired;
  }

  /** Jumps to the next delayed timer and fires it (and those due with it). */
  fireNext(): boolean {
    const at = this.nextAt();
    if (at === undefined) return false;
    this.fireDue(at);
    return true;
  }

  private fireDue(at: number): void {
    this.t = Math.max(this.t, at);
    const due = [...this.timers.entries()].filter(([, t]) => t.at <= at).sort((a, b) => a[1].seq - b[1].seq);
    for (const [id, t] of due) {
      this.timers.delete(id);
      t.fn();
    }
  }
}

interface OpenWatch {
  readonly kind: string;
  readonly inner: Watch;
  readonly onEvent: (e: WatchEvent) => void;
  readonly onError: ((e: ClusterError) => void) | undefined;
  readonly held: WatchEvent[];
  dropped: number;
  stopped: boolean;
}

/**
 * A cluster source whose watches misbehave per kind, as an API server and
 * the network between do: `dup` delivers each event twice (at-least-once
 * delivery), `hold` delivers nothing until the kind is set back (other
 * kinds' events overtake them: reordered), `drop` loses events and then
 * fails the watch with `Gone` when set back (the informer lists again).
 * Everything else passes through.
 */
export class WatchFaults implements ClusterSource {
  private readonly modes = new Map<string, WatchFault>();
  private readonly open = new Set<OpenWatch>();
  /** Events duplicated, held, dropped, and watches failed, over the run. */
  readonly counts = { dup: 0, held: 0, dropped: 0, relists: 0 };

  constructor(readonly inner: ClusterSource) {}

  /** Sets a kind's mode; leaving `hold` delivers what was held, leaving `drop` fails the watches that lost events. */
  set(kind: string, fault: WatchFault): void {
    const was = this.modes.get(kind) ?? 'ok';
    if (fault === 'ok') this.modes.delete(kind);
    else this.modes.set(kind, fault);
    if (was === fault) return;
    for (const w of [...this.open]) {
      if (w.kind !== kind || w.stopped) continue;
      if (was === 'hold') for (const e of w.held.splice(0)) this.deliver(w, e);
      if (was === 'drop' && w.dropped > 0) this.fail(w);
    }
  }

  /** Every kind back to normal. */
  heal(): void {
    for (const kind of [...this.modes.keys()]) this.set(kind, 'ok');
  }

  watch(
    kind: string,
    resourceVersion: string,
    onEvent: (e: WatchEvent) => void,
    onError?: (e: ClusterError) => void,
  ): Watch {
    const w: OpenWatch = {
      kind,
      onEvent,
      onError,
      held: [],
      dropped: 0,
      stopped: false,
      inner: undefined as unknown as Watch,
    };
    const failed = (e: ClusterError) => {
      if (w.stopped) return;
      w.stopped = true;
      this.open.delete(w);
      onError?.(e);
    };
    (w as { inner: Watch }).inner = this.inner.watch(kind, resourceVersion, (e) => this.receive(w, e), failed);
    this.open.add(w);
    return {
      stop: () => {
        w.stopped = true;
        this.open.delete(w);
        w.inner.stop();
      },
    };
  }

  private receive(w: OpenWatch, e: WatchEvent): void {
    if (w.stopped) return;
    const mode = this.modes.get(w.kind) ?? 'ok';
    if (mode === 'hold') {
      w.held.push(e);
      this.counts.held++;
    } else if (mode === 'drop') {
      w.dropped++;
      this.counts.dropped++;
    } else {
      this.deliver(w, e);
      if (mode === 'dup') {
        this.counts.dup++;
        this.deliver(w, e);
      }
    }
  }

  private deliver(w: OpenWatch, e: WatchEvent): void {
    if (!w.stopped) w.onEvent(e);
  }

  private fail(w: OpenWatch): void {
    w.stopped = true;
    this.open.delete(w);
    w.inner.stop();
    this.counts.relists++;
    const err = new ClusterError('Gone', { kind: w.kind, name: '' }, `watch ${w.kind}: events lost (injected)`);
    queueMicrotask(() => w.onError?.(err));
  }

  list: ClusterSource['list'] = (kind, opts) => this.inner.list(kind, opts);
  get: ClusterSource['get'] = (ref) => this.inner.get(ref);
  create: ClusterSource['create'] = (o) => this.inner.create(o);
  update: ClusterSource['update'] = (o) => this.inner.update(o);
  updateStatus: ClusterSource['updateStatus'] = (o) => this.inner.updateStatus(o);
  patch: ClusterSource['patch'] = (ref, p, opts) => this.inner.patch(ref, p, opts);
  delete: ClusterSource['delete'] = (ref) => this.inner.delete(ref);
  recordEvent: ClusterSource['recordEvent'] = (e) => this.inner.recordEvent(e);
}

/**
 * A crash: once `dead`, every call fails and watches deliver nothing more.
 * An apply already sent is let finish (`landed`) before the next controller
 * starts: a dead process's transactions reach the database before a new
 * process connects, and here the processes share one connection, whose
 * cache would otherwise show the next controller NB without them.
 */
export class Cut {
  dead = false;
  readonly inFlight = new Set<Promise<unknown>>();
  check(): void {
    if (this.dead) throw new CutError();
  }
  kill(): void {
    this.dead = true;
  }
  async landed(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}

export class CutError extends Error {
  override readonly name = 'CutError';
  readonly code = 'cut';
  constructor() {
    super('connection lost (controller crashed)');
  }
}

/** `inner` as a crashed process sees it: calls after the cut fail, answers after it are lost. */
export function cutCluster(inner: ClusterSource, cut: Cut): ClusterSource {
  const guard =
    <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      cut.check();
      const r = await f(...a);
      cut.check();
      return r;
    };
  return {
    list: guard(inner.list.bind(inner)),
    get: guard(inner.get.bind(inner)),
    create: guard(inner.create.bind(inner)),
    update: guard(inner.update.bind(inner)),
    updateStatus: guard(inner.updateStatus.bind(inner)),
    patch: guard(inner.patch.bind(inner)),
    delete: guard(inner.delete.bind(inner)),
    recordEvent: guard(inner.recordEvent.bind(inner)),
    watch: (kind, rv, onEvent, onError) => inner.watch(kind, rv, (e) => cut.dead || onEvent(e), onError),
  };
}

/** The backend as a crashed process sees it (the backend itself lives on; closing it is the run's). */
export function cutBackend(inner: Backend, cut: Cut): Backend {
  return {
    kind: inner.kind,
    apply: async (p: Plan, opts?: ApplyOptions) => {
      cut.check();
      const applied = inner.apply(p, opts);
      cut.inFlight.add(applied);
      try {
        return await applied;
      } finally {
        cut.inFlight.delete(applied);
      }
    },
    read: async () => {
      cut.check();
      return inner.read();
    },
    readRows: async (keys) => {
      cut.check();
      return inner.readRows(keys);
    },
    watch: (listener) => inner.watch((changes) => cut.dead || listener(changes)),
    close: async () => {},
  };
}

/**
 * A backend whose applies take `turns` turns of the event loop, as a real
 * database's round trips do: changes made while a commit is in flight.
 */
export function slowBackend(inner: Backend, turns: number): Backend {
  return {
    kind: inner.kind,
    apply: async (p: Plan, opts?: ApplyOptions) => {
      for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r));
      return inner.apply(p, opts);
    },
    read: () => inner.read(),
    readRows: (keys) => inner.readRows(keys),
    watch: (listener) => inner.watch(listener),
    close: () => inner.close(),
  };
}

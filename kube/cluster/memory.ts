/**
 * The in-memory cluster: a `ClusterSource` with the Kubernetes API server's
 * semantics, for scenarios, tests and benchmarks. What the controller relies
 * on is reproduced exactly: one resourceVersion counter for all kinds, list
 * + watch from a version with a bounded history (`Gone` past it), optimistic
 * concurrency, the status subresource, merge patches, generation bumped by
 * spec changes only, deletion held by finalizers, and event aggregation.
 * Lists and watches apply namespaces and label/field selectors
 * (selectors.ts); a watch sees an object entering its scope as ADDED and
 * one leaving it as DELETED.
 *
 * Choices, where the real server has more:
 * - Stored objects are deep-frozen, and reads return them as they are (no
 *   copy): a caller that wants to change one builds a new object. Inputs are
 *   copied with structuredClone before they are stored.
 * - `create` keeps a given status (scenario files write Node and Pod status);
 *   later, only updateStatus and status patches change it.
 * - Removing the last finalizer of an object being deleted emits DELETED only
 *   (the API server emits a MODIFIED first; a level-driven reader loses nothing).
 * - Deleting a Namespace does not delete what is in it (no namespace controller).
 * - Workloads make no pods by themselves: the workload controllers and the
 *   scheduler (controllers.ts) run on the cluster as clients of this API.
 * - The namespace rule applies to the kinds of the registry (../registry.ts);
 *   other kinds are stored with or without a namespace as given.
 * - Watch events are delivered in microtasks, never inside the write call.
 */
import { API_VERSION, NAMESPACED } from '../registry.ts';
import { dns1123Label, nameProblem } from './names.ts';
import { compileSelectors, type ObjectFilter } from './selectors.ts';
import { deepFreeze, isPlainObject, jsonEqual, mergePatch } from './json.ts';
import { apiTime } from './time.ts';
import {
  ClusterError,
  type ClusterSource,
  type EventInput,
  formatKey,
  type KubeObject,
  type ListOptions,
  type ListResult,
  type ObjectMeta,
  type ObjectRef,
  type Watch,
  type WatchEvent,
  type WatchEventType,
  type WatchOptions,
} from './types.ts';

export interface MemoryClusterOptions {
  /** Milliseconds since the epoch, for timestamps (default: always 0, so runs are reproducible). */
  readonly now?: () => number;
  /** Uid generator (default `uid-1`, `uid-2`, ...). */
  readonly uid?: () => string;
  /** Watch events kept for replay (default 10,000); a watch from an older version gets `Gone`. */
  readonly historyLimit?: number;
}

/** Requests per verb that the cluster accepted; `noop` counts updates and patches that changed nothing. */
export interface ClusterStats {
  readonly create: number;
  readonly update: number;
  readonly updateStatus: number;
  readonly patch: number;
  readonly delete: number;
  readonly recordEvent: number;
  readonly noop: number;
  /** Changes stored (each bumped the resourceVersion). */
  readonly writes: number;
}

/** A stored Event, as `v1 Event` has it. */
export interface EventObject extends KubeObject {
  readonly kind: 'Event';
  readonly involvedObject: { readonly kind: string; readonly namespace?: string; readonly name: string; uid?: string };
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
  readonly source: { readonly component: string };
  readonly count: number;
  readonly firstTimestamp: string;
  readonly lastTimestamp: string;
}

interface HistoryEntry {
  readonly rv: number;
  readonly kind: string;
  readonly event: WatchEvent;
  /** The object before a MODIFIED change: a watch with a selector tells entering and leaving apart by it. */
  readonly prev: KubeObject | undefined;
}

interface Watcher {
  readonly onEvent: (e: WatchEvent) => void;
  /** The watch's namespace and selectors; undefined: every object of the kind. */
  readonly filter: ObjectFilter | undefined;
  readonly queue: WatchEvent[];
  scheduled: boolean;
  stopped: boolean;
}

type Verb = 'create' | 'update' | 'updateStatus' | 'patch' | 'delete';
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const DEFAULT_HISTORY = 10_000;

/**
 * @example
 * const cluster = new MemoryCluster({ now: () => clock.now() });
 * await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } });
 * const { items, resourceVersion } = await cluster.list('Pod');
 * const w = cluster.watch('Pod', resourceVersion, (e) => console.log(e.type, e.object.metadata.name));
 */
export class MemoryCluster implements ClusterSource {
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly watchers = new Map<string, Set<Watcher>>();
  /** Oldest retained entry at `head`; entries before it are dropped lazily. */
  private history: HistoryEntry[] = [];
  private head = 0;
  /** Every version above this one is in the history. */
  private floor = 0;
  private rv = 0;
  private uidCounter = 0;
  private eventCounter = 0;
  /** Aggregation key of an event → the key of its stored Event. */
  private readonly eventKeys = new Map<string, string>();
  private readonly counts = { create: 0, update: 0, updateStatus: 0, patch: 0, delete: 0, recordEvent: 0, noop: 0 };
  private readonly now: () => number;
  private readonly newUid: () => string;
  private readonly historyLimit: number;

  constructor(opts: MemoryClusterOptions = {}) {
    this.now = opts.now ?? (() => 0);
    this.newUid = opts.uid ?? (() => `uid-${++this.uidCounter}`);
    this.historyLimit = Math.max(1, opts.historyLimit ?? DEFAULT_HISTORY);
  }

  /** The current resourceVersion (of the last write). */
  get resourceVersion(): string {
    return String(this.rv);
  }

  async list(kind: string, opts: ListOptions = {}): Promise<ListResult> {
    const filter = selectorFilter(kind, opts);
    const all = [...(this.objects.get(kind)?.values() ?? [])];
    const items = filter === undefined ? all : all.filter(filter);
    items.sort(byNamespaceThenName);
    return { items, resourceVersion: this.resourceVersion };
  }

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    const r = this.normalise(ref);
    return this.objects.get(r.kind)?.get(storeKey(r));
  }

  watch(
    kind: string,
    resourceVersion: string,
    onEvent: (e: WatchEvent) => void,
    onError?: (e: ClusterError) => void,
    opts: WatchOptions = {},
  ): Watch {
    const filter = selectorFilter(kind, opts);
    const w: Watcher = { onEvent, filter, queue: [], scheduled: false, stopped: false };
    const stop = (): void => {
      w.stopped = true;
      w.queue.length = 0;
      this.watchers.get(kind)?.delete(w);
    };
    const from = /^\d+$/.test(resourceVersion) ? Number(resourceVersion) : Number.NaN;
    if (Number.isNaN(from) || from < this.floor) {
      const error = Number.isNaN(from)
        ? new ClusterError(
            'Invalid',
            { kind, name: '' },
            `watch ${kind}: resourceVersion "${resourceVersion}" is not a version`,
            'resourceVersion',
          )
        : new ClusterError(
            'Gone',
            { kind, name: '' },
            `watch ${kind}: resourceVersion ${from} is too old (oldest retained is ${this.floor})`,
          );
      queueMicrotask(() => {
        if (!w.stopped) onError?.(error);
      });
      return { stop: () => void (w.stopped = true) };
    }
    for (let i = this.head; i < this.history.length; i++) {
      const h = this.history[i]!;
      if (h.rv > from && h.kind === kind) enqueue(w, h.event, h.prev);
    }
    let set = this.watchers.get(kind);
    if (!set) this.watchers.set(kind, (set = new Set()));
    set.add(w);
    if (w.queue.length > 0) this.schedule(w);
    // Changes are queued to their watchers as they are stored: an empty queue has seen everything up to now.
    const progress = (): string | undefined => (w.stopped || w.queue.length > 0 ? undefined : this.resourceVersion);
    return { stop, progress };
  }

  async create(obj: KubeObject): Promise<KubeObject> {
    const input = this.input(obj);
    const ref = this.normalise(refOfInput(input));
    const key = storeKey(ref);
    if (this.objects.get(ref.kind)?.has(key)) {
      throw new ClusterError('AlreadyExists', ref, `${describe(ref)} already exists`);
    }
    this.counts.create++;
    return this.store(ref, this.fresh(input, ref), 'ADDED');
  }

  async update(obj: KubeObject): Promise<KubeObject> {
    const input = this.input(obj);
    const { ref, current } = this.current(refOfInput(input), 'update');
    this.checkVersion(ref, current, input.metadata.resourceVersion);
    const next: KubeObject = { ...input, kind: current.kind, status: current.status };
    if (next.status === undefined) delete (next as Mutable<KubeObject>).status;
    return this.replace(ref, current, next, 'update');
  }

  async updateStatus(obj: KubeObject): Promise<KubeObject> {
    const input = this.input(obj);
    const { ref, current } = this.current(refOfInput(input), 'updateStatus');
    this.checkVersion(ref, current, input.metadata.resourceVersion);
    const next: Mutable<KubeObject> = { ...current, status: input.status };
    if (next.status === undefined) delete next.status;
    return this.replace(ref, current, next, 'updateStatus');
  }

  async patch(ref: ObjectRef, patch: unknown, opts: { readonly subresource?: 'status' } = {}): Promise<KubeObject> {
    const verb = opts.subresource === 'status' ? 'updateStatus' : 'patch';
    const { ref: r, current } = this.current(ref, 'patch');
    if (!isPlainObject(patch))
      throw new ClusterError('Invalid', r, `patch ${describe(r)}: a merge patch must be an object`);
    const p = structuredClone(patch);
    const meta = isPlainObject(p['metadata']) ? p['metadata'] : {};
    const rv = meta['resourceVersion'];
    if (rv !== undefined && rv !== null) this.checkVersion(r, current, String(rv));
    let next: Mutable<KubeObject>;
    if (opts.subresource === 'status') {
      next = { ...current, status: mergePatch(current.status, p['status']) };
      if (p['status'] === undefined) next.status = current.status;
      if (next.status === undefined) delete next.status;
    } else {
      const merged = mergePatch(current, p) as Mutable<KubeObject>;
      const m = (isPlainObject(merged.metadata) ? merged.metadata : {}) as Partial<ObjectMeta>;
      const immutable: [string, unknown, unknown][] = [
        ['kind', merged.kind, current.kind],
        ['metadata.name', m.name, current.metadata.name],
        ['metadata.namespace', m.namespace, current.metadata.namespace],
      ];
      for (const [field, got, want] of immutable) {
        if (got !== want) {
          throw new ClusterError(
            'Invalid',
            r,
            `patch ${describe(r)}: ${field} is immutable (${show(want)} → ${show(got)})`,
          );
        }
      }
      if (m.uid !== current.metadata.uid) {
        throw new ClusterError('Conflict', r, `patch ${describe(r)}: metadata.uid ${show(m.uid)} is not the object's`);
      }
      next = { ...merged, metadata: m as ObjectMeta, status: current.status };
      if (next.status === undefined) delete next.status;
    }
    this.counts.patch++;
    return this.replace(r, current, next, verb, false);
  }

  async delete(ref: ObjectRef): Promise<void> {
    const { ref: r, current, key } = this.current(ref, 'delete');
    this.counts.delete++;
    if (current.metadata.deletionTimestamp !== undefined) {
      this.counts.noop++;
      return;
    }
    if ((current.metadata.finalizers ?? []).length > 0) {
      const next = { ...current, metadata: { ...current.metadata, deletionTimestamp: this.timestamp() } };
      this.store(r, next, 'MODIFIED');
      return;
    }
    this.remove(r, key, current);
  }

  /**
   * Stores a `v1 Event` named `<involved name>.<counter in hex>`; the same
   * event again (involved object, type, reason and message) while its Event
   * is still stored increments `count` and `lastTimestamp` instead, as the
   * client-go event recorder aggregates.
   *
   * @example
   * await cluster.recordEvent({ involved: refOf(pod), type: 'Warning', reason: 'AcquireAddressFailed', message });
   */
  async recordEvent(e: EventInput): Promise<void> {
    this.counts.recordEvent++;
    const inv = e.involved;
    const namespace = inv.namespace ?? 'default';
    const aggKey = JSON.stringify([
      inv.kind,
      inv.namespace ?? '',
      inv.name,
      inv.uid ?? '',
      e.type,
      e.reason,
      e.message,
    ]);
    const stamp = this.timestamp();
    const existingKey = this.eventKeys.get(aggKey);
    const existing = existingKey === undefined ? undefined : this.objects.get('Event')?.get(existingKey);
    if (existingKey !== undefined && existing === undefined) this.eventKeys.delete(aggKey);
    if (existing !== undefined) {
      const ev = existing as EventObject;
      const next: EventObject = { ...ev, count: ev.count + 1, lastTimestamp: stamp };
      this.store(this.normalise(refOfInput(ev)), next, 'MODIFIED');
      return;
    }
    const name = `${inv.name}.${(++this.eventCounter).toString(16)}`;
    const obj: EventObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        kind: inv.kind,
        name: inv.name,
        ...(inv.namespace !== undefined ? { namespace: inv.namespace } : {}),
        ...(inv.uid !== undefined ? { uid: inv.uid } : {}),
      },
      type: e.type,
      reason: e.reason,
      message: e.message,
      source: { component: e.source ?? 'kube-ovn-controller' },
      count: 1,
      firstTimestamp: stamp,
      lastTimestamp: stamp,
    };
    const ref = { kind: 'Event', namespace, name };
    this.eventKeys.set(aggKey, storeKey(ref));
    this.store(ref, this.fresh(obj, ref), 'ADDED');
  }

  /**
   * The stored Events, oldest first; with `ref`, those about that object
   * (its namespace compared only when given).
   *
   * @example
   * const [e] = cluster.events({ kind: 'Pod', namespace: 'default', name: 'web-0' });
   * expect(e?.reason).toBe('AcquireAddressFailed');
   */
  events(ref?: ObjectRef): EventObject[] {
    const all = [...(this.objects.get('Event')?.values() ?? [])] as EventObject[];
    if (ref === undefined) return all;
    return all.filter(
      (e) =>
        e.involvedObject.kind === ref.kind &&
        e.involvedObject.name === ref.name &&
        (ref.namespace === undefined || e.involvedObject.namespace === ref.namespace),
    );
  }

  /**
   * Requests accepted per verb, no-ops, and changes stored.
   *
   * @example
   * const before = cluster.stats(); await controller.resync(); expect(cluster.stats().writes).toBe(before.writes);
   */
  stats(): ClusterStats {
    return { ...this.counts, writes: this.rv };
  }

  // --- internals ---

  private input(obj: KubeObject): KubeObject {
    if (!isPlainObject(obj)) throw new ClusterError('Invalid', { kind: '', name: '' }, 'an object is required');
    const copy = structuredClone(obj) as Mutable<KubeObject>;
    const name = isPlainObject(copy.metadata) ? copy.metadata['name'] : undefined;
    const kind = typeof copy.kind === 'string' ? copy.kind : '';
    if (kind === '') throw new ClusterError('Invalid', { kind, name: String(name ?? '') }, 'kind: required');
    if (typeof name !== 'string' || name === '') {
      throw new ClusterError('Invalid', { kind, name: '' }, `${kind}: metadata.name: required`);
    }
    const bad = nameProblem(kind, name);
    if (bad !== undefined)
      throw new ClusterError('Invalid', { kind, name }, `${kind}: metadata.name: ${bad}`, 'metadata.name');
    const ns = isPlainObject(copy.metadata) ? copy.metadata['namespace'] : undefined;
    const badNs = typeof ns === 'string' && ns !== '' ? dns1123Label(ns) : undefined;
    if (badNs !== undefined)
      throw new ClusterError('Invalid', { kind, name }, `${kind}: metadata.namespace: ${badNs}`, 'metadata.namespace');
    return copy;
  }

  /** The ref with the namespace rule applied: `default` for namespaced kinds, none for cluster-scoped ones. */
  private normalise(ref: ObjectRef): ObjectRef {
    const { kind, name } = ref;
    if (NAMESPACED.has(kind)) return { kind, name, namespace: ref.namespace || 'default' };
    if (kind in API_VERSION && ref.namespace) {
      throw new ClusterError(
        'Invalid',
        ref,
        `${describe(ref)}: metadata.namespace: ${kind} is cluster-scoped and takes no namespace`,
      );
    }
    return ref.namespace ? { kind, name, namespace: ref.namespace } : { kind, name };
  }

  private current(ref: ObjectRef, verb: string): { ref: ObjectRef; current: KubeObject; key: string } {
    const r = this.normalise(ref);
    const key = storeKey(r);
    const current = this.objects.get(r.kind)?.get(key);
    if (current === undefined) throw new ClusterError('NotFound', r, `${verb} ${describe(r)}: not found`);
    return { ref: r, current, key };
  }

  private checkVersion(ref: ObjectRef, current: KubeObject, given: string | undefined): void {
    if (given === undefined || given === '' || given === current.metadata.resourceVersion) return;
    throw new ClusterError(
      'Conflict',
      ref,
      `${describe(ref)}: metadata.resourceVersion ${given} is not the current ${current.metadata.resourceVersion}` +
        ': the object has been modified; read it again',
    );
  }

  /** A new object's system fields filled. */
  private fresh(input: KubeObject, ref: ObjectRef): KubeObject {
    const {
      uid: _uid,
      resourceVersion: _rv,
      generation: _gen,
      creationTimestamp: _ct,
      deletionTimestamp: _dt,
      ...meta
    } = input.metadata;
    const apiVersion = input.apiVersion || API_VERSION[ref.kind] || input.apiVersion;
    return {
      ...input,
      ...(apiVersion !== undefined ? { apiVersion } : {}),
      metadata: {
        ...meta,
        name: ref.name,
        ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}),
        uid: this.newUid(),
        generation: 1,
        creationTimestamp: this.timestamp(),
      },
    };
  }

  /**
   * Stores `next` in place of `current` keeping the system fields, unless
   * nothing changed; deletes the object when it is being deleted and has no
   * finalizers left.
   */
  private replace(ref: ObjectRef, current: KubeObject, next: KubeObject, verb: Verb, count = true): KubeObject {
    if (count) this.counts[verb]++;
    const cm = current.metadata;
    const finalizers = next.metadata.finalizers ?? [];
    if (cm.deletionTimestamp !== undefined) {
      const added = finalizers.filter((f) => !(cm.finalizers ?? []).includes(f));
      if (added.length > 0) {
        throw new ClusterError(
          'Invalid',
          ref,
          `${verb} ${describe(ref)}: metadata.finalizers: no new finalizers can be added while the object is deleted`,
        );
      }
    }
    const { resourceVersion: _rv, generation: _gen, ...nm } = next.metadata;
    const metadata: ObjectMeta = {
      ...nm,
      name: cm.name,
      ...(cm.namespace !== undefined ? { namespace: cm.namespace } : {}),
      uid: cm.uid,
      creationTimestamp: cm.creationTimestamp,
      ...(cm.deletionTimestamp !== undefined ? { deletionTimestamp: cm.deletionTimestamp } : {}),
      generation: (cm.generation ?? 1) + (jsonEqual(current.spec, next.spec) ? 0 : 1),
      resourceVersion: cm.resourceVersion,
    };
    if (cm.deletionTimestamp === undefined) delete (metadata as Mutable<ObjectMeta>).deletionTimestamp;
    const candidate: KubeObject = { ...next, apiVersion: next.apiVersion || current.apiVersion, metadata };
    if (jsonEqual(candidate, current)) {
      this.counts.noop++;
      return current;
    }
    if (cm.deletionTimestamp !== undefined && finalizers.length === 0) {
      return this.remove(ref, storeKey(ref), candidate);
    }
    return this.store(ref, candidate, 'MODIFIED');
  }

  /** Bumps the version, stores the object with it, and emits the event. */
  private store(ref: ObjectRef, obj: KubeObject, type: WatchEventType): KubeObject {
    const rv = ++this.rv;
    const stored = deepFreeze({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } });
    let m = this.objects.get(ref.kind);
    if (!m) this.objects.set(ref.kind, (m = new Map()));
    const key = storeKey(ref);
    const prev = type === 'MODIFIED' ? m.get(key) : undefined;
    m.set(key, stored);
    this.emit(rv, ref.kind, type, stored, prev);
    return stored;
  }

  private remove(ref: ObjectRef, key: string, last: KubeObject): KubeObject {
    const rv = ++this.rv;
    const stored = deepFreeze({ ...last, metadata: { ...last.metadata, resourceVersion: String(rv) } });
    this.objects.get(ref.kind)?.delete(key);
    this.emit(rv, ref.kind, 'DELETED', stored);
    return stored;
  }

  private emit(rv: number, kind: string, type: WatchEventType, object: KubeObject, prev?: KubeObject): void {
    const event: WatchEvent = Object.freeze({ type, object });
    this.history.push({ rv, kind, event, prev });
    while (this.history.length - this.head > this.historyLimit) this.floor = this.history[this.head++]!.rv;
    if (this.head > 1024 && this.head * 2 > this.history.length) {
      this.history = this.history.slice(this.head);
      this.head = 0;
    }
    for (const w of this.watchers.get(kind) ?? []) {
      if (enqueue(w, event, prev)) this.schedule(w);
    }
  }

  private schedule(w: Watcher): void {
    if (w.scheduled) return;
    w.scheduled = true;
    queueMicrotask(() => {
      w.scheduled = false;
      // Checked before every event: a handler may stop its own watch.
      while (!w.stopped && w.queue.length > 0) w.onEvent(w.queue.shift()!);
    });
  }

  private timestamp(): string {
    return apiTime(this.now());
  }
}

/** The store's index of an object: its key, as the informers index it. */
const storeKey = formatKey;

const refOfInput = (o: KubeObject): ObjectRef => ({
  kind: o.kind,
  name: o.metadata.name,
  ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
});

const describe = (r: ObjectRef): string => `${r.kind} ${formatKey(r)}`;

const show = (v: unknown): string => (v === undefined ? 'none' : JSON.stringify(v));

function byNamespaceThenName(a: KubeObject, b: KubeObject): number {
  const na = a.metadata.namespace ?? '';
  const nb = b.metadata.namespace ?? '';
  if (na !== nb) return na < nb ? -1 : 1;
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

/** The filter of a list's or watch's scope; a selector that cannot be applied is refused (`Invalid`), never ignored. */
function selectorFilter(kind: string, opts: ListOptions): ObjectFilter | undefined {
  const r = compileSelectors(kind, opts);
  if (!r.ok) throw new ClusterError('Invalid', { kind, name: '' }, `${kind}: ${r.problem.message}`, r.problem.path);
  return r.filter;
}

/**
 * Queues the event as the watcher's scope sees it: an object that starts
 * matching is ADDED, one that stops matching is DELETED (its new state), as
 * the API server's watch cache reports them. False when it sees nothing.
 */
function enqueue(w: Watcher, event: WatchEvent, prev: KubeObject | undefined): boolean {
  if (w.filter === undefined) {
    w.queue.push(event);
    return true;
  }
  const now = w.filter(event.object);
  if (event.type !== 'MODIFIED') {
    if (now) w.queue.push(event);
    return now;
  }
  const was = prev !== undefined && w.filter(prev);
  if (!was && !now) return false;
  w.queue.push(was === now ? event : Object.freeze({ type: now ? 'ADDED' : 'DELETED', object: event.object }));
  return true;
}

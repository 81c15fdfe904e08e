/**
 * The in-memory cluster: the part of the Kubernetes API the controller
 * uses (types.ts), with its semantics, for scenarios, tests and benchmarks.
 *
 * - One resourceVersion counter for every kind, bumped by every write that
 *   changes something (a write that changes nothing is no write: no new
 *   version, no event, as the API server's no-op updates).
 * - `generation` follows `spec` only; `update` and metadata patches never
 *   touch `status`, the status subresource touches nothing else.
 * - Watches replay from a retained history (default 10,000 events); an
 *   older version is `Gone`, and the caller lists again. Events are
 *   delivered after the write returns (a microtask later), in order.
 * - Deletion honours finalizers: `deletionTimestamp` is set and the object
 *   goes when its last finalizer is removed. A Namespace delete does not
 *   cascade to its objects (nothing kovn runs needs it yet).
 * - Objects are frozen deep copies: what a caller gets never changes, and
 *   cannot change the store.
 */
import {
  API_VERSION,
  ClusterError,
  type ClusterSource,
  type EventInput,
  type KubeObject,
  type ListResult,
  NAMESPACED,
  type ObjectRef,
  type Watch,
  type WatchEvent,
} from './types.ts';

export interface MemoryClusterOptions {
  /** Milliseconds since the epoch, for timestamps (injected clock). */
  readonly now: () => number;
  /** Watch history retained for replay (default 10,000 events). */
  readonly history?: number;
}

export interface ClusterWriteStats {
  readonly create: number;
  readonly update: number;
  readonly updateStatus: number;
  readonly patch: number;
  readonly delete: number;
  readonly event: number;
}

interface Stored {
  readonly kind: string;
  readonly rv: number;
  readonly event: WatchEvent;
}

type Mutable = Record<string, unknown>;

const isObj = (v: unknown): v is Mutable => typeof v === 'object' && v !== null && !Array.isArray(v);

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/** RFC 7386: objects merge, null removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return structuredClone(patch);
  const out: Mutable = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * @example
 * const c = new MemoryCluster({ now: () => 0 });
 * await c.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'default' }, spec: {} });
 * c.watch('Pod', '0', (e) => console.log(e.type, e.object.metadata.name)); // ADDED a
 */
export class MemoryCluster implements ClusterSource {
  private readonly objects = new Map<string, KubeObject>();
  private rv = 0;
  private uid = 0;
  private eventSeq = 0;
  private readonly log: Stored[] = [];
  /** The lowest resourceVersion a watch can replay from. */
  private floor = 0;
  private readonly watchers = new Set<{ kind: string; deliver: (e: WatchEvent) => void }>();
  private readonly s = { create: 0, update: 0, updateStatus: 0, patch: 0, delete: 0, event: 0 };

  constructor(private readonly opts: MemoryClusterOptions) {}

  /** Writes per verb that changed something. */
  stats(): ClusterWriteStats {
    return { ...this.s };
  }

  async list(kind: string, opts: { readonly namespace?: string } = {}): Promise<ListResult> {
    const items: KubeObject[] = [];
    for (const o of this.objects.values()) {
      if (o.kind !== kind) continue;
      if (opts.namespace !== undefined && o.metadata.namespace !== opts.namespace) continue;
      items.push(o);
    }
    items.sort(
      (a, b) =>
        (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') ||
        a.metadata.name.localeCompare(b.metadata.name),
    );
    return { items, resourceVersion: String(this.rv) };
  }

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    return this.objects.get(
      this.key(NAMESPACED.has(ref.kind) ? { ...ref, namespace: ref.namespace ?? 'default' } : ref),
    );
  }

  watch(
    kind: string,
    resourceVersion: string,
    onEvent: (e: WatchEvent) => void,
    onError?: (e: ClusterError) => void,
  ): Watch {
    const from = Number(resourceVersion);
    let stopped = false;
    if (!Number.isInteger(from) || from < this.floor) {
      queueMicrotask(() => {
        if (!stopped)
          onError?.(
            new ClusterError('Gone', { kind, name: '' }, `${kind}: resourceVersion ${resourceVersion} is too old`),
          );
      });
      return { stop: () => void (stopped = true) };
    }
    // Replay what the history holds after `from`, then live events; all in order, never synchronously.
    const backlog = this.log.filter((x) => x.kind === kind && x.rv > from).map((x) => x.event);
    let chain = Promise.resolve();
    const deliver = (e: WatchEvent) => {
      chain = chain.then(() => {
        if (!stopped) onEvent(e);
      });
    };
    for (const e of backlog) deliver(e);
    const w = { kind, deliver };
    this.watchers.add(w);
    return {
      stop: () => {
        stopped = true;
        this.watchers.delete(w);
      },
    };
  }

  async create(obj: KubeObject): Promise<KubeObject> {
    const ref = this.checkRef(obj);
    const key = this.key(ref);
    if (this.objects.has(key))
      throw new ClusterError('AlreadyExists', ref, `${describe(ref)} already exists (metadata.name)`);
    const rv = ++this.rv;
    const stored = deepFreeze({
      ...structuredClone(obj),
      apiVersion: obj.apiVersion ?? API_VERSION[obj.kind] ?? 'v1',
      metadata: {
        ...structuredClone(obj.metadata),
        ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}),
        uid: `uid-${++this.uid}`,
        resourceVersion: String(rv),
        generation: 1,
        creationTimestamp: new Date(this.opts.now()).toISOString(),
      },
    }) as KubeObject;
    this.objects.set(key, stored);
    this.s.create++;
    this.emit('ADDED', stored, rv);
    return stored;
  }

  async update(obj: KubeObject): Promise<KubeObject> {
    const ref = this.checkRef(obj);
    const cur = this.current(ref, obj.metadata.resourceVersion);
    const next = { ...structuredClone(obj), status: cur.status } as Mutable;
    return this.write(cur, next, 'update');
  }

  async updateStatus(obj: KubeObject): Promise<KubeObject> {
    const ref = this.checkRef(obj);
    const cur = this.current(ref, obj.metadata.resourceVersion);
    return this.write(cur, { ...cur, status: structuredClone(obj.status) }, 'updateStatus');
  }

  async patch(ref: ObjectRef, patch: unknown, opts: { readonly subresource?: 'status' } = {}): Promise<KubeObject> {
    const r = this.normalRef(ref);
    const cur = this.current(r, undefined);
    if (!isObj(patch)) throw new ClusterError('Invalid', r, `${describe(r)}: a merge patch must be an object`);
    if (opts.subresource === 'status') {
      const next = { ...cur, status: mergePatch(cur.status, patch.status ?? {}) };
      return this.write(cur, next, 'patch');
    }
    const { status: _ignored, ...rest } = patch;
    const merged = mergePatch(cur, rest) as Mutable;
    const m = merged.metadata as Mutable;
    for (const f of ['name', 'namespace', 'uid'] as const) {
      if (m[f] !== (cur.metadata as unknown as Mutable)[f])
        throw new ClusterError('Invalid', r, `${describe(r)}: metadata.${f} cannot be changed`);
    }
    if (merged.kind !== cur.kind) throw new ClusterError('Invalid', r, `${describe(r)}: kind cannot be changed`);
    return this.write(cur, { ...merged, status: cur.status }, 'patch');
  }

  async delete(ref: ObjectRef): Promise<void> {
    const r = this.normalRef(ref);
    const cur = this.current(r, undefined);
    if ((cur.metadata.finalizers ?? []).length === 0) {
      this.remove(cur);
      return;
    }
    if (cur.metadata.deletionTimestamp !== undefined) return;
    const next = {
      ...cur,
      metadata: { ...cur.metadata, deletionTimestamp: new Date(this.opts.now()).toISOString() },
    };
    this.write(cur, next, 'delete');
  }

  async recordEvent(e: EventInput): Promise<void> {
    const namespace = e.involved.namespace ?? 'default';
    for (const o of this.objects.values()) {
      if (o.kind !== 'Event' || o.metadata.namespace !== namespace) continue;
      const ev = o as unknown as {
        involvedObject: Mutable;
        type: string;
        reason: string;
        message: string;
        count: number;
      };
      if (
        ev.involvedObject.kind === e.involved.kind &&
        ev.involvedObject.name === e.involved.name &&
        ev.involvedObject.namespace === e.involved.namespace &&
        ev.type === e.type &&
        ev.reason === e.reason &&
        ev.message === e.message
      ) {
        this.write(o, { ...o, count: ev.count + 1, lastTimestamp: new Date(this.opts.now()).toISOString() }, 'event');
        return;
      }
    }
    const at = new Date(this.opts.now()).toISOString();
    await this.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${e.involved.name}.${(++this.eventSeq).toString(16)}`, namespace },
      involvedObject: {
        kind: e.involved.kind,
        name: e.involved.name,
        ...(e.involved.namespace !== undefined ? { namespace: e.involved.namespace } : {}),
        ...(e.involved.uid ? { uid: e.involved.uid } : {}),
      },
      type: e.type,
      reason: e.reason,
      message: e.message,
      source: { component: e.source ?? 'kube-ovn-controller' },
      count: 1,
      firstTimestamp: at,
      lastTimestamp: at,
    });
    this.s.create--;
    this.s.event++;
  }

  /** Stored events, optionally only those about one object (tests). */
  events(ref?: ObjectRef): KubeObject[] {
    return [...this.objects.values()].filter((o) => {
      if (o.kind !== 'Event') return false;
      if (ref === undefined) return true;
      const inv = (o as unknown as { involvedObject: Mutable }).involvedObject;
      return (
        inv.kind === ref.kind &&
        inv.name === ref.name &&
        (ref.namespace === undefined || inv.namespace === ref.namespace)
      );
    });
  }

  private write(cur: KubeObject, next: Mutable, verb: keyof ClusterWriteStats): KubeObject {
    const meta = next.metadata as Mutable;
    const finalizers = (meta.finalizers as string[] | undefined) ?? [];
    const curMeta = cur.metadata as unknown as Mutable;
    const unchanged = same(
      { ...next, metadata: { ...meta, resourceVersion: undefined, generation: undefined } },
      {
        ...cur,
        metadata: { ...curMeta, resourceVersion: undefined, generation: undefined },
      },
    );
    if (unchanged) return cur;
    if (cur.metadata.deletionTimestamp !== undefined && finalizers.length === 0) {
      this.s[verb]++;
      this.remove({ ...next, metadata: { ...meta } } as unknown as KubeObject);
      return cur;
    }
    const rv = ++this.rv;
    const generation = (cur.metadata.generation ?? 1) + (same(next.spec, cur.spec) ? 0 : 1);
    const stored = deepFreeze({
      ...structuredClone(next),
      metadata: {
        ...structuredClone(meta),
        uid: cur.metadata.uid,
        creationTimestamp: cur.metadata.creationTimestamp,
        resourceVersion: String(rv),
        generation,
      },
    }) as unknown as KubeObject;
    this.objects.set(
      this.key(
        this.normalRef({
          kind: cur.kind,
          name: cur.metadata.name,
          ...(cur.metadata.namespace ? { namespace: cur.metadata.namespace } : {}),
        }),
      ),
      stored,
    );
    this.s[verb]++;
    this.emit('MODIFIED', stored, rv);
    return stored;
  }

  private remove(last: KubeObject): void {
    const ref = this.normalRef({
      kind: last.kind,
      name: last.metadata.name,
      ...(last.metadata.namespace ? { namespace: last.metadata.namespace } : {}),
    });
    this.objects.delete(this.key(ref));
    const rv = ++this.rv;
    this.s.delete++;
    const gone = deepFreeze({
      ...structuredClone(last),
      metadata: { ...structuredClone(last.metadata), resourceVersion: String(rv) },
    });
    this.emit('DELETED', gone as KubeObject, rv);
  }

  private emit(type: WatchEvent['type'], object: KubeObject, rv: number): void {
    const event: WatchEvent = { type, object };
    this.log.push({ kind: object.kind, rv, event });
    const cap = this.opts.history ?? 10_000;
    if (this.log.length > cap) {
      const drop = this.log.length - cap;
      this.floor = this.log[drop - 1]!.rv;
      this.log.splice(0, drop);
    }
    for (const w of this.watchers) if (w.kind === object.kind) w.deliver(event);
  }

  private current(ref: ObjectRef, rv: string | undefined): KubeObject {
    const cur = this.objects.get(this.key(ref));
    if (cur === undefined) throw new ClusterError('NotFound', ref, `${describe(ref)} not found`);
    if (rv !== undefined && rv !== cur.metadata.resourceVersion)
      throw new ClusterError(
        'Conflict',
        ref,
        `${describe(ref)}: metadata.resourceVersion ${rv} is not the current ${cur.metadata.resourceVersion}`,
      );
    return cur;
  }

  private checkRef(obj: KubeObject): ObjectRef {
    if (typeof obj?.metadata?.name !== 'string' || obj.metadata.name === '')
      throw new ClusterError('Invalid', { kind: obj?.kind ?? '', name: '' }, `${obj?.kind}: metadata.name is required`);
    return this.normalRef({
      kind: obj.kind,
      name: obj.metadata.name,
      ...(obj.metadata.namespace !== undefined ? { namespace: obj.metadata.namespace } : {}),
    });
  }

  private normalRef(ref: ObjectRef): ObjectRef {
    if (NAMESPACED.has(ref.kind)) return { ...ref, namespace: ref.namespace ?? 'default' };
    if (ref.namespace !== undefined && ref.namespace !== '')
      throw new ClusterError(
        'Invalid',
        ref,
        `${ref.kind}/${ref.name} is cluster-scoped: metadata.namespace must be empty`,
      );
    return { kind: ref.kind, name: ref.name };
  }

  private key(ref: ObjectRef): string {
    return `${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
  }
}

function describe(ref: ObjectRef): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}

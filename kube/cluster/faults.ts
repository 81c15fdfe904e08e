/**
 * Fault injection for a cluster source, as a wrapper (STYLE 7): what a real
 * API server does to a controller under stress, on demand, around any
 * `ClusterSource` (the in-memory cluster in tests). A fault is armed by the
 * test and taken by the calls it matches:
 *
 * - `fail`: the next calls of a verb (on a kind) answer a `ClusterError`
 *   (`Conflict` on a patch, `ServiceUnavailable` on a list, ...);
 * - `breakWatches`: every open watch of a kind fails now, as a dropped
 *   connection does (its events after that are never delivered);
 * - `hold`/`release`: a kind's watch events wait until released, as a slow
 *   watch delivers them late.
 *
 * Everything not armed passes through unchanged.
 */
import {
  ClusterError,
  type ClusterErrorReason,
  type ClusterSource,
  formatKey,
  type ObjectRef,
  refOf,
  type Watch,
  type WatchEvent,
  type WatchOptions,
} from './types.ts';

/** The calls a fault can refuse (watch faults are `breakWatches` and `hold`). */
export type FaultVerb = 'list' | 'get' | 'create' | 'update' | 'updateStatus' | 'patch' | 'delete' | 'recordEvent';

export interface FaultSpec {
  /** Only calls on this kind (default: any). */
  readonly kind?: string;
  /** Only patches of this subresource (`status`) or of the object itself (`object`); default: both. */
  readonly subresource?: 'status' | 'object';
  /** The answer (default `ServiceUnavailable`). */
  readonly reason?: ClusterErrorReason;
  /** How many matching calls fail (default 1). */
  readonly times?: number;
}

interface Armed {
  readonly verb: FaultVerb;
  readonly spec: FaultSpec;
  left: number;
}

interface OpenWatch {
  readonly kind: string;
  readonly inner: Watch;
  readonly onError: ((e: ClusterError) => void) | undefined;
  broken: boolean;
}

/**
 * @example
 * const cluster = new FaultyCluster(new MemoryCluster());
 * cluster.fail('patch', { kind: 'Pod', reason: 'Conflict' }); // the next Pod patch is refused
 * cluster.breakWatches('Pod'); // the Pod informer's watch fails; it lists again
 */
export class FaultyCluster implements ClusterSource {
  private armed: Armed[] = [];
  private readonly watches = new Set<OpenWatch>();
  private readonly held = new Map<string, (() => void)[]>();
  /** Calls refused so far, by verb (and `watch` for broken watches). */
  readonly refused: Record<string, number> = {};

  constructor(readonly inner: ClusterSource) {}

  /**
   * Arms a fault: the next `times` calls of `verb` matching `spec` fail.
   *
   * @example
   * cluster.fail('list', { kind: 'Pod', times: 2 });
   */
  fail(verb: FaultVerb, spec: FaultSpec = {}): void {
    this.armed.push({ verb, spec, left: spec.times ?? 1 });
  }

  /** Faults armed and not yet taken. */
  pending(): number {
    return this.armed.reduce((n, a) => n + a.left, 0);
  }

  /**
   * Every open watch of `kind` fails now with `reason`; none of them
   * delivers anything afterwards.
   *
   * @example
   * cluster.breakWatches('Pod');
   */
  breakWatches(kind: string, reason: ClusterErrorReason = 'ServiceUnavailable'): void {
    for (const w of [...this.watches]) {
      if (w.kind !== kind || w.broken) continue;
      w.broken = true;
      w.inner.stop();
      this.watches.delete(w);
      this.count('watch');
      const err = new ClusterError(reason, { kind, name: '' }, `watch ${kind}: ${reason} (injected)`);
      queueMicrotask(() => w.onError?.(err));
    }
  }

  /** Watch events of `kind` wait from now until `release(kind)`. */
  hold(kind: string): void {
    if (!this.held.has(kind)) this.held.set(kind, []);
  }

  /** Delivers the held events of `kind` in order, and stops holding. */
  release(kind: string): void {
    const queued = this.held.get(kind) ?? [];
    this.held.delete(kind);
    for (const deliver of queued) deliver();
  }

  list: ClusterSource['list'] = (kind, opts) =>
    this.guard('list', { kind, name: '' }, undefined, () => this.inner.list(kind, opts));
  get: ClusterSource['get'] = (ref) => this.guard('get', ref, undefined, () => this.inner.get(ref));
  create: ClusterSource['create'] = (o) => this.guard('create', refOf(o), undefined, () => this.inner.create(o));
  update: ClusterSource['update'] = (o) => this.guard('update', refOf(o), undefined, () => this.inner.update(o));
  updateStatus: ClusterSource['updateStatus'] = (o) =>
    this.guard('updateStatus', refOf(o), 'status', () => this.inner.updateStatus(o));
  patch: ClusterSource['patch'] = (ref, p, opts) =>
    this.guard('patch', ref, opts?.subresource ?? 'object', () => this.inner.patch(ref, p, opts));
  delete: ClusterSource['delete'] = (ref) => this.guard('delete', ref, undefined, () => this.inner.delete(ref));
  recordEvent: ClusterSource['recordEvent'] = (e) =>
    this.guard('recordEvent', e.involved, undefined, () => this.inner.recordEvent(e));

  watch(
    kind: string,
    resourceVersion: string,
    onEvent: (e: WatchEvent) => void,
    onError?: (e: ClusterError) => void,
    opts?: WatchOptions,
  ): Watch {
    let open: OpenWatch | undefined;
    const deliver = (e: WatchEvent) => {
      if (open?.broken) return;
      const queued = this.held.get(kind);
      if (queued === undefined) onEvent(e);
      else queued.push(() => open?.broken || onEvent(e));
    };
    const failed = (e: ClusterError) => {
      if (open?.broken) return;
      if (open) this.watches.delete(open);
      onError?.(e);
    };
    const inner = this.inner.watch(kind, resourceVersion, deliver, failed, opts);
    open = { kind, inner, onError, broken: false };
    this.watches.add(open);
    return {
      stop: () => {
        open!.broken = true;
        this.watches.delete(open!);
        inner.stop();
      },
    };
  }

  private async guard<T>(
    verb: FaultVerb,
    ref: ObjectRef,
    subresource: 'status' | 'object' | undefined,
    call: () => Promise<T>,
  ): Promise<T> {
    const a = this.armed.find(
      (x) =>
        x.verb === verb &&
        (x.spec.kind === undefined || x.spec.kind === ref.kind) &&
        (x.spec.subresource === undefined || x.spec.subresource === subresource),
    );
    if (a === undefined) return call();
    if (--a.left <= 0) this.armed = this.armed.filter((x) => x !== a);
    this.count(verb);
    const reason = a.spec.reason ?? 'ServiceUnavailable';
    throw new ClusterError(reason, ref, `${verb} ${describe(ref)}: ${reason} (injected)`);
  }

  private count(what: string): void {
    this.refused[what] = (this.refused[what] ?? 0) + 1;
  }
}

const describe = (r: ObjectRef): string => (r.name === '' ? r.kind : `${r.kind} ${formatKey(r)}`);

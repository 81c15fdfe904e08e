/**
 * The controller: informers over a cluster source, one work queue per kind,
 * the handlers (handlers/*.ts), the IPAM and the committer, wired as
 * kube-ovn-controller is (pkg/controller/controller.go), with three
 * differences its users asked for:
 *
 * - Changes are committed in batches (desired/commit.ts): a handler sets
 *   its object's fragment and returns; the writes its users read
 *   (annotations, status, IP objects) follow once the batch holding it is
 *   committed, so a storm of pods is a few transactions.
 * - Start-up is one pass (`start`): the IPAM is rebuilt from IP objects, pod
 *   and node annotations and NB ports, cross-checked (ipam/rebuild.ts);
 *   every object is reconciled into the store in dependency order; and one
 *   flush writes exactly the difference to what the backend holds (nothing,
 *   after a restart with nothing changed; orphans of ours removed).
 * - Clock and randomness are injected, so tests and benchmarks run it
 *   seeded on a simulated clock.
 *
 * What each handler watches, how an event maps to its keys, the indexes it
 * reads and what it starts after are the handler's own declarations
 * (handlers/handler.ts, handlers/index.ts); the kinds and their informers
 * come from the registry (kube/registry.ts). This file only wires them.
 */
import type { Backend } from '../backends/backend.ts';
import { IPAM, type RandomBytes } from '../model/ipam/index.ts';
import { type ClusterSource, formatKey, type ObjectKey, objectKey } from '../kube/cluster/types.ts';
import { NAMESPACED } from '../kube/registry.ts';
import type { Clock } from '../kube/runtime/clock.ts';
import { Informer, type InformerHandlers } from '../kube/runtime/informer.ts';
import { type QueueMetrics, WorkQueue } from '../kube/runtime/queue.ts';
import { clusterLoadBalancers, type ControllerSettings, DEFAULT_SETTINGS } from './config.ts';
import { ensureDefaults } from './defaults.ts';
import { Committer, CommitterClosedError, type CommitInfo } from './desired/commit.ts';
import { DesiredState } from './desired/store.ts';
import { decodeReporter, Diagnostics } from './diagnostics.ts';
import {
  type Cache,
  creationOrder,
  type Ctx,
  KINDS,
  type Kind,
  LEASE_INDEX,
  memoizedDecode,
  NAMESPACE_INDEX,
} from './handlers/context.ts';
import { ALL, type Handler, startOrder, type Watch, type WatchEvent } from './handlers/handler.ts';
import { HANDLERS } from './handlers/index.ts';
import { restoreAllocations, type RestoreReport } from './restore.ts';

export interface ControllerOptions {
  readonly cluster: ClusterSource;
  readonly backend: Backend;
  readonly clock: Clock;
  /** MAC randomness: seeded in tests and scenarios. */
  readonly random: RandomBytes;
  readonly settings?: ControllerSettings;
  /** Gather changes this long before a commit (default 0: the next timer turn). */
  readonly batchDelayMs?: number;
  readonly onCommit?: (info: CommitInfo) => void;
  /** How long policy recomputes caused by pod changes are gathered (default 20 ms). */
  readonly policyDelayMs?: number;
  /**
   * Failures, for logging: a handler run or a write after its commit (`key`
   * names the object; it is retried with its backoff), or a kind's failed
   * list or watch (`key` undefined; the informer lists again with backoff).
   */
  readonly onError?: (kind: Kind, key: ObjectKey | undefined, err: unknown) => void;
  /** The handlers (default: handlers/index.ts); a test wraps one to watch what it is asked. */
  readonly handlers?: readonly Handler[];
  /** A queue run of `key` finished without error (for debug logs naming the object). */
  readonly onReconciled?: (kind: Kind, key: ObjectKey) => void;
  /** Where each kind's work queue reports (kube/observe workQueueMetrics: named by the kind). */
  readonly queueMetrics?: (kind: Kind) => QueueMetrics;
}

export interface StartReport extends RestoreReport {
  /** NB operations the start-up flush wrote (0 after a restart with nothing changed). */
  readonly operations: number;
}

/** A queue run's index in `runs`: `runKey` registers under it what `afterCommit` finds, so both name it here. */
const runId = (kind: Kind, key: ObjectKey): string => `${kind}/${formatKey(key)}`;

/** A write to the cluster that waits for a commit, and the object whose reconcile asked for it. */
interface Deferred {
  readonly kind: Kind;
  readonly key: ObjectKey;
  readonly fn: () => Promise<void>;
}

/**
 * @example
 * const c = new Controller({ cluster, backend, clock: realClock, random: seededRandomBytes(1) });
 * await c.start();
 * await settled(c); // controller/settle.ts
 * await c.stop();
 */
export class Controller {
  readonly settings: ControllerSettings;
  readonly ipam: IPAM;
  readonly store = new DesiredState();
  readonly committer: Committer;
  /** What the controller currently does not act on or refuses, per object (warnings). */
  readonly diagnostics = new Diagnostics();
  private readonly informers = new Map<Kind, Informer>();
  private readonly queues = new Map<Kind, WorkQueue<ObjectKey>>();
  private starting = true;
  private deferred: Deferred[] = [];
  private readonly pending = new Set<Promise<unknown>>();
  /** The writes after commit each queue run in progress registered, by `kind/key`. */
  private readonly runs = new Map<string, Promise<boolean>[]>();
  /**
   * Keys queued before the queues existed (start-up), deduplicated, and the
   * kinds whose every key was asked for: a policy that reaches beyond its
   * namespace requeues every pod, and at start-up each such policy's list
   * event would otherwise add every pod once more (policies × pods keys).
   */
  private readonly early = new Map<Kind, Map<string, ObjectKey>>();
  private readonly earlyAll = new Set<Kind>();
  /** The kinds whose informers keep the lease index (Ctx.leaseHolder). */
  private readonly leaseKinds: Kind[] = [];
  private readonly ctx: Ctx;
  private readonly handlers: readonly Handler[];
  private stopped = false;

  constructor(private readonly opts: ControllerOptions) {
    this.settings = opts.settings ?? DEFAULT_SETTINGS;
    this.handlers = opts.handlers ?? HANDLERS;
    this.ipam = new IPAM({ random: opts.random });
    this.committer = new Committer({
      backend: opts.backend,
      store: this.store,
      clock: opts.clock,
      ...(opts.batchDelayMs !== undefined ? { batchDelayMs: opts.batchDelayMs } : {}),
      ...(opts.onCommit ? { onCommit: opts.onCommit } : {}),
      // A row two objects claim (two Subnets naming one switch, say) is an event on the one that lost it.
      onStoreIssues: (owner, issues) => {
        void this.ctx.event(owner, 'Warning', 'ConflictingRow', issues.map((i) => i.message).join('; '));
      },
    });
    this.ctx = this.context();
    for (const kind of KINDS) {
      const onError = (err: unknown) => this.opts.onError?.(kind, undefined, err);
      const informer = new Informer(opts.cluster, kind, { clock: opts.clock, onError });
      if (NAMESPACED.has(kind)) informer.addIndexers({ [NAMESPACE_INDEX]: (o) => [o.metadata.namespace ?? 'default'] });
      this.informers.set(kind, informer);
    }
    for (const h of this.handlers)
      for (const d of h.indexes ?? []) {
        this.informers.get(d.kind)!.addIndexers({ [d.name]: (o) => d.values(this.ctx, o) });
        if (d.name === LEASE_INDEX) this.leaseKinds.push(d.kind);
      }
  }

  /**
   * Informers synced, Kube-OVN's default objects present, IPAM rebuilt, every
   * object reconciled, one flush committed; then the queues start.
   */
  async start(): Promise<StartReport> {
    // Watches first: a change that arrives while start-up runs is queued after it, not lost.
    this.wire();
    await Promise.all([...this.informers.values()].map((i) => i.start()));
    await Promise.all([...this.informers.values()].map((i) => i.synced()));
    // The informers' indexes (the lease index among them) are full already: each keeps them with its cache.
    await ensureDefaults(this.opts.cluster, this.settings, (kind) => this.informers.get(kind)!);
    const restored = await restoreAllocations(this.ctx, this.opts.backend);
    // The pass below reconciles every object the caches hold now: what was queued so far matters only for
    // objects gone from them (deleted while the informers started). Changes during the pass are kept.
    for (const [kind, keys] of this.early)
      for (const id of keys.keys()) if (this.informers.get(kind)!.get(id) !== undefined) keys.delete(id);
    this.earlyAll.clear();
    let failed: [Kind, ObjectKey][] = [];
    const { operations } = await this.committer.start(async () => {
      failed = await this.reconcileAll();
    });
    this.starting = false;
    const deferred = this.deferred;
    this.deferred = [];
    const unwritten: [Deferred, unknown][] = [];
    for (const d of deferred) await d.fn().catch((err: unknown) => unwritten.push([d, err]));
    for (const name of restored.staleIpObjects)
      await this.opts.cluster.delete({ kind: 'IP', name }).catch((err) => this.opts.onError?.('IP', { name }, err));
    this.startQueues();
    for (const [kind, key] of failed) this.ctx.enqueue(kind, key);
    for (const [d, err] of unwritten) this.writeFailed(d.kind, d.key, err);
    for (const [kind, keys] of this.early) for (const key of keys.values()) this.ctx.enqueue(kind, key);
    this.early.clear();
    for (const kind of this.earlyAll) this.enqueueAll(kind);
    this.earlyAll.clear();
    return { ...restored, operations };
  }

  /** Keys each queue has processed since start (the start-up pass is not a queue's work). */
  processed(): Partial<Record<Kind, number>> {
    const out: Partial<Record<Kind, number>> = {};
    for (const [k, q] of this.queues) if (q.stats.processed > 0) out[k] = q.stats.processed;
    return out;
  }

  /** Keys waiting out a retry delay (a pod whose address cannot be had, say), by kind. */
  delayed(): Partial<Record<Kind, number>> {
    const out: Partial<Record<Kind, number>> = {};
    for (const [k, q] of this.queues) if (q.delayed() > 0) out[k] = q.delayed();
    return out;
  }

  /** Keys queued, running or waiting for a requeue delay (not a failure's backoff): 0 when no handler has work. */
  queued(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.len() + q.running() + q.scheduled();
    return n;
  }

  /** Resolves when every queue is quiet: no key queued, running or waiting for a requeue delay. */
  async queuesQuiet(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.quiet()));
  }

  /** The writes after commit not yet finished (annotations, status, IP objects). */
  pendingWrites(): readonly Promise<unknown>[] {
    return [...this.pending];
  }

  /**
   * Stops watching and working, and resolves once nothing of this
   * controller runs: the committer is closed first (a batch in flight is
   * waited for a bounded time, commits never made are given up), so writes
   * waiting for a commit a refusing backend would never make end with it.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const i of this.informers.values()) i.stop();
    await this.committer.close();
    await Promise.all([...this.queues.values()].map((q) => q.shutdown()));
    await Promise.allSettled([...this.pending]);
  }

  /** The handler context: caches, IPAM, committer, cluster writes, and enqueueing by kind. */
  private context(): Ctx {
    const { opts } = this;
    const s = this.settings;
    const self = this;
    return {
      settings: s,
      cluster: opts.cluster,
      ipam: this.ipam,
      committer: this.committer,
      policyDelayMs: opts.policyDelayMs ?? 20,
      now: () => new Date(opts.clock.now()).toISOString(),
      cache: (kind: Kind): Cache => this.informers.get(kind)!,
      decode: memoizedDecode(),
      enqueue: (kind, key) => this.enqueue(kind, key, 0),
      enqueueAfter: (kind, key, ms) => this.enqueue(kind, key, ms),
      leaseHolder: (owner: string) => {
        for (const kind of this.leaseKinds)
          for (const o of this.informers.get(kind)!.byIndex(LEASE_INDEX, owner)) return { kind, key: objectKey(o) };
        return undefined;
      },
      report: (ref, topic, problems) => this.diagnostics.set(ref, topic, problems),
      event: async (ref, type, reason, message) => {
        await opts.cluster
          .recordEvent({ involved: ref, type, reason, message, source: 'kube-ovn-controller' })
          .catch(() => {});
      },
      clusterLbs: clusterLoadBalancers(s),
      get starting() {
        return self.starting;
      },
      afterCommit: async (kind: Kind, key: ObjectKey, fn: () => Promise<void>) => this.afterCommit(kind, key, fn),
    };
  }

  /**
   * Queues `key` (after `ms`, when positive). Before the queues run
   * (start-up), keys are kept and queued once they do, at once: none is
   * missed, and a level-driven handler run early changes nothing.
   */
  private enqueue(kind: Kind, key: ObjectKey, ms: number): void {
    const q = this.queues.get(kind);
    if (q === undefined) {
      let keys = this.early.get(kind);
      if (keys === undefined) this.early.set(kind, (keys = new Map()));
      keys.set(formatKey(key), key);
    } else if (ms > 0) q.addAfter(key, ms);
    else q.add(key);
  }

  private enqueueAll(kind: Kind): void {
    if (this.queues.size === 0) {
      this.earlyAll.add(kind);
      return;
    }
    for (const o of this.informers.get(kind)!.values()) this.ctx.enqueue(kind, objectKey(o));
  }

  /** The start-up pass: every cached object reconciled, handlers in their start order; the keys that failed. */
  private async reconcileAll(): Promise<[Kind, ObjectKey][]> {
    const failed: [Kind, ObjectKey][] = [];
    for (const h of startOrder(this.handlers)) {
      const list = this.informers.get(h.kind)!.list();
      for (const o of h.startOrder ? h.startOrder(this.ctx, list) : creationOrder(list)) {
        const key = objectKey(o);
        try {
          const result = await h.reconcile(this.ctx, key);
          if (result?.requeueAfterMs !== undefined) this.ctx.enqueueAfter(h.kind, key, result.requeueAfterMs);
        } catch (err) {
          this.opts.onError?.(h.kind, key, err);
          failed.push([h.kind, key]);
        }
      }
    }
    return failed;
  }

  private startQueues(): void {
    for (const h of this.handlers) {
      const q = new WorkQueue<ObjectKey>({
        clock: this.opts.clock,
        id: formatKey,
        manualForget: true,
        onError: (key, err) => this.opts.onError?.(h.kind, key, err),
        ...(this.opts.queueMetrics ? { metrics: this.opts.queueMetrics(h.kind) } : {}),
      });
      this.queues.set(h.kind, q);
      q.run((key) => this.runKey(h, key), h.workers?.(this.settings) ?? this.settings.workerNum);
    }
  }

  /** Every handler's watches, on the informers of the kinds they watch; and the decode reporting. */
  private wire(): void {
    for (const kind of KINDS)
      this.informers.get(kind)!.addHandlers(decodeReporter(this.diagnostics, (o, f) => this.ctx.decode(o, f), kind));
    for (const h of this.handlers)
      for (const w of h.watches) this.informers.get(w.kind)!.addHandlers(this.watch(h.kind, w));
  }

  /** Informer handlers that map a watched kind's events to keys of `target` (handler.ts, Watch). */
  private watch(target: Kind, w: Watch): InformerHandlers {
    const fire = (e: WatchEvent) => {
      if (e.old !== undefined && w.when !== undefined && !w.when(e.object, e.old)) return;
      const requests = w.map ? w.map(this.ctx, e) : [objectKey(e.object)];
      if (requests === ALL) return this.enqueueAll(target);
      const ms = w.delayMs?.(this.ctx) ?? 0;
      for (const key of requests) this.enqueue(target, key, ms);
    };
    return {
      onAdd: (o) => fire({ object: o, old: undefined, gone: false }),
      onUpdate: (old, o) => fire({ object: o, old, gone: false }),
      onDelete: (o) => fire({ object: o, old: undefined, gone: true }),
    };
  }

  /** A write of `key` of `kind` once the fragments set so far are committed (Ctx.afterCommit). */
  private afterCommit(kind: Kind, key: ObjectKey, fn: () => Promise<void>): void {
    if (this.starting) {
      this.deferred.push({ kind, key, fn });
      return;
    }
    const p = this.committer
      .sync()
      .then(fn)
      .then(
        () => true,
        (err: unknown) => {
          this.writeFailed(kind, key, err);
          return false;
        },
      );
    const t = p.finally(() => this.pending.delete(t));
    this.pending.add(t);
    this.runs.get(runId(kind, key))?.push(p);
  }

  /** A write after commit failed: the object's key runs again with its backoff, as a failed reconcile does. */
  private writeFailed(kind: Kind, key: ObjectKey, err: unknown): void {
    // Stopping: the commit it waited for will not be made by this controller; the next one starts level.
    if (err instanceof CommitterClosedError) return;
    const q = this.queues.get(kind);
    if (q !== undefined) q.fail(key, err);
    else this.opts.onError?.(kind, key, err);
  }

  /**
   * One queue run of `key`: its backoff resets once its writes after commit
   * succeeded, not before; a RequeueAfter the handler asks for is honoured.
   */
  private async runKey(h: Handler, key: ObjectKey): Promise<void> {
    // A key runs on one worker at a time, so the writes registered under its id meanwhile are this run's.
    const id = runId(h.kind, key);
    const writes: Promise<boolean>[] = [];
    this.runs.set(id, writes);
    const q = this.queues.get(h.kind)!;
    try {
      const result = await h.reconcile(this.ctx, key);
      if (result?.requeueAfterMs !== undefined) q.addAfter(key, result.requeueAfterMs);
      this.opts.onReconciled?.(h.kind, key);
    } finally {
      this.runs.delete(id);
    }
    if (writes.length === 0) q.forget(key);
    else void Promise.all(writes).then((ok) => ok.every(Boolean) && q.forget(key));
  }
}

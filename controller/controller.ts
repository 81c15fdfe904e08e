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
 */
import type { Backend } from '../backends/backend.ts';
import { IPAM, ownerKey, type RandomBytes } from '../model/ipam/index.ts';
import {
  type ClusterSource,
  formatKey,
  type KubeObject,
  keyOf,
  type ObjectKey,
  objectKey,
} from '../kube/cluster/types.ts';
import { type ControllerSettings, DEFAULT_SETTINGS } from './config.ts';
import { Committer, CommitterClosedError, type CommitInfo } from './desired/commit.ts';
import { DesiredState } from './desired/store.ts';
import { type Cache, creationOrder, type Ctx, KINDS, type Kind } from './handlers/context.ts';
import { reconcileIPPool } from './handlers/ippool.ts';
import { reconcileNamespace } from './handlers/namespace.ts';
import {
  namedPortDependence,
  policyMayMatch,
  reachesBeyondNamespace,
  reconcileNetworkPolicy,
} from './handlers/network-policy.ts';
import { reconcileNode } from './handlers/node.ts';
import { reconcilePod } from './handlers/pod.ts';
import { reconcileService } from './handlers/service.ts';
import { reconcileSubnet, subnetsInOrder } from './handlers/subnet.ts';
import { reconcileVpc } from './handlers/vpc.ts';
import { restoreAllocations, type RestoreReport } from './restore.ts';
import type { Clock } from '../kube/runtime/clock.ts';
import { Informer, InformerStoppedError } from '../kube/runtime/informer.ts';
import { WorkQueue } from '../kube/runtime/queue.ts';
import { decodeReporter, Diagnostics } from './diagnostics.ts';
import type { Decoded } from '../kube/objects/objects.ts';
import { decodeEndpointSlice, decodeIP } from '../kube/objects/objects.ts';
import { nodePort } from './translate/names.ts';

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
}

export interface StartReport extends RestoreReport {
  /** NB operations the start-up flush wrote (0 after a restart with nothing changed). */
  readonly operations: number;
}

/** The order start-up reconciles kinds in: what a kind reads is filled before it. */
const START_ORDER: readonly Kind[] = [
  'Subnet',
  'IPPool',
  'Vpc',
  'Node',
  'Namespace',
  'Pod',
  'Service',
  'NetworkPolicy',
];

type Reconcile = (ctx: Ctx, key: ObjectKey) => Promise<void>;

const RECONCILE: Partial<Record<Kind, Reconcile>> = {
  Vpc: (ctx, key) => reconcileVpc(ctx, key.name),
  Subnet: (ctx, key) => reconcileSubnet(ctx, key.name),
  IPPool: (ctx, key) => reconcileIPPool(ctx, key.name),
  Node: (ctx, key) => reconcileNode(ctx, key.name),
  Namespace: (ctx, key) => reconcileNamespace(ctx, key.name),
  Pod: reconcilePod,
  Service: reconcileService,
  NetworkPolicy: reconcileNetworkPolicy,
};

/** A queue run's index in `runs`: `runKey` registers under it what `afterCommit` finds, so both name it here. */
const runId = (kind: Kind, key: ObjectKey): string => `${kind}/${formatKey(key)}`;

/** A write to the cluster that waits for a commit, and the object whose reconcile asked for it. */
interface Deferred {
  readonly kind: Kind;
  readonly key: ObjectKey;
  readonly fn: () => Promise<void>;
}

export class Controller {
  readonly settings: ControllerSettings;
  readonly ipam: IPAM;
  readonly store = new DesiredState();
  readonly committer: Committer;
  /** What the controller currently does not act on or refuses, per object (warnings). */
  readonly diagnostics = new Diagnostics();
  private readonly informers = new Map<Kind, Informer>();
  private readonly queues = new Map<Kind, WorkQueue<ObjectKey>>();
  private readonly memo = new WeakMap<KubeObject, Map<unknown, Decoded<unknown>>>();
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
  private readonly ctx: Ctx;
  private stopped = false;
  /** Pods by namespace, beside the informer's cache (policies read one namespace at a time). */
  private readonly podIndex = new Map<string, Map<string, KubeObject>>();
  /** IPAM owner keys of the pods and nodes the caches hold: a lease's holder without parsing its key. */
  private readonly holders = new Map<string, { readonly kind: Kind; readonly key: ObjectKey }>();
  private readonly npsByNs = new Map<string, Map<string, KubeObject>>();
  private readonly wideNps = new Map<string, KubeObject>();
  /** Policies with named ports (their rows depend on pods): on egress (every pod), on ingress (by namespace). */
  private readonly namedAll = new Map<string, KubeObject>();
  private readonly namedOwn = new Map<string, Map<string, KubeObject>>();
  private readonly wideByNs = new Map<string, { nsObj: KubeObject | undefined; list: readonly KubeObject[] }>();
  private readonly policySoon = new Map<string, ObjectKey>();
  private policyTimer: unknown;
  private policyWaiters: (() => void)[] = [];

  constructor(private readonly opts: ControllerOptions) {
    this.settings = opts.settings ?? DEFAULT_SETTINGS;
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
    for (const kind of KINDS) {
      const onError = (err: unknown) => this.opts.onError?.(kind, undefined, err);
      this.informers.set(kind, new Informer(opts.cluster, kind, { clock: opts.clock, onError }));
    }
    const s = this.settings;
    const self = this;
    this.ctx = {
      settings: s,
      cluster: opts.cluster,
      ipam: this.ipam,
      committer: this.committer,
      now: () => new Date(opts.clock.now()).toISOString(),
      cache: (kind: Kind): Cache => this.informers.get(kind)!,
      podsIn: (ns: string) => this.podIndex.get(ns)?.values() ?? [],
      podNamespaces: () => this.podIndex.keys(),
      policiesFor: (ns: string) => this.policiesFor(ns),
      decode: <T>(o: KubeObject, f: (o: KubeObject) => Decoded<T>): Decoded<T> => {
        let m = this.memo.get(o);
        if (m === undefined) this.memo.set(o, (m = new Map()));
        let d = m.get(f);
        if (d === undefined) m.set(f, (d = f(o)));
        return d as Decoded<T>;
      },
      enqueue: (kind: Kind, key: ObjectKey) => {
        const q = this.queues.get(kind);
        // Before the queues run (start-up), changes are kept and queued once they do: none is missed.
        if (q) q.add(key);
        else {
          let keys = this.early.get(kind);
          if (keys === undefined) this.early.set(kind, (keys = new Map()));
          keys.set(formatKey(key), key);
        }
      },
      leaseHolder: (owner: string) => this.holders.get(owner),
      report: (ref, topic, problems) => this.diagnostics.set(ref, topic, problems),
      event: async (ref, type, reason, message) => {
        await opts.cluster
          .recordEvent({ involved: ref, type, reason, message, source: 'kube-ovn-controller' })
          .catch(() => {});
      },
      clusterLbs: {
        tcp: s.clusterTcpLoadBalancer,
        udp: s.clusterUdpLoadBalancer,
        sctp: s.clusterSctpLoadBalancer,
        tcpSession: s.clusterTcpSessionLoadBalancer,
        udpSession: s.clusterUdpSessionLoadBalancer,
        sctpSession: s.clusterSctpSessionLoadBalancer,
      },
      get starting() {
        return self.starting;
      },
      afterCommit: async (kind: Kind, key: ObjectKey, fn: () => Promise<void>) => this.afterCommit(kind, key, fn),
    };
  }

  /** The handler context (for tests that drive one handler). */
  get context(): Ctx {
    return this.ctx;
  }

  /**
   * Informers synced, Kube-OVN's default objects present, IPAM rebuilt, every
   * object reconciled, one flush committed; then the queues start.
   */
  async start(): Promise<StartReport> {
    // Handlers first: a change that arrives while start-up runs is queued after it, not lost.
    this.watch();
    await Promise.all([...this.informers.values()].map((i) => i.start()));
    await Promise.all([...this.informers.values()].map((i) => i.synced()));
    // The pod, node and policy indexes (leaseHolder's among them) are full already: each informer's first
    // list went through the handlers `watch` registered above.
    await this.ensureDefaults();
    const restored = await restoreAllocations(this.ctx, this.opts.backend);
    // The pass below reconciles every object the caches hold now: what was queued so far matters only for
    // objects gone from them (deleted while the informers started). Changes during the pass are kept.
    for (const [kind, keys] of this.early)
      for (const id of keys.keys()) if (this.informers.get(kind)!.get(id) !== undefined) keys.delete(id);
    this.earlyAll.clear();
    const failed: [Kind, ObjectKey][] = [];
    const { operations } = await this.committer.start(async () => {
      for (const kind of START_ORDER) {
        const reconcile = RECONCILE[kind]!;
        const list = this.informers.get(kind)!.list();
        for (const o of kind === 'Subnet' ? subnetsInOrder(this.ctx, list) : creationOrder(list)) {
          const key = objectKey(o);
          try {
            await reconcile(this.ctx, key);
          } catch (err) {
            this.opts.onError?.(kind, key, err);
            failed.push([kind, key]);
          }
        }
      }
    });
    this.starting = false;
    const deferred = this.deferred;
    this.deferred = [];
    const unwritten: [Deferred, unknown][] = [];
    for (const d of deferred) await d.fn().catch((err: unknown) => unwritten.push([d, err]));
    for (const name of restored.staleIpObjects)
      await this.opts.cluster.delete({ kind: 'IP', name }).catch((err) => this.opts.onError?.('IP', { name }, err));
    for (const kind of KINDS) {
      const reconcile = RECONCILE[kind];
      if (reconcile === undefined) continue;
      const q = new WorkQueue<ObjectKey>({
        clock: this.opts.clock,
        id: formatKey,
        manualForget: true,
        onError: (key, err) => this.opts.onError?.(kind, key, err),
      });
      this.queues.set(kind, q);
      const workers = kind === 'Pod' ? Math.max(16, this.settings.workerNum) : this.settings.workerNum;
      q.run((key) => this.runKey(kind, key, reconcile), workers);
    }
    for (const [kind, key] of failed) this.ctx.enqueue(kind, key);
    for (const [d, err] of unwritten) this.writeFailed(d.kind, d.key, err);
    for (const [kind, keys] of this.early) for (const key of keys.values()) this.ctx.enqueue(kind, key);
    this.early.clear();
    for (const kind of this.earlyAll) this.enqueueAll(kind);
    this.earlyAll.clear();
    return { ...restored, operations };
  }

  /** Resolves when no queue holds work, every commit is done and every write after it made. */
  async idle(): Promise<void> {
    for (let round = 0; round < 1000; round++) {
      if (this.policyTimer !== undefined) await new Promise<void>((r) => this.policyWaiters.push(r));
      await Promise.all([...this.queues.values()].map((q) => q.idle()));
      await this.committer.sync();
      if (this.pending.size > 0) {
        await Promise.allSettled([...this.pending]);
        continue;
      }
      // Writes made in the last round come back as watch events: let them arrive.
      await new Promise((r) => setImmediate(r));
      const busy = [...this.queues.values()].some((q) => q.len() > 0) || this.policyTimer !== undefined;
      if (!busy && this.pending.size === 0 && this.committer.stats.pendingRows === 0) return;
    }
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
    if (this.policyTimer !== undefined) this.opts.clock.clearTimeout(this.policyTimer);
    this.policyTimer = undefined;
    for (const w of this.policyWaiters.splice(0)) w();
    await this.committer.close();
    await Promise.all([...this.queues.values()].map((q) => q.shutdown()));
    await Promise.allSettled([...this.pending]);
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

  /** One queue run of `key`: its backoff resets once its writes after commit succeeded, not before. */
  private async runKey(kind: Kind, key: ObjectKey, reconcile: Reconcile): Promise<void> {
    // A key runs on one worker at a time, so the writes registered under its id meanwhile are this run's.
    const id = runId(kind, key);
    const writes: Promise<boolean>[] = [];
    this.runs.set(id, writes);
    try {
      await this.reconcileTracked(kind, key, reconcile);
    } finally {
      this.runs.delete(id);
    }
    const q = this.queues.get(kind)!;
    if (writes.length === 0) q.forget(key);
    else void Promise.all(writes).then((ok) => ok.every(Boolean) && q.forget(key));
  }

  /** Pods: a new or released address changes what policies match, so every policy is requeued. */
  private async reconcileTracked(kind: Kind, key: ObjectKey, reconcile: Reconcile): Promise<void> {
    const ctx = this.ctx;
    if (kind !== 'Pod') return reconcile(ctx, key);
    const ns = key.namespace ?? 'default';
    const owner = ownerKey(key.name, ns);
    const before = this.ipam.lookup(owner);
    try {
      await reconcile(ctx, key);
    } finally {
      const after = this.ipam.lookup(owner);
      if (before?.v4 !== after?.v4 || before?.v6 !== after?.v6) this.enqueuePolicies(ns);
    }
  }

  private *policiesFor(ns: string): Iterable<KubeObject> {
    for (const np of this.npsByNs.get(ns)?.values() ?? []) yield np;
    yield* this.widePoliciesOf(ns);
  }

  /**
   * The wide policies (of other namespaces) whose namespaceSelectors select
   * `ns`, kept per namespace until a wide policy or the namespace changes:
   * a pod's reconcile reads a list, not every policy of the cluster.
   */
  private widePoliciesOf(ns: string): readonly KubeObject[] {
    const nsObj = this.informers.get('Namespace')!.get(ns);
    const hit = this.wideByNs.get(ns);
    if (hit !== undefined && hit.nsObj === nsObj) return hit.list;
    const list = [...this.wideNps.values()].filter(
      (np) => np.metadata.namespace !== ns && policyMayMatch(this.ctx, np, ns),
    );
    this.wideByNs.set(ns, { nsObj, list });
    return list;
  }

  /**
   * The policies whose own rows a change of a pod in `ns` can change: those
   * with named ports (namedPortDependence); members are the pods' own
   * contributions. They are gathered for `policyDelayMs` before they are
   * queued: such a policy is recomputed once per window during a storm.
   */
  private enqueuePolicies(ns: string): void {
    for (const [id, o] of this.namedAll) this.policySoon.set(id, objectKey(o));
    for (const [id, o] of this.namedOwn.get(ns) ?? []) this.policySoon.set(id, objectKey(o));
    if (this.policySoon.size === 0 || this.policyTimer !== undefined) return;
    this.policyTimer = this.opts.clock.setTimeout(() => this.flushPolicies(), this.opts.policyDelayMs ?? 20);
  }

  private flushPolicies(): void {
    this.policyTimer = undefined;
    const keys = [...this.policySoon.values()];
    this.policySoon.clear();
    for (const key of keys) this.ctx.enqueue('NetworkPolicy', key);
    for (const w of this.policyWaiters.splice(0)) w();
  }

  /** Keeps the policy indexes: by namespace, and those that reach beyond their namespace. */
  private indexPolicy(o: KubeObject, gone: boolean): void {
    const ns = o.metadata.namespace ?? 'default';
    const key = keyOf(o);
    let m = this.npsByNs.get(ns);
    if (m === undefined) this.npsByNs.set(ns, (m = new Map()));
    if (this.wideNps.delete(key)) this.wideByNs.clear();
    this.namedAll.delete(key);
    this.namedOwn.get(ns)?.delete(key);
    if (gone) {
      m.delete(key);
      return;
    }
    m.set(key, o);
    if (reachesBeyondNamespace(this.ctx, o)) {
      this.wideNps.set(key, o);
      this.wideByNs.clear();
    }
    const dep = namedPortDependence(this.ctx, o);
    if (dep === 'all') this.namedAll.set(key, o);
    else if (dep === 'own') {
      let own = this.namedOwn.get(ns);
      if (own === undefined) this.namedOwn.set(ns, (own = new Map()));
      own.set(key, o);
    }
  }

  private indexPod(o: KubeObject, gone: boolean): void {
    const ns = o.metadata.namespace ?? 'default';
    let m = this.podIndex.get(ns);
    if (m === undefined) this.podIndex.set(ns, (m = new Map()));
    const owner = ownerKey(o.metadata.name, ns);
    if (gone) {
      m.delete(keyOf(o));
      if (m.size === 0) this.podIndex.delete(ns);
      this.holders.delete(owner);
    } else {
      m.set(keyOf(o), o);
      this.holders.set(owner, { kind: 'Pod', key: objectKey(o) });
    }
  }

  private indexNode(o: KubeObject, gone: boolean): void {
    const owner = nodePort(o.metadata.name);
    if (gone) this.holders.delete(owner);
    else this.holders.set(owner, { kind: 'Node', key: objectKey(o) });
  }

  private enqueueAll(kind: Kind): void {
    if (this.queues.size === 0) {
      this.earlyAll.add(kind);
      return;
    }
    for (const o of this.informers.get(kind)!.values()) this.ctx.enqueue(kind, objectKey(o));
  }

  /** Which keys a change of each kind requeues (see the handlers' headers). */
  private watch(): void {
    for (const kind of KINDS)
      this.informers.get(kind)!.addHandlers(decodeReporter(this.diagnostics, (o, f) => this.ctx.decode(o, f), kind));
    const on = (kind: Kind, f: (o: KubeObject, old: KubeObject | undefined, gone: boolean) => void) =>
      this.informers.get(kind)!.addHandlers({
        onAdd: (o: KubeObject) => f(o, undefined, false),
        onUpdate: (old: KubeObject, o: KubeObject) => f(o, old, false),
        onDelete: (o: KubeObject) => f(o, undefined, true),
      });
    const specChanged = (o: KubeObject, old: KubeObject | undefined) =>
      old === undefined ||
      JSON.stringify(old.spec) !== JSON.stringify(o.spec) ||
      old.metadata.deletionTimestamp !== o.metadata.deletionTimestamp ||
      JSON.stringify(old.metadata.finalizers) !== JSON.stringify(o.metadata.finalizers) ||
      JSON.stringify(old.metadata.labels) !== JSON.stringify(o.metadata.labels);
    const labelsChanged = (o: KubeObject, old: KubeObject | undefined) =>
      old === undefined || JSON.stringify(old.metadata.labels) !== JSON.stringify(o.metadata.labels);
    on('Vpc', (o, old) => {
      if (!specChanged(o, old)) return;
      // Its own key first: a deleted Vpc is no longer among those enqueueAll finds in the cache.
      this.ctx.enqueue('Vpc', objectKey(o));
      this.enqueueAll('Vpc');
      this.enqueueAll('Subnet');
      // Its namespaces and defaultSubnet decide where their pods go.
      this.enqueueAll('Namespace');
    });
    on('Subnet', (o, old) => {
      if (!specChanged(o, old)) return;
      this.ctx.enqueue('Subnet', objectKey(o));
      // The namespaces it binds decide their policies' address families.
      this.enqueueAll('NetworkPolicy');
      this.enqueueAll('Vpc');
      this.enqueueAll('Node');
      this.enqueueAll('Namespace');
    });
    on('IPPool', (o) => this.ctx.enqueue('IPPool', objectKey(o)));
    on('Node', (o, old, gone) => {
      this.indexNode(o, gone);
      if (!specChanged(o, old) && JSON.stringify(old?.status) === JSON.stringify(o.status)) return;
      this.ctx.enqueue('Node', objectKey(o));
      // A new node, or new labels (gatewayNodeSelectors), may change a centralized subnet's gateways.
      if (old === undefined || labelsChanged(o, old)) this.enqueueAll('Subnet');
    });
    on('Namespace', (o, old) => {
      this.ctx.enqueue('Namespace', objectKey(o));
      // Wider policies' memberships of its pods may change.
      if (labelsChanged(o, old))
        for (const p of this.podIndex.get(o.metadata.name)?.values() ?? []) this.ctx.enqueue('Pod', objectKey(p));
    });
    on('Pod', (o, old, gone) => {
      this.indexPod(o, gone);
      this.ctx.enqueue('Pod', objectKey(o));
      if (gone || labelsChanged(o, old)) this.enqueuePolicies(o.metadata.namespace ?? 'default');
    });
    // An IP object deleted by hand: its pod writes it again or, gone, releases the address it kept.
    on('IP', (o, _old, gone) => {
      const ip = this.ctx.decode(o, decodeIP).value;
      if (gone && ip.podName && ip.namespace) this.ctx.enqueue('Pod', { namespace: ip.namespace, name: ip.podName });
    });
    on('Service', (o) => this.ctx.enqueue('Service', objectKey(o)));
    on('EndpointSlice', (o) => {
      const svc = this.ctx.decode(o, decodeEndpointSlice).value.service;
      if (svc) this.ctx.enqueue('Service', objectKey({ metadata: { ...o.metadata, name: svc } }));
    });
    on('NetworkPolicy', (o, old, gone) => {
      const wasWide = old !== undefined && reachesBeyondNamespace(this.ctx, old);
      this.indexPolicy(o, gone);
      this.ctx.enqueue('NetworkPolicy', objectKey(o));
      // The pods that can be members, before or after, recompute their memberships.
      const ns = o.metadata.namespace ?? 'default';
      if (wasWide || reachesBeyondNamespace(this.ctx, o)) this.enqueueAll('Pod');
      else for (const p of this.podIndex.get(ns)?.values() ?? []) this.ctx.enqueue('Pod', objectKey(p));
      if (gone || old === undefined) this.enqueueAll('Node');
    });
  }

  /** Kube-OVN's default VPC, default subnet and join subnet as objects, created when missing. */
  private async ensureDefaults(): Promise<void> {
    const s = this.settings;
    const want: KubeObject[] = [
      { apiVersion: 'kubeovn.io/v1', kind: 'Vpc', metadata: { name: s.clusterRouter }, spec: {} },
      {
        apiVersion: 'kubeovn.io/v1',
        kind: 'Subnet',
        metadata: { name: s.defaultLogicalSwitch },
        spec: {
          default: true,
          vpc: s.clusterRouter,
          protocol: protocolOf(s.defaultCIDR),
          cidrBlock: s.defaultCIDR,
          ...(s.defaultGateway ? { gateway: s.defaultGateway } : {}),
          ...(s.defaultExcludeIps ? { excludeIps: s.defaultExcludeIps.split(',') } : {}),
          gatewayType: 'distributed',
          natOutgoing: true,
        },
      },
      {
        apiVersion: 'kubeovn.io/v1',
        kind: 'Subnet',
        metadata: { name: s.nodeSwitch },
        spec: {
          vpc: s.clusterRouter,
          protocol: protocolOf(s.nodeSwitchCIDR),
          cidrBlock: s.nodeSwitchCIDR,
          ...(s.nodeSwitchGateway ? { gateway: s.nodeSwitchGateway } : {}),
          gatewayType: 'distributed',
        },
      },
    ];
    for (const o of want) {
      const inf = this.informers.get(o.kind as Kind)!;
      if (inf.get(o.metadata.name) !== undefined) continue;
      await this.opts.cluster.create(o).catch((e: unknown) => {
        if ((e as { reason?: string }).reason !== 'AlreadyExists') throw e;
      });
      // The informer's own event brings it into the cache, however long the source takes to deliver it.
      if ((await inf.waitFor(o.metadata.name)) === undefined) throw new InformerStoppedError(o.kind);
    }
  }
}

function protocolOf(cidrs: string): string {
  const parts = cidrs.split(',');
  const v6 = parts.some((c) => c.includes(':'));
  const v4 = parts.some((c) => !c.includes(':'));
  return v4 && v6 ? 'Dual' : v6 ? 'IPv6' : 'IPv4';
}

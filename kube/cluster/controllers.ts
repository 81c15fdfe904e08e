/**
 * What kube-controller-manager and kube-scheduler do, in small, as
 * controllers running on a cluster source: they watch its Nodes, Pods and
 * workloads and write back through its API, so a Deployment created by a
 * scenario loader or by `kubectl apply` gets its pods the same way.
 *
 * - Deployment → ReplicaSet (named with its template's hash; a template
 *   change makes a new one and scales the old ones to 0) → pods;
 *   ReplicaSet and Job pods `<name>-<5>`, StatefulSet pods `<name>-<i>`,
 *   one DaemonSet pod per node its template fits (workloads.ts). Every pod
 *   carries its controller's ownerReference (uid, `controller: true`).
 * - Scale down removes, as the ReplicaSet controller ranks them, pending
 *   pods first, then the newest; a StatefulSet its highest ordinals.
 * - Deleting a workload deletes what it controls (the garbage collector,
 *   background propagation); a deleted pod of a live workload is replaced
 *   under a new name (a StatefulSet's under the same one).
 * - A pod without `spec.nodeName` is bound to a node that fits it
 *   (scheduler.ts), round-robin in the order nodes were created; none fits:
 *   it stays pending with a `FailedScheduling` Warning Event, and is tried
 *   again when a node's labels, taints or schedulability change.
 *
 * Everything runs from one queue, one key at a time, in the order the events
 * came: given the same writes, the same pods with the same names on the same
 * nodes. Pods never run, finish or become ready here.
 */
import { type SchedNode, RoundRobin, schedNode, unfit } from './scheduler.ts';
import {
  ClusterError,
  type ClusterSource,
  formatKey,
  type KubeObject,
  type ObjectRef,
  refOf,
  type Watch,
  type WatchEvent,
} from './types.ts';
import {
  controllerOf,
  countField,
  daemonPodName,
  daemonSetPodSpec,
  indexedPodName,
  jobActive,
  obj,
  podFromTemplate,
  replicaSetFor,
  sameTemplate,
  statefulLabels,
  templateHash,
  WORKLOAD_KINDS,
} from './workloads.ts';

type Work =
  | { readonly op: 'sync'; readonly ref: ObjectRef }
  | { readonly op: 'schedule'; readonly ref: ObjectRef }
  | { readonly op: 'collect'; readonly uid: string };

const WATCHED = ['Node', ...WORKLOAD_KINDS, 'Pod'];

const workId = (w: Work): string =>
  w.op === 'collect' ? `collect ${w.uid}` : `${w.op} ${w.ref.kind} ${formatKey(w.ref)}`;

const sameForScheduling = (a: SchedNode | undefined, b: SchedNode): boolean =>
  a !== undefined && JSON.stringify(a) === JSON.stringify(b);

/**
 * @example
 * const cluster = new MemoryCluster();
 * const workloads = new ClusterControllers(cluster);
 * await workloads.start();
 * await cluster.create(deployment);
 * await workloads.idle(); // its ReplicaSet and pods exist, bound to nodes
 */
export class ClusterControllers {
  private readonly queue = new Map<string, Work>();
  /** Nodes as the scheduler sees them, in creation order. */
  private readonly nodes = new Map<string, SchedNode>();
  /** DaemonSets by key: a node's change may give or take one of their pods. */
  private readonly daemonSets = new Map<string, ObjectRef>();
  /** Pods seen without a node, by key. */
  private readonly pending = new Map<string, ObjectRef>();
  /** Creation order of pods (the ReplicaSet controller removes the newest first). */
  private readonly born = new Map<string, number>();
  /** Names each ReplicaSet or Job (by uid) has given, so a replacement gets a new one. */
  private readonly given = new Map<string, Set<string>>();
  /** Controlled objects (by `Kind ns/name`) by their controller's uid, and the reverse. */
  private readonly children = new Map<string, Map<string, KubeObject>>();
  private readonly controllerUid = new Map<string, string>();
  /** Objects the controllers created, in order, until `takeCreated`. */
  private created: KubeObject[] = [];
  private readonly scheduler = new RoundRobin();
  private watches: Watch[] = [];
  private running = false;
  private births = 0;
  private failure: unknown;

  constructor(private readonly cluster: ClusterSource) {}

  /** Lists what exists, reconciles it, and watches for every later change. */
  async start(): Promise<void> {
    for (const kind of WATCHED) {
      const { items, resourceVersion } = await this.cluster.list(kind);
      for (const o of items) this.observe({ type: 'ADDED', object: o });
      this.watches.push(this.cluster.watch(kind, resourceVersion, (e) => this.observe(e)));
    }
  }

  stop(): void {
    for (const w of this.watches) w.stop();
    this.watches = [];
  }

  /**
   * Resolves once every change made so far has been acted on (and what those
   * actions changed, in turn); rejects with the first error a controller met.
   */
  async idle(): Promise<void> {
    for (;;) {
      await this.drain();
      // Writes made while draining come back as watch events (microtasks): let them arrive.
      await new Promise<void>((r) => setImmediate(r));
      if (this.failure !== undefined) throw this.failure;
      if (this.queue.size === 0 && !this.running) return;
    }
  }

  /** The nodes, as the scheduler sees them, in creation order. */
  schedulerNodes(): SchedNode[] {
    return [...this.nodes.values()];
  }

  /** The objects the controllers created since the last call, in the order they were created. */
  takeCreated(): KubeObject[] {
    const out = this.created;
    this.created = [];
    return out;
  }

  private observe(e: WatchEvent): void {
    const o = e.object;
    const ref = refOf(o);
    this.index(e);
    if (o.kind === 'Node') this.observeNode(e);
    else if (WORKLOAD_KINDS.has(o.kind)) {
      if (e.type === 'DELETED' && o.metadata.uid) this.add({ op: 'collect', uid: o.metadata.uid });
      else this.add({ op: 'sync', ref });
      if (o.kind === 'DaemonSet') {
        if (e.type === 'DELETED') this.daemonSets.delete(formatKey(ref));
        else this.daemonSets.set(formatKey(ref), ref);
      }
    } else if (o.kind === 'Pod' && !this.observePod(e, ref)) return;
    const owner = controllerOf(o);
    if (owner !== undefined && WORKLOAD_KINDS.has(owner.kind))
      this.add({
        op: 'sync',
        ref: { kind: owner.kind, namespace: o.metadata.namespace ?? 'default', name: owner.name },
      });
  }

  private observeNode(e: WatchEvent): void {
    const name = e.object.metadata.name;
    if (e.type === 'DELETED') this.nodes.delete(name);
    else {
      const next = schedNode(e.object);
      if (sameForScheduling(this.nodes.get(name), next)) return;
      this.nodes.set(name, next);
    }
    // What may fit elsewhere now: DaemonSets' nodes and pending pods.
    for (const ref of this.daemonSets.values()) this.add({ op: 'sync', ref });
    for (const ref of this.pending.values()) this.add({ op: 'schedule', ref });
  }

  /**
   * Tracks a pod's scheduling; true when its controller must look again (it
   * came, went or is going: not for every annotation the network writes).
   */
  private observePod(e: WatchEvent, ref: ObjectRef): boolean {
    const key = formatKey(ref);
    if (e.type === 'DELETED') {
      this.pending.delete(key);
      this.born.delete(key);
      return true;
    }
    const deleting = e.object.metadata.deletionTimestamp !== undefined;
    const added = !this.born.has(key);
    if (added) this.born.set(key, ++this.births);
    if (obj(e.object.spec).nodeName || deleting) this.pending.delete(key);
    else if (!this.pending.has(key)) {
      this.pending.set(key, ref);
      this.add({ op: 'schedule', ref });
    }
    return added || deleting;
  }

  private add(w: Work): void {
    const id = workId(w);
    if (!this.queue.has(id)) this.queue.set(id, w);
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let next = this.queue.entries().next(); !next.done; next = this.queue.entries().next()) {
        const [id, w] = next.value;
        this.queue.delete(id);
        try {
          await this.run(w);
        } catch (err) {
          this.failure ??= err;
        }
      }
    } finally {
      this.running = false;
    }
  }

  private async run(w: Work): Promise<void> {
    if (w.op === 'collect') return this.collect(w.uid);
    const o = await this.cluster.get(w.ref);
    if (o === undefined || o.metadata.deletionTimestamp !== undefined) return;
    if (w.op === 'schedule') return this.schedule(o);
    switch (o.kind) {
      case 'Deployment':
        return this.syncDeployment(o);
      case 'ReplicaSet':
        return this.syncReplicas(o, countField(o, 'replicas', 1) ?? 0, {});
      case 'Job':
        return this.syncReplicas(o, jobActive(o), { 'job-name': o.metadata.name });
      case 'StatefulSet':
        return this.syncStatefulSet(o);
      case 'DaemonSet':
        return this.syncDaemonSet(o);
    }
  }

  /** What `owner` controls of `kind`, as last seen (the informer's index by controller uid). */
  private owned(kind: string, owner: KubeObject): KubeObject[] {
    const mine = this.children.get(owner.metadata.uid ?? '');
    if (mine === undefined) return [];
    return [...mine.values()].filter((o) => o.kind === kind && o.metadata.deletionTimestamp === undefined);
  }

  /** Keeps the index of controlled objects by their controller's uid. */
  private index(e: WatchEvent): void {
    const o = e.object;
    const id = `${o.kind} ${formatKey(refOf(o))}`;
    const was = this.controllerUid.get(id);
    const now = e.type === 'DELETED' ? undefined : controllerOf(o)?.uid;
    if (was !== undefined && was !== now) {
      this.children.get(was)?.delete(id);
      if (this.children.get(was)?.size === 0) this.children.delete(was);
    }
    if (now === undefined || now === '') {
      this.controllerUid.delete(id);
      return;
    }
    this.controllerUid.set(id, now);
    let mine = this.children.get(now);
    if (mine === undefined) this.children.set(now, (mine = new Map()));
    mine.set(id, o);
  }

  /** Creates `o`; false when the name is taken (by an object this controller does not own, or made already). */
  private async make(o: KubeObject): Promise<boolean> {
    try {
      this.created.push(await this.cluster.create(o));
      return true;
    } catch (err) {
      if (err instanceof ClusterError && err.reason === 'AlreadyExists') return false;
      throw err;
    }
  }

  private async remove(ref: ObjectRef): Promise<void> {
    try {
      await this.cluster.delete(ref);
    } catch (err) {
      if (!(err instanceof ClusterError && err.reason === 'NotFound')) throw err;
    }
  }

  private async syncDeployment(d: KubeObject): Promise<void> {
    const sets = this.owned('ReplicaSet', d);
    const replicas = countField(d, 'replicas', 1) ?? 0;
    let current = sets.find((rs) => sameTemplate(rs, d));
    if (current === undefined) {
      const rs = replicaSetFor(d, templateHash(d, sets.length === 0));
      if (!(await this.make(rs))) return;
      current = rs;
    } else if (countField(current, 'replicas', 1) !== replicas)
      await this.cluster.patch(refOf(current), { spec: { replicas } });
    // The rollout, at once: the old templates' ReplicaSets go to 0 (kept, as a revision history).
    for (const rs of sets)
      if (rs !== current && countField(rs, 'replicas', 1) !== 0)
        await this.cluster.patch(refOf(rs), { spec: { replicas: 0 } });
  }

  /** A ReplicaSet's or a Job's pods: `want` of them, named `<name>-<5>`. */
  private async syncReplicas(w: KubeObject, want: number, labels: Record<string, string>): Promise<void> {
    const pods = this.owned('Pod', w);
    if (pods.length > want) {
      const rank = (p: KubeObject) => (obj(p.spec).nodeName ? 1 : 0);
      const born = (p: KubeObject) => this.born.get(formatKey(refOf(p))) ?? 0;
      const victims = [...pods].sort((a, b) => rank(a) - rank(b) || born(b) - born(a));
      for (const p of victims.slice(0, pods.length - want)) await this.remove(refOf(p));
      return;
    }
    const uid = w.metadata.uid ?? '';
    let names = this.given.get(uid);
    if (names === undefined) this.given.set(uid, (names = new Set()));
    for (let i = 0, made = pods.length; made < want; i++) {
      const name = indexedPodName(w, i);
      if (names.has(name)) continue;
      names.add(name);
      if (await this.make(podFromTemplate(w, name, labels))) made++;
    }
  }

  private async syncStatefulSet(s: KubeObject): Promise<void> {
    const want = countField(s, 'replicas', 1) ?? 0;
    const pods = this.owned('Pod', s);
    const have = new Set(pods.map((p) => p.metadata.name));
    for (let i = 0; i < want; i++) {
      const name = `${s.metadata.name}-${i}`;
      if (!have.has(name)) await this.make(podFromTemplate(s, name, statefulLabels(s.metadata.name, i)));
    }
    const ordinal = (p: KubeObject) => Number(p.metadata.name.slice(s.metadata.name.length + 1));
    const extra = pods.filter((p) => !(ordinal(p) < want)).sort((a, b) => ordinal(b) - ordinal(a));
    for (const p of extra) await this.remove(refOf(p));
  }

  private async syncDaemonSet(ds: KubeObject): Promise<void> {
    const spec = daemonSetPodSpec(ds);
    const fits = [...this.nodes.values()].filter((n) => unfit(spec, n) === undefined).map((n) => n.name);
    const pods = this.owned('Pod', ds);
    const on = new Set(pods.map((p) => obj(p.spec).nodeName));
    for (const node of fits) if (!on.has(node)) await this.make(podFromTemplate(ds, daemonPodName(ds, node), {}, node));
    for (const p of pods) if (!fits.includes(String(obj(p.spec).nodeName))) await this.remove(refOf(p));
  }

  private async schedule(pod: KubeObject): Promise<void> {
    if (obj(pod.spec).nodeName) return;
    const placed = this.scheduler.place(obj(pod.spec), this.schedulerNodes());
    if ('node' in placed) {
      await this.cluster.patch(refOf(pod), { spec: { nodeName: placed.node } });
      return;
    }
    await this.cluster.recordEvent({
      involved: { ...refOf(pod), ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}) },
      type: 'Warning',
      reason: 'FailedScheduling',
      message: placed.reason,
      source: 'default-scheduler',
    });
  }

  /** The garbage collector's part: what the deleted object `uid` controlled goes too. */
  private async collect(uid: string): Promise<void> {
    this.given.delete(uid);
    for (const o of [...(this.children.get(uid)?.values() ?? [])]) await this.remove(refOf(o));
  }
}

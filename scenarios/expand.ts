/**
 * A scenario's objects into the in-memory cluster, as `kubectl apply` and a
 * cluster's own controllers would have them, deterministically
 * (docs/architecture.md, "Scenario files"):
 *
 * - the cluster's controllers (kube/cluster/controllers.ts) make the
 *   workloads' pods and place every pod without a node; a workload whose
 *   controlled objects are in the input (a dump's Deployment, ReplicaSet and
 *   Pod) is not created: its objects stand for it, as the dump holds them;
 * - Namespaces `default`, `kube-system` and every one an object names exist;
 * - Nodes are the Node documents plus every `spec.nodeName`; with none,
 *   `spec.cluster.nodes` (default 2) nodes `kovn-node-1..N`;
 * - Services without a cluster IP get the lowest free one of the service
 *   CIDR (after the network address), in document order;
 *
 * Objects are created in order (namespaces, nodes, kubeovn.io objects, then
 * the rest as written), each workload's pods made before the next object,
 * so pods are placed in document order.
 */
import { formatIPv4, parseCIDR } from '../model/addr/index.ts';
import { ClusterControllers } from '../kube/cluster/controllers.ts';
import { MemoryCluster } from '../kube/cluster/memory.ts';
import { schedNode } from '../kube/cluster/scheduler.ts';
import { ClusterError, type KubeObject, type OwnerReference, refOf } from '../kube/cluster/types.ts';
import { API_VERSION, NAMESPACED } from '../kube/registry.ts';
import { obj, WORKLOAD_KINDS } from '../kube/cluster/workloads.ts';
import type { Warning } from '../kube/objects/warnings.ts';
import { controllingWorkloads } from './dump.ts';
import { checkCounts } from './limits.ts';
import { refusedAsWarning, Warnings } from './run-warnings.ts';

export { suffix } from '../kube/cluster/workloads.ts';
export { ExpandError, MAX_PODS } from './limits.ts';

/** The cluster a scenario runs on: the in-memory API and its own controllers. */
export interface SimCluster {
  readonly cluster: MemoryCluster;
  readonly workloads: ClusterControllers;
}

export interface Expanded extends SimCluster {
  /** What the input made, in the order created, each workload followed by what its controllers made. */
  readonly objects: readonly KubeObject[];
  /** Pods no node fits (`FailedScheduling`), objects the API server refused (`InvalidObject`). */
  readonly warnings: readonly Warning[];
}

export interface ExpandOptions {
  readonly nodes?: number;
  readonly serviceCIDR?: string;
  /** Milliseconds since the epoch, for the cluster's timestamps (default: always 0). */
  readonly now?: () => number;
}

const FIRST: readonly string[] = ['Namespace', 'Node', 'Vpc', 'Subnet', 'IPPool'];

type Doc = Record<string, unknown> & { kind: string; metadata: Record<string, unknown> & { name: string } };

/**
 * A new cluster holding `input`, its controllers running.
 *
 * @example (await expandObjects([{ kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2, template } }], {}))
 *   .objects.filter((o) => o.kind === 'Pod').map((o) => o.metadata.name) // ['web-<hash>-<5>', 'web-<hash>-<5>']
 */
export async function expandObjects(
  input: readonly Readonly<Record<string, unknown>>[],
  opts: ExpandOptions,
): Promise<Expanded> {
  const cluster = new MemoryCluster(opts.now ? { now: opts.now } : {});
  const workloads = new ClusterControllers(cluster);
  await workloads.start();
  const sim = { cluster, workloads };
  return { ...sim, ...(await applyObjects(sim, input, { ...opts, mode: 'create' })) };
}

export interface ApplyOptions {
  readonly nodes?: number;
  readonly serviceCIDR?: string;
  /** `create`: every object is new (a scenario's first objects); `apply`: create or replace (a later step's). */
  readonly mode: 'create' | 'apply';
  /** With `apply`: Namespaces the step itself writes (one only used by its objects never replaces one that exists). */
  readonly written?: ReadonlySet<string>;
}

/**
 * Creates (or replaces) `input` in a running cluster, waiting for each
 * workload's pods before the next object; throws ExpandError before writing
 * anything when a count is invalid or the pods would exceed MAX_PODS.
 *
 * @example const { warnings } = await applyObjects(sim, step.apply.map((o) => o.object), { mode: 'apply' });
 */
export async function applyObjects(
  sim: SimCluster,
  input: readonly Readonly<Record<string, unknown>>[],
  opts: ApplyOptions,
): Promise<Omit<Expanded, keyof SimCluster>> {
  const { cluster, workloads } = sim;
  const taken = new Set(
    (await cluster.list('Service')).items.flatMap((o) => {
      const ip = obj(o.spec).clusterIP;
      return typeof ip === 'string' && ip !== '' ? [ip] : [];
    }),
  );
  const prepared = prepare(input, workloads, opts, taken);
  const refused = new Warnings();
  const order: KubeObject[] = [];
  for (const o of prepared) {
    const stored = await refusedAsWarning(refused, o, () => write(cluster, o, opts));
    if (stored === null || stored === undefined) continue;
    order.push(stored);
    if (WORKLOAD_KINDS.has(o.kind)) {
      await workloads.idle();
      order.push(...workloads.takeCreated());
    }
  }
  await workloads.idle();
  order.push(...workloads.takeCreated());
  const objects: KubeObject[] = [];
  for (const o of order) {
    const now = await cluster.get(refOf(o));
    if (now !== undefined) objects.push(now);
  }
  return { objects, warnings: [...refused.current(), ...pendingWarnings(cluster, objects)] };
}

/** One object written as the step asks (undefined: a Namespace the step only uses, left as it is). */
async function write(cluster: MemoryCluster, o: KubeObject, opts: ApplyOptions): Promise<KubeObject | undefined> {
  if (opts.mode === 'create') return cluster.create(o);
  const have = await cluster.get(refOf(o));
  if (have === undefined) return cluster.create(o);
  if (o.kind === 'Namespace' && !opts.written?.has(o.metadata.name)) return undefined;
  const updated = await cluster.update({
    ...keepBinding(o, have),
    metadata: { ...o.metadata, resourceVersion: undefined },
  });
  // A Node or Pod written with a status gets it, as its kubelet would report it (a node going NotReady).
  if ((o.kind === 'Node' || o.kind === 'Pod') && o.status !== undefined)
    return cluster.updateStatus({ ...updated, status: o.status });
  return updated;
}

/**
 * Deletes what a step names, as `kubectl delete` does (absent: nothing); the
 * cluster's garbage collector takes what a workload made. A workload a dump
 * stood for (never created, its objects in the cluster) takes the objects it
 * controlled by name, as the collector would have by uid.
 *
 * @example await deleteObject(sim, { kind: 'Deployment', namespace: 'shop', name: 'web' })
 */
export async function deleteObject(
  sim: SimCluster,
  ref: { readonly kind: string; readonly namespace?: string; readonly name: string },
): Promise<void> {
  const namespace = ref.namespace ?? 'default';
  const target = { kind: ref.kind, name: ref.name, ...(NAMESPACED.has(ref.kind) ? { namespace } : {}) };
  try {
    await sim.cluster.delete(target);
  } catch (err) {
    if (!(err instanceof ClusterError) || err.reason !== 'NotFound') throw err;
    if (!WORKLOAD_KINDS.has(ref.kind)) return;
    // A Deployment's ReplicaSets are `<name>-<hash>` (a dump's may be absent too, standing for it as well).
    const controlled = (r: OwnerReference) =>
      (r.kind === ref.kind && r.name === ref.name) ||
      (ref.kind === 'Deployment' && r.kind === 'ReplicaSet' && r.name.startsWith(`${ref.name}-`));
    for (const kind of ['ReplicaSet', 'Pod'])
      for (const o of (await sim.cluster.list(kind, { namespace })).items) {
        const owner = (o.metadata.ownerReferences ?? []).find((r) => r.controller === true);
        if (owner !== undefined && controlled(owner)) await sim.cluster.delete(refOf(o)).catch(() => {});
      }
  }
  await sim.workloads.idle();
}

/**
 * A pod written again without a node keeps the node it is bound to, as
 * `kubectl apply` leaves a field its file does not set (and a bound pod is
 * never moved by an update).
 */
function keepBinding(o: KubeObject, have: KubeObject): KubeObject {
  const bound = obj(have.spec).nodeName;
  if (o.kind !== 'Pod' || !bound || obj(o.spec).nodeName) return o;
  return { ...o, spec: { ...obj(o.spec), nodeName: bound } };
}

/** Pods the scheduler left pending, with its reason (`FailedScheduling`, as a cluster reports it). */
function pendingWarnings(cluster: MemoryCluster, objects: readonly KubeObject[]): Warning[] {
  const out: Warning[] = [];
  for (const o of objects) {
    if (o.kind !== 'Pod' || obj(o.spec).nodeName) continue;
    const why = cluster.events(refOf(o)).findLast((e) => e.reason === 'FailedScheduling');
    if (why === undefined) continue;
    out.push({
      code: 'FailedScheduling',
      kind: 'Pod',
      namespace: o.metadata.namespace ?? 'default',
      name: o.metadata.name,
      field: 'spec',
      message: `${why.message}: the pod stays pending, with no interface`,
    });
  }
  return out;
}

/** The objects to write, in order, with the defaults an API server and a kubelet give. */
function prepare(
  input: readonly Readonly<Record<string, unknown>>[],
  workloads: ClusterControllers,
  opts: ApplyOptions,
  takenIPs: ReadonlySet<string>,
): KubeObject[] {
  const docs = input.map((o) => structuredClone(o) as Doc);
  const nodes = new Set(workloads.schedulerNodes().map((n) => n.name));
  for (const d of docs) if (d.kind === 'Node') nodes.add(d.metadata.name);
  const generated: Doc[] = [];
  const generate = (name: string) => {
    generated.push({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } });
    nodes.add(name);
  };
  for (const d of docs) {
    const name = obj(d.spec).nodeName;
    if (d.kind === 'Pod' && typeof name === 'string' && name !== '' && !nodes.has(name)) generate(name);
  }
  if (nodes.size === 0) for (let i = 1; i <= (opts.nodes ?? 2); i++) generate(`kovn-node-${i}`);
  // A workload whose controlled objects are in the input (a `kubectl get -A -o yaml` dump holds the
  // Deployment, its ReplicaSet and its pods) is not created: its objects stand for it.
  const parents = controllingWorkloads(docs);
  const kept = docs.filter((d) => !parents.has(d));
  const inputNodes = [...docs, ...generated].filter((d) => d.kind === 'Node').map(schedNode);
  checkCounts(kept, [
    ...workloads.schedulerNodes().filter((n) => !nodes.has(n.name) || !inputNodes.some((x) => x.name === n.name)),
    ...inputNodes,
  ]);
  const withDefaults = kept.map((d) => withApiDefaults(d as unknown as KubeObject));
  const assigned = assignClusterIPs(withDefaults, opts.serviceCIDR ?? '10.96.0.0/12', takenIPs);
  const namespaces = new Set(['default', 'kube-system']);
  for (const o of assigned) if (NAMESPACED.has(o.kind)) namespaces.add(o.metadata.namespace ?? 'default');
  const given = new Set(assigned.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name));
  const nsObjects: KubeObject[] = [...namespaces]
    .filter((n) => !given.has(n))
    .map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  const all = [...nsObjects, ...(generated as unknown as KubeObject[]), ...assigned];
  const rank = (k: string) => (FIRST.includes(k) ? FIRST.indexOf(k) : FIRST.length);
  return all
    .map((o, i) => ({ o, i }))
    .sort((a, b) => rank(a.o.kind) - rank(b.o.kind) || a.i - b.i)
    .map((x) => x.o);
}

function withApiDefaults(o: KubeObject): KubeObject {
  const meta = { ...o.metadata };
  if (NAMESPACED.has(o.kind) && meta.namespace === undefined) Object.assign(meta, { namespace: 'default' });
  return { ...o, apiVersion: o.apiVersion ?? API_VERSION[o.kind] ?? 'v1', metadata: meta };
}

function assignClusterIPs(objs: readonly KubeObject[], serviceCIDR: string, taken: ReadonlySet<string>): KubeObject[] {
  const v4 = serviceCIDR
    .split(',')
    .map((c) => c.trim())
    .find((c) => !c.includes(':'));
  const used = new Set(taken);
  for (const o of objs) {
    if (o.kind !== 'Service') continue;
    const ip = obj(o.spec).clusterIP;
    if (typeof ip === 'string' && ip !== '' && ip !== 'None') used.add(ip);
  }
  const cidr = v4 ? parseCIDR(v4) : undefined;
  let cursor = cidr ? Number(cidr.ip) + 1 : 0;
  return objs.map((o) => {
    if (o.kind !== 'Service' || cidr === undefined) return o;
    const spec = obj(o.spec);
    if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '') return o;
    if (spec.type === 'ExternalName') return o;
    while (used.has(formatIPv4(cursor))) cursor++;
    const ip = formatIPv4(cursor);
    used.add(ip);
    return { ...o, spec: { ...spec, clusterIP: ip, clusterIPs: [ip] } };
  });
}

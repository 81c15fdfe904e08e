/**
 * What a cluster's other controllers would do with a scenario's objects,
 * done deterministically so a scenario always names the same pods
 * (docs/architecture.md, "Scenario files"):
 *
 * - workloads become pods named as the Kubernetes controllers name them
 *   (workloads.ts), unless their controlled objects are in the input (a
 *   dump's Deployment, ReplicaSet and Pod give one pod);
 * - Namespaces `default`, `kube-system` and every one an object names exist;
 * - Nodes are the Node documents plus every `spec.nodeName`; with none,
 *   `spec.cluster.nodes` (default 2) nodes `kovn-node-1..N`; pods without a
 *   node go round-robin in document order among the nodes that fit them
 *   (schedule.ts; a pod none fits stays pending);
 * - Services without a cluster IP get the lowest free one of the service
 *   CIDR (after the network address), in document order;
 * - EndpointSlices for Services with a selector and no slice of their own,
 *   from the ready pods' addresses once the controller gave them
 *   (`endpointSlicesFor`), named target ports resolved per pod.
 */
import { formatIPv4, parseCIDR, tryParseIP } from '../model/addr/index.ts';
import type { KubeObject } from '../kube/cluster/types.ts';
import { API_VERSION, NAMESPACED } from '../kube/registry.ts';
import { decodePod, decodeService, type PodView, selects, type ServiceView } from '../kube/objects/objects.ts';
import type { Warning } from '../kube/objects/warnings.ts';
import { RoundRobin, type SchedNode, schedNode, unfit } from './schedule.ts';
import { ExpandError, MAX_PODS, type Obj, obj, suffix, WORKLOADS, workloadPods } from './workloads.ts';

export { ExpandError, MAX_PODS, suffix, workloadPods } from './workloads.ts';

export interface Expanded {
  /** Every object to create, in order: namespaces, nodes, kubeovn.io objects, then the rest as written. */
  readonly objects: readonly KubeObject[];
  /** The nodes of the cluster after this expansion, as the scheduler sees them. */
  readonly nodes: readonly SchedNode[];
  /** Pods no node fits (`FailedScheduling`): left pending, as a cluster leaves them. */
  readonly warnings: readonly Warning[];
}

const FIRST: readonly string[] = ['Namespace', 'Node', 'Vpc', 'Subnet', 'IPPool'];

export interface ExpandOptions {
  readonly nodes?: number;
  readonly serviceCIDR?: string;
  /** Cluster IPs already taken (by earlier steps). */
  readonly takenServiceIPs?: ReadonlySet<string>;
  /** Nodes that exist already (later steps). */
  readonly existingNodes?: readonly SchedNode[];
}

/** The tolerations the DaemonSet controller adds to its pods (pkg/controller/daemon/util). */
const DAEMONSET_TOLERATIONS = [
  'node.kubernetes.io/not-ready:NoExecute',
  'node.kubernetes.io/unreachable:NoExecute',
  'node.kubernetes.io/disk-pressure:NoSchedule',
  'node.kubernetes.io/memory-pressure:NoSchedule',
  'node.kubernetes.io/pid-pressure:NoSchedule',
  'node.kubernetes.io/unschedulable:NoSchedule',
].map((t) => {
  const [key, effect] = t.split(':');
  return { key, operator: 'Exists', effect };
});

/**
 * The workloads of `docs` that control another object of `docs`
 * (ownerReferences with `controller: true`, matched by uid when both sides
 * have one, else by kind and name in the same namespace), in one pass over
 * the references: a dump of 20k pods costs 20k lookups, not 20k × workloads.
 */
function controllingWorkloads(docs: readonly Obj[]): Set<Obj> {
  const ns = (o: Obj) => (o.metadata.namespace as string | undefined) ?? 'default';
  const nameOf = (kind: unknown, namespace: string, name: unknown) => JSON.stringify([kind, namespace, name]);
  const uids = new Set<string>();
  /** Kind, namespace and name of references without a uid, and of those with one. */
  const namedBare = new Set<string>();
  const namedWithUid = new Set<string>();
  for (const child of docs) {
    const refs = Array.isArray(child.metadata.ownerReferences) ? (child.metadata.ownerReferences as unknown[]) : [];
    for (const raw of refs) {
      const r = obj(raw);
      if (r.controller !== true) continue;
      const name = nameOf(r.kind, ns(child), r.name);
      if (typeof r.uid === 'string' && r.uid !== '') {
        uids.add(r.uid);
        namedWithUid.add(name);
      } else namedBare.add(name);
    }
  }
  const out = new Set<Obj>();
  for (const d of docs) {
    if (!WORKLOADS.has(d.kind)) continue;
    const name = nameOf(d.kind, ns(d), d.metadata.name);
    const uid = d.metadata.uid;
    const controls =
      typeof uid === 'string' && uid !== ''
        ? uids.has(uid) || namedBare.has(name)
        : namedBare.has(name) || namedWithUid.has(name);
    if (controls) out.add(d);
  }
  return out;
}

/**
 * @example expandObjects([{ kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2, template: {...} } }], {})
 *   .objects.filter((o) => o.kind === 'Pod').map((o) => o.metadata.name) // ['web-<hash>-<5>', 'web-<hash>-<5>']
 */
export function expandObjects(input: readonly Readonly<Record<string, unknown>>[], opts: ExpandOptions): Expanded {
  const docs = input.map((o) => structuredClone(o) as Obj);
  const nodes: SchedNode[] = [...(opts.existingNodes ?? [])];
  const addNode = (n: SchedNode) => {
    const i = nodes.findIndex((x) => x.name === n.name);
    if (i < 0) nodes.push(n);
    else nodes[i] = n;
  };
  for (const d of docs) if (d.kind === 'Node') addNode(schedNode(d));
  const generatedNodes: Obj[] = [];
  const generate = (name: string) => {
    const node: Obj = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    };
    generatedNodes.push(node);
    addNode(schedNode(node));
  };
  for (const d of docs) {
    const name = obj(d.spec).nodeName;
    if (d.kind === 'Pod' && typeof name === 'string' && name !== '' && !nodes.some((n) => n.name === name))
      generate(name);
  }
  if (nodes.length === 0) for (let i = 1; i <= (opts.nodes ?? 2); i++) generate(`kovn-node-${i}`);
  // A workload whose controlled objects are in the input (a `kubectl get -A -o yaml` dump holds the
  // Deployment, its ReplicaSet and its pods) is not expanded again: its objects stand for it.
  const parents = controllingWorkloads(docs);
  const rest: KubeObject[] = [];
  let total = 0;
  for (const d of docs) {
    if (!WORKLOADS.has(d.kind)) {
      rest.push(d as unknown as KubeObject);
      if (d.kind === 'Pod') total++;
      continue;
    }
    if (parents.has(d)) continue;
    const fits =
      d.kind === 'DaemonSet'
        ? nodes.filter((n) => unfit(daemonSetPodSpec(d), n) === undefined).map((n) => n.name)
        : nodes.map((n) => n.name);
    const pods = workloadPods(d, fits);
    total += pods.length;
    if (total > MAX_PODS)
      throw new ExpandError(
        'too-many-pods',
        `${d.kind}/${(d.metadata.namespace as string | undefined) ?? 'default'}/${d.metadata.name}`,
        'spec',
        `the scenario expands to more than kovn's limit of ${MAX_PODS} pods`,
      );
    rest.push(...pods);
  }
  const warnings: Warning[] = [];
  const scheduler = new RoundRobin(nodes);
  const scheduled = rest.map((o) => {
    if (o.kind !== 'Pod' || obj(o.spec).nodeName) return o;
    const placed = scheduler.place(obj(o.spec));
    if ('node' in placed) return { ...o, spec: { ...obj(o.spec), nodeName: placed.node } };
    warnings.push({
      code: 'FailedScheduling',
      kind: 'Pod',
      namespace: o.metadata.namespace ?? 'default',
      name: o.metadata.name,
      field: 'spec',
      message: `${placed.reason}: the pod stays pending, with no interface`,
    });
    return o;
  });
  const withDefaults = scheduled.map((o) => withApiDefaults(o));
  const assigned = assignClusterIPs(
    withDefaults,
    opts.serviceCIDR ?? '10.96.0.0/12',
    opts.takenServiceIPs ?? new Set(),
  );
  const namespaces = new Set(['default', 'kube-system']);
  for (const o of assigned) if (NAMESPACED.has(o.kind)) namespaces.add(o.metadata.namespace ?? 'default');
  const given = new Set(assigned.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name));
  const nsObjects: KubeObject[] = [...namespaces]
    .filter((n) => !given.has(n))
    .map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  const all = [...nsObjects, ...(generatedNodes as unknown as KubeObject[]), ...assigned];
  const rank = (k: string) => (FIRST.includes(k) ? FIRST.indexOf(k) : FIRST.length);
  const ordered = all.map((o, i) => ({ o, i })).sort((a, b) => rank(a.o.kind) - rank(b.o.kind) || a.i - b.i);
  return { objects: ordered.map((x) => x.o), nodes, warnings };
}

/** A DaemonSet's pod template spec with the tolerations its controller adds. */
function daemonSetPodSpec(d: Obj): Readonly<Record<string, unknown>> {
  const spec = obj(obj(obj(d.spec).template).spec);
  const own = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  return { ...spec, tolerations: [...own, ...DAEMONSET_TOLERATIONS] };
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

/**
 * The EndpointSlices kube-controller-manager would keep for a Service with a
 * selector: ready pods with an address, grouped by their resolved target
 * ports (a named target port can differ per pod), one slice per group and
 * family.
 */
export function endpointSlicesFor(svcObj: KubeObject, pods: readonly KubeObject[]): KubeObject[] {
  const svc: ServiceView = decodeService(svcObj).value;
  if (svc.selector === undefined) return [];
  const sel = { matchLabels: svc.selector, matchExpressions: [] };
  const groups = new Map<string, { ports: { name: string; port: number; protocol: string }[]; pods: PodView[] }>();
  for (const o of pods) {
    const p = decodePod(o).value;
    if (p.namespace !== svc.namespace || !selects(sel, p.labels) || p.deleting) continue;
    if (p.phase === 'Succeeded' || p.phase === 'Failed' || !p.annotations['ovn.kubernetes.io/ip_address']) continue;
    const ports: { name: string; port: number; protocol: string }[] = [];
    for (const sp of svc.ports) {
      const t = sp.targetPort ?? sp.port;
      const port =
        typeof t === 'number' ? t : p.ports.find((c) => c.name === t && c.protocol === sp.protocol)?.containerPort;
      if (port !== undefined) ports.push({ name: sp.name ?? '', port, protocol: sp.protocol });
    }
    const key = JSON.stringify(ports);
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { ports, pods: [] }));
    g.pods.push(p);
  }
  const out: KubeObject[] = [];
  for (const [key, g] of [...groups].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    for (const family of ['IPv4', 'IPv6'] as const) {
      const endpoints = g.pods.flatMap((p) => {
        const ip = p.annotations['ovn.kubernetes.io/ip_address']!.split(',').find((a) => {
          const parsed = tryParseIP(a);
          return parsed !== undefined && (parsed.family === 6) === (family === 'IPv6');
        });
        return ip
          ? [
              {
                addresses: [ip],
                conditions: { ready: p.ready },
                targetRef: { kind: 'Pod', namespace: p.namespace, name: p.name },
              },
            ]
          : [];
      });
      if (endpoints.length === 0) continue;
      out.push({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `${svc.name}-${suffix(`${svc.namespace}/${svc.name}/${key}/${family}`, 5)}`,
          namespace: svc.namespace,
          labels: { 'kubernetes.io/service-name': svc.name, 'endpointslice.kubernetes.io/managed-by': 'kovn' },
        },
        addressType: family,
        ports: g.ports,
        endpoints,
      });
    }
  }
  return out;
}

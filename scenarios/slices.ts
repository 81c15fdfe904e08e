/**
 * The EndpointSlices kube-controller-manager would keep for the scenario's
 * Services with a selector and no slice of their own: from the ready pods'
 * addresses once the controller gave them, named target ports resolved per
 * pod. Kept here, not in the cluster: the addresses are the network
 * controller's annotations (the cluster has no kubelet to report them).
 */
import { tryParseIP } from '../model/addr/index.ts';
import { decodePodNetwork } from '../kube/annotations.ts';
import type { MemoryCluster } from '../kube/cluster/memory.ts';
import { type KubeObject, refOf } from '../kube/cluster/types.ts';
import { suffix } from '../kube/cluster/workloads.ts';
import { decodePod, decodeService, type PodView, selects, type ServiceView } from '../kube/objects/objects.ts';

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
  const groups = new Map<
    string,
    { ports: { name: string; port: number; protocol: string }[]; pods: { pod: PodView; ips: readonly string[] }[] }
  >();
  for (const o of pods) {
    const p = decodePod(o).value;
    if (p.namespace !== svc.namespace || !selects(sel, p.labels) || p.deleting) continue;
    // The addresses the network controller gave (the pod annotation contract, kube/annotations.ts).
    const net = decodePodNetwork(p.annotations);
    if (p.phase === 'Succeeded' || p.phase === 'Failed' || !net.ok) continue;
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
    g.pods.push({ pod: p, ips: net.value.ips });
  }
  const out: KubeObject[] = [];
  for (const [key, g] of [...groups].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    for (const family of ['IPv4', 'IPv6'] as const) {
      const endpoints = g.pods.flatMap(({ pod: p, ips }) => {
        const ip = ips.find((a) => {
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

/**
 * Keeps derived EndpointSlices in step with the pods (kube-controller-manager's part).
 *
 * @example await syncSlices(cluster, new Set(['shop/web'])) // slices of every other Service with a selector
 */
export async function syncSlices(cluster: MemoryCluster, given: ReadonlySet<string>): Promise<void> {
  const pods = (await cluster.list('Pod')).items;
  const have = (await cluster.list('EndpointSlice')).items.filter(
    (o) => o.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === 'kovn',
  );
  // A Service selects pods of its own namespace only: each Service looks at those, not at every pod of the cluster.
  const byNamespace = new Map<string, KubeObject[]>();
  for (const p of pods) {
    const ns = p.metadata.namespace ?? 'default';
    const list = byNamespace.get(ns);
    if (list === undefined) byNamespace.set(ns, [p]);
    else list.push(p);
  }
  const want = new Map<string, KubeObject>();
  for (const svc of (await cluster.list('Service')).items) {
    if (given.has(`${svc.metadata.namespace}/${svc.metadata.name}`)) continue;
    const mine = byNamespace.get(svc.metadata.namespace ?? 'default') ?? [];
    for (const sl of endpointSlicesFor(svc, mine)) want.set(`${sl.metadata.namespace}/${sl.metadata.name}`, sl);
  }
  for (const o of have) {
    const k = `${o.metadata.namespace}/${o.metadata.name}`;
    const w = want.get(k);
    if (w === undefined) await cluster.delete(refOf(o));
    else if (JSON.stringify({ p: o.ports, e: o.endpoints }) !== JSON.stringify({ p: w.ports, e: w.endpoints }))
      await cluster.update({ ...w, metadata: { ...w.metadata } });
    want.delete(k);
  }
  for (const w of want.values()) await cluster.create(w);
}

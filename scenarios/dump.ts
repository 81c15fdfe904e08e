/**
 * What a `kubectl get -A -o yaml` dump holds besides its workloads: the
 * objects they made. A workload whose controlled objects are in the input is
 * read as the dump holds it, its objects standing for it, never expanded a
 * second time.
 */
import { WORKLOAD_KINDS } from '../kube/cluster/workloads.ts';

type Doc = Record<string, unknown> & { kind: string; metadata: Record<string, unknown> };

const rec = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * The workloads of `docs` that control another object of `docs`
 * (ownerReferences with `controller: true`, matched by uid when both sides
 * have one, else by kind and name in the same namespace), in one pass over
 * the references: a dump of 20k pods costs 20k lookups, not 20k × workloads.
 *
 * @example controllingWorkloads([deployment, itsReplicaSet, itsPod]) // Set { deployment, itsReplicaSet }
 */
export function controllingWorkloads<T extends Doc>(docs: readonly T[]): Set<T> {
  const ns = (o: Doc) => (o.metadata.namespace as string | undefined) ?? 'default';
  const nameOf = (kind: unknown, namespace: string, name: unknown) => JSON.stringify([kind, namespace, name]);
  const uids = new Set<string>();
  /** Kind, namespace and name of references without a uid, and of those with one. */
  const namedBare = new Set<string>();
  const namedWithUid = new Set<string>();
  for (const child of docs) {
    const refs = Array.isArray(child.metadata.ownerReferences) ? (child.metadata.ownerReferences as unknown[]) : [];
    for (const raw of refs) {
      const r = rec(raw);
      if (r.controller !== true) continue;
      const name = nameOf(r.kind, ns(child), r.name);
      if (typeof r.uid === 'string' && r.uid !== '') {
        uids.add(r.uid);
        namedWithUid.add(name);
      } else namedBare.add(name);
    }
  }
  const out = new Set<T>();
  for (const d of docs) {
    if (!WORKLOAD_KINDS.has(d.kind)) continue;
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

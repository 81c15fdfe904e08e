/**
 * Where a kind's objects live in the Kubernetes REST API, from the registry
 * (../../registry.ts): `/api/v1/namespaces/<ns>/pods/<name>` for the core
 * group, `/apis/<group>/<version>/...` for the others, no namespace segment
 * for cluster-scoped kinds.
 */
import { apiVersionOf, kindDef } from '../../registry.ts';
import { ClusterError, type ObjectRef } from '../types.ts';

export interface KindPath {
  readonly kind: string;
  readonly apiVersion: string;
  readonly namespaced: boolean;
  /** `/api/v1` or `/apis/<group>/<version>`. */
  readonly base: string;
  readonly plural: string;
}

/**
 * @example kindPath('NetworkPolicy').base // '/apis/networking.k8s.io/v1'
 */
export function kindPath(kind: string): KindPath {
  const def = kindDef(kind);
  if (def === undefined)
    throw new ClusterError('Invalid', { kind, name: '' }, `${kind}: not a kind kovn knows (kube/registry.ts)`, 'kind');
  const apiVersion = apiVersionOf(def);
  return {
    kind,
    apiVersion,
    namespaced: def.namespaced,
    base: def.group === '' ? `/api/${def.version}` : `/apis/${apiVersion}`,
    plural: def.plural,
  };
}

/**
 * The collection of a kind, in one namespace or (none given) all of them.
 *
 * @example collectionPath(kindPath('Pod'), 'shop') // '/api/v1/namespaces/shop/pods'
 * @example collectionPath(kindPath('Pod')) // '/api/v1/pods'
 */
export function collectionPath(k: KindPath, namespace?: string): string {
  return k.namespaced && namespace !== undefined && namespace !== ''
    ? `${k.base}/namespaces/${encodeURIComponent(namespace)}/${k.plural}`
    : `${k.base}/${k.plural}`;
}

/**
 * An object's path (namespaced kinds default to `default`, as the API's clients do), with a subresource.
 *
 * @example objectPath(kindPath('Subnet'), { kind: 'Subnet', name: 'net1' }, 'status') // '/apis/kubeovn.io/v1/subnets/net1/status'
 */
export function objectPath(k: KindPath, ref: ObjectRef, subresource?: 'status'): string {
  if (!k.namespaced && ref.namespace)
    throw new ClusterError(
      'Invalid',
      ref,
      `${k.kind} ${ref.name}: cluster-scoped, takes no namespace`,
      'metadata.namespace',
    );
  const ns = k.namespaced ? ref.namespace || 'default' : undefined;
  const path = `${collectionPath(k, ns)}/${encodeURIComponent(ref.name)}`;
  return subresource === undefined ? path : `${path}/${subresource}`;
}

/**
 * A query string from the parameters that are set (`?` included when any is).
 *
 * @example query({ watch: '1', labelSelector: undefined }) // '?watch=1'
 */
export function query(params: Readonly<Record<string, string | undefined>>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}

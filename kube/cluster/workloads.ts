/**
 * What the workload controllers of the in-memory cluster make, named as the
 * Kubernetes controllers name them, deterministically: Deployment `web` →
 * ReplicaSet `web-<hash>` → pods `web-<hash>-<5>`; ReplicaSet and Job pods
 * `<name>-<5>`; StatefulSet pods `<name>-<i>`; DaemonSet pods
 * `<name>-<5>`, one per node. Hashes come from names (FNV-1a), in
 * Kubernetes' consonant alphabet, never from randomness, so a scenario
 * always names the same pods.
 */
import { isPlainObject } from './json.ts';
import type { KubeObject, OwnerReference } from './types.ts';

type Obj = Readonly<Record<string, unknown>>;

export const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});

/** The kinds whose controllers make pods: the registry's `workload` role. */
export { WORKLOAD_KINDS } from '../registry.ts';

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * `n` characters of Kubernetes' safe alphabet from a hash of `seed`.
 *
 * @example suffix('shop/web/template', 10) // '9jwrnlsw9q'
 */
export function suffix(seed: string, n: number): string {
  let h = fnv(seed);
  let out = '';
  for (let i = 0; i < n; i++) {
    if (h < ALPHABET.length) h = fnv(`${seed}/${i}`);
    out += ALPHABET[h % ALPHABET.length];
    h = Math.floor(h / ALPHABET.length);
  }
  return out;
}

/**
 * A count field (`spec.replicas`, `spec.parallelism`, `spec.completions`)
 * as the API server validates it: an int32 ≥ 0, `fallback` when absent;
 * undefined when the API server would refuse it.
 *
 * @example countField({ spec: { replicas: 3 } }, 'replicas', 1) // 3
 */
export function countField(w: object, field: string, fallback: number): number | undefined {
  const v = obj((w as { spec?: unknown }).spec)[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 2_147_483_647) return undefined;
  return v;
}

/** How many pods a Job runs at once while none has finished (pods never finish in the simulation). */
export function jobActive(job: object): number {
  const parallelism = countField(job, 'parallelism', 1) ?? 0;
  const completions = countField(job, 'completions', parallelism) ?? 0;
  return Math.min(parallelism, completions);
}

/** The controller reference a workload puts on what it makes. */
export function controllerRef(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion || (owner.kind === 'Job' ? 'batch/v1' : 'apps/v1'),
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid ?? '',
    controller: true,
  };
}

/** The controller reference of `o`, if any (`controller: true`). */
export const controllerOf = (o: KubeObject): OwnerReference | undefined =>
  (o.metadata.ownerReferences ?? []).find((r) => r.controller === true);

/**
 * A pod from a workload's template, in its namespace, with the workload as
 * its controller.
 *
 * @example podFromTemplate(sts, 'db-0', { 'statefulset.kubernetes.io/pod-name': 'db-0' })
 */
export function podFromTemplate(
  owner: KubeObject,
  name: string,
  extraLabels: Readonly<Record<string, string>>,
  nodeName?: string,
): KubeObject {
  const template = obj(obj(owner.spec).template);
  const tmeta = obj(template.metadata);
  const spec = { ...obj(template.spec), ...(nodeName ? { nodeName } : {}) };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: owner.metadata.namespace ?? 'default',
      labels: { ...(obj(tmeta.labels) as Record<string, string>), ...extraLabels },
      ...(isPlainObject(tmeta.annotations)
        ? { annotations: { ...(tmeta.annotations as Record<string, string>) } }
        : {}),
      ownerReferences: [controllerRef(owner)],
    },
    spec,
  };
}

/**
 * The pod-template-hash of a Deployment's ReplicaSet: the first from the
 * Deployment's namespace and name (the names scenarios were written with),
 * a later one (after a template change) from the template too, so each
 * template has its own ReplicaSet.
 *
 * @example templateHash(deploy, false) // suffix('shop/web/template', 10)
 */
export function templateHash(d: KubeObject, first: boolean): string {
  const seed = `${d.metadata.namespace ?? 'default'}/${d.metadata.name}/template`;
  return suffix(first ? seed : `${seed}/${canonical(obj(d.spec).template)}`, 10);
}

/** JSON with keys sorted, so equal templates hash alike. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isPlainObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** Whether a ReplicaSet's template is the Deployment's (ignoring the pod-template-hash label). */
export function sameTemplate(rs: KubeObject, d: KubeObject): boolean {
  const strip = (t: unknown) => {
    const m = obj(obj(t).metadata);
    const { 'pod-template-hash': _h, ...labels } = obj(m.labels);
    return canonical({ ...obj(t), metadata: { ...m, labels } });
  };
  return strip(obj(rs.spec).template) === strip(obj(d.spec).template);
}

/** The ReplicaSet a Deployment makes for its template. */
export function replicaSetFor(d: KubeObject, hash: string): KubeObject {
  const spec = obj(d.spec);
  const template = obj(spec.template);
  const tmeta = obj(template.metadata);
  const selector = obj(spec.selector);
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name}-${hash}`,
      namespace: d.metadata.namespace ?? 'default',
      labels: { ...(obj(tmeta.labels) as Record<string, string>), 'pod-template-hash': hash },
      ownerReferences: [controllerRef(d)],
    },
    spec: {
      replicas: countField(d, 'replicas', 1) ?? 0,
      selector: { ...selector, matchLabels: { ...obj(selector.matchLabels), 'pod-template-hash': hash } },
      template: { ...template, metadata: { ...tmeta, labels: { ...obj(tmeta.labels), 'pod-template-hash': hash } } },
    },
  };
}

/** The `i`th pod name of a ReplicaSet or a Job. */
export const indexedPodName = (w: KubeObject, i: number): string =>
  `${w.metadata.name}-${suffix(`${w.metadata.namespace ?? 'default'}/${w.metadata.name}/${i}`, 5)}`;

/** A DaemonSet's pod name on `node`. */
export const daemonPodName = (ds: KubeObject, node: string): string =>
  `${ds.metadata.name}-${suffix(`${ds.metadata.namespace ?? 'default'}/${ds.metadata.name}/${node}`, 5)}`;

/** The labels a StatefulSet's controller puts on its pod `i`. */
export const statefulLabels = (name: string, i: number): Record<string, string> => ({
  'statefulset.kubernetes.io/pod-name': `${name}-${i}`,
  'apps.kubernetes.io/pod-index': String(i),
});

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

/** A DaemonSet's pod template spec with the tolerations its controller adds. */
export function daemonSetPodSpec(ds: object): Obj {
  const spec = obj(obj(obj((ds as { spec?: unknown }).spec).template).spec);
  const own = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  return { ...spec, tolerations: [...own, ...DAEMONSET_TOLERATIONS] };
}

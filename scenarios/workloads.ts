/**
 * Workloads as the Kubernetes controllers expand them into pods, named as
 * they name them, deterministically: Deployment `web` → ReplicaSet
 * `web-<hash>` → pods `web-<hash>-<5>`; ReplicaSet and Job pods `<name>-<5>`;
 * StatefulSet pods `<name>-<i>`; one DaemonSet pod per node its template
 * fits. Hashes come from the names (FNV-1a), in Kubernetes' consonant
 * alphabet, not from randomness. Counts are validated as Kubernetes does.
 */
import type { KubeObject } from '../kube/cluster/types.ts';

export type Obj = Record<string, unknown> & { kind: string; metadata: Record<string, unknown> & { name: string } };

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** `n` characters of Kubernetes' safe alphabet from a hash of `seed`. */
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

export const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export const WORKLOADS = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job']);

function podFromTemplate(
  w: Obj,
  name: string,
  ns: string,
  extraLabels: Record<string, string>,
  owner: { kind: string; name: string },
  nodeName?: string,
): KubeObject {
  const template = obj(obj(w.spec).template);
  const tmeta = obj(template.metadata);
  const spec = { ...obj(template.spec), ...(nodeName ? { nodeName } : {}) };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ns,
      labels: { ...(obj(tmeta.labels) as Record<string, string>), ...extraLabels },
      ...(tmeta.annotations ? { annotations: { ...(obj(tmeta.annotations) as Record<string, string>) } } : {}),
      ownerReferences: [
        { apiVersion: owner.kind === 'Job' ? 'batch/v1' : 'apps/v1', ...owner, uid: '', controller: true },
      ],
    },
    spec,
  };
}

/** The most pods a scenario may expand to: beyond, the run is refused with the number (memory, not correctness). */
export const MAX_PODS = 200_000;

/** A workload's object or field Kubernetes would refuse, or a scenario beyond {@link MAX_PODS}. */
export class ExpandError extends Error {
  override readonly name = 'ExpandError';
  constructor(
    readonly code: 'invalid-count' | 'too-many-pods',
    readonly object: string,
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** `spec.replicas` (or a Job's `spec.parallelism`) as Kubernetes validates it: an int32 ≥ 0, default 1. */
function countOf(w: Obj, field: 'replicas' | 'parallelism'): number {
  const v = obj(w.spec)[field];
  if (v === undefined || v === null) return 1;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 2_147_483_647) {
    const id = `${w.kind}/${(w.metadata.namespace as string | undefined) ?? 'default'}/${w.metadata.name}`;
    throw new ExpandError(
      'invalid-count',
      id,
      `spec.${field}`,
      `${id}: spec.${field} must be a whole number 0..2147483647, got ${typeof v === 'number' ? String(v) : JSON.stringify(v)}`,
    );
  }
  return v;
}

/** The pods a workload makes (nodes: for DaemonSets, those its pod template fits). */
export function workloadPods(w: Obj, nodes: readonly string[]): KubeObject[] {
  const ns = (w.metadata.namespace as string | undefined) ?? 'default';
  const name = w.metadata.name;
  const replicas =
    w.kind === 'Deployment' || w.kind === 'ReplicaSet' || w.kind === 'StatefulSet' ? countOf(w, 'replicas') : 0;
  if (replicas > MAX_PODS)
    throw new ExpandError(
      'too-many-pods',
      `${w.kind}/${ns}/${name}`,
      'spec.replicas',
      `${w.kind}/${ns}/${name}: ${replicas} replicas exceed kovn's limit of ${MAX_PODS} pods per scenario`,
    );
  const out: KubeObject[] = [];
  switch (w.kind) {
    case 'Deployment': {
      const hash = suffix(`${ns}/${name}/template`, 10);
      const rs = `${name}-${hash}`;
      for (let i = 0; i < replicas; i++)
        out.push(
          podFromTemplate(
            w,
            `${rs}-${suffix(`${ns}/${rs}/${i}`, 5)}`,
            ns,
            { 'pod-template-hash': hash },
            {
              kind: 'ReplicaSet',
              name: rs,
            },
          ),
        );
      break;
    }
    case 'ReplicaSet':
      for (let i = 0; i < replicas; i++)
        out.push(podFromTemplate(w, `${name}-${suffix(`${ns}/${name}/${i}`, 5)}`, ns, {}, { kind: w.kind, name }));
      break;
    case 'StatefulSet':
      for (let i = 0; i < replicas; i++) {
        const pod = `${name}-${i}`;
        out.push(
          podFromTemplate(
            w,
            pod,
            ns,
            { 'statefulset.kubernetes.io/pod-name': pod, 'apps.kubernetes.io/pod-index': String(i) },
            { kind: w.kind, name },
          ),
        );
      }
      break;
    case 'DaemonSet':
      // `nodes`: those the template fits (expandObjects); the pod names its node, as the DaemonSet controller does.
      for (const node of nodes)
        out.push(
          podFromTemplate(w, `${name}-${suffix(`${ns}/${name}/${node}`, 5)}`, ns, {}, { kind: w.kind, name }, node),
        );
      break;
    case 'Job': {
      const n = countOf(w, 'parallelism');
      if (n > MAX_PODS)
        throw new ExpandError(
          'too-many-pods',
          `Job/${ns}/${name}`,
          'spec.parallelism',
          `Job/${ns}/${name}: ${n} pods exceed kovn's limit of ${MAX_PODS} pods per scenario`,
        );
      for (let i = 0; i < n; i++)
        out.push(
          podFromTemplate(
            w,
            `${name}-${suffix(`${ns}/${name}/${i}`, 5)}`,
            ns,
            { 'job-name': name },
            { kind: w.kind, name },
          ),
        );
      break;
    }
  }
  return out;
}

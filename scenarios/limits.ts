/**
 * The guard rails of loading a scenario: workload counts as the API server
 * validates them, and at most MAX_PODS pods, checked before anything is
 * created (memory, not correctness).
 */
import { type SchedNode, unfit } from '../kube/cluster/scheduler.ts';
import { countField, daemonSetPodSpec, obj } from '../kube/cluster/workloads.ts';

type Doc = Record<string, unknown> & { kind: string; metadata: Record<string, unknown> & { name: string } };

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

/** `Kind/namespace/name`, as errors name a workload. */
const idOf = (d: Doc) => `${d.kind}/${(d.metadata.namespace as string | undefined) ?? 'default'}/${d.metadata.name}`;

/** A workload's count as Kubernetes validates it, or ExpandError naming the field. */
function count(d: Doc, field: string, fallback: number): number {
  const n = countField(d, field, fallback);
  if (n !== undefined) return n;
  const v = obj(d.spec)[field];
  throw new ExpandError(
    'invalid-count',
    idOf(d),
    `spec.${field}`,
    `${idOf(d)}: spec.${field} must be a whole number 0..2147483647, got ${typeof v === 'number' ? String(v) : JSON.stringify(v)}`,
  );
}

/**
 * The pods `docs` will make, checked against MAX_PODS before anything is written.
 *
 * @example checkCounts([deployment], nodes) // throws ExpandError 'invalid-count' for replicas: -1
 */
export function checkCounts(docs: readonly Doc[], nodes: readonly SchedNode[]): void {
  let total = 0;
  for (const d of docs) {
    let n = 0;
    if (d.kind === 'Pod') n = 1;
    else if (d.kind === 'Deployment' || d.kind === 'ReplicaSet' || d.kind === 'StatefulSet')
      n = count(d, 'replicas', 1);
    else if (d.kind === 'Job')
      n = Math.min(count(d, 'parallelism', 1), count(d, 'completions', count(d, 'parallelism', 1)));
    else if (d.kind === 'DaemonSet') n = nodes.filter((x) => unfit(daemonSetPodSpec(d), x) === undefined).length;
    if (n > MAX_PODS)
      throw new ExpandError(
        'too-many-pods',
        idOf(d),
        'spec.replicas',
        `${idOf(d)}: ${n} pods exceed kovn's limit of ${MAX_PODS} pods per scenario`,
      );
    total += n;
    if (total > MAX_PODS)
      throw new ExpandError(
        'too-many-pods',
        idOf(d),
        'spec',
        `the scenario expands to more than kovn's limit of ${MAX_PODS} pods`,
      );
  }
}

/**
 * The warnings of a scenario run (scenarios/run.ts): each once, and the
 * objects the API server refuses, reported as `kubectl apply` reports them.
 */
import { ClusterError, type KubeObject } from '../kube/cluster/types.ts';
import { ownScope, type Warning } from '../kube/objects/warnings.ts';

/**
 * The run's warnings, each once (a warning of step 0 still in force at step 2 is one warning).
 *
 * @example const w = new Warnings(); w.add([x]); w.add([x]); w.current() // [x]
 */
export class Warnings {
  private readonly seen = new Map<string, Warning>();
  add(list: readonly Warning[]): void {
    for (const w of list) {
      const id = JSON.stringify([w.code, w.kind, w.namespace, w.name, w.field, w.message]);
      if (!this.seen.has(id)) this.seen.set(id, w);
    }
  }
  current(): Warning[] {
    return [...this.seen.values()];
  }
}

/**
 * Runs a cluster write; an object the API server refuses (`Invalid`: a bad
 * name) becomes an `InvalidObject` warning and `null`, as `kubectl apply`
 * reports it and goes on with the others.
 *
 * @example await refusedAsWarning(warnings, o, () => cluster.create(o)) // null when refused, with a warning added
 */
export async function refusedAsWarning<T>(
  warnings: Warnings,
  o: KubeObject,
  write: () => Promise<T>,
): Promise<T | null> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof ClusterError) || err.reason !== 'Invalid') throw err;
    warnings.add([
      {
        code: 'InvalidObject',
        kind: o.kind,
        namespace: o.metadata.namespace ?? '',
        name: o.metadata.name,
        field: err.field ?? '',
        message: `refused, as the API server refuses it: ${err.message}`,
        // What it was meant to change may be what a probe depends on.
        scope: ownScope(o.kind, o.metadata.namespace ?? '', o.metadata.name),
      },
    ]);
    return null;
  }
}

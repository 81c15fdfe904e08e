/**
 * A scenario whose objects come from a running cluster (`--kubeconfig`,
 * `--server`: `kovn sim serve` or any API server) instead of files: every
 * object of the kinds kovn reads (the watched kinds and the workloads) is
 * listed through the API and taken as a dump is (docs/architecture.md,
 * "Dumps are read as clusters hold them": a workload whose pods are there
 * is not expanded again; pods keep the addresses their annotations say).
 * The probes, steps and cluster settings come from a scenario file when one
 * is given; the file's own objects are not read (the cluster's stand for
 * them).
 *
 * EndpointSlices the runner itself derived (`kovn sim serve` keeps them so:
 * label `endpointslice.kubernetes.io/managed-by: kovn`, scenarios/slices.ts)
 * are left out and derived again from the same pods: taken as given, the
 * run's own derivation would delete them as stale and derive none for their
 * Services.
 */
import { creationOrder } from '../controller/handlers/context.ts';
import type { ClusterSource } from '../kube/cluster/types.ts';
import { WATCHED_KINDS, WORKLOAD_KINDS } from '../kube/registry.ts';
import type { LoadedObject, LoadedScenario } from './load.ts';

/** Kinds the others need first; subnets in creation order. */
const FIRST = ['Namespace', 'Node', 'Vpc', 'Subnet', 'IPPool'];

const MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';

/**
 * @example
 * const s = await scenarioFromCluster(source, 'https://127.0.0.1:6443', loadScenario('scenarios/quickstart.yaml'));
 * s.objects.length; // what the cluster holds now; s.expect: the file's probes
 */
export async function scenarioFromCluster(
  source: ClusterSource,
  where: string,
  file?: LoadedScenario,
): Promise<LoadedScenario> {
  const kinds = [
    ...FIRST,
    ...WATCHED_KINDS.filter((k) => !FIRST.includes(k)),
    ...[...WORKLOAD_KINDS].filter((k) => !FIRST.includes(k)),
  ];
  const objects: LoadedObject[] = [];
  for (const kind of kinds) {
    const { items } = await source.list(kind);
    for (const o of creationOrder(items)) {
      if (kind === 'EndpointSlice' && o.metadata.labels?.[MANAGED_BY] === 'kovn') continue;
      objects.push({
        object: o as unknown as Record<string, unknown>,
        kind,
        source: { file: where, doc: objects.length, line: 0 },
      });
    }
  }
  return {
    name: file?.name ?? where,
    objects,
    cluster: file?.cluster ?? {},
    expect: file?.expect ?? [],
    steps: file?.steps ?? [],
    hosts: file?.hosts ?? [],
    warnings: [],
  };
}

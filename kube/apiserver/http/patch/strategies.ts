/**
 * The patch strategies of the built-in kinds kovn serves, as their Go types
 * declare them (`patchStrategy:"merge" patchMergeKey:"name"` and
 * `retainKeys`): a list with a merge key is merged element by element, a
 * list of scalars with `merge` is a set, every other list is replaced. They
 * are found by the field's place, its path without list indexes, matched
 * from the end (`containers` is merged by name in a Pod's spec and in every
 * workload's pod template alike); a rule with `root` matches the whole path
 * only (a Service's `spec.ports` merges by port, a NetworkPolicy rule's
 * `ports` is replaced).
 */

/** How a field is patched; no strategy (undefined) means a list is replaced as a whole. */
export interface FieldStrategy {
  /** Merge a list of objects by this key. */
  readonly mergeKey?: string;
  /** Merge a list of scalars as a set (`finalizers`). */
  readonly set?: boolean;
  /** The field honours `$retainKeys` (a union: the keys not named are cleared). */
  readonly retainKeys?: boolean;
}

interface Rule extends FieldStrategy {
  readonly suffix: readonly string[];
  /** The suffix is the whole path (a field of the object itself). */
  readonly root?: boolean;
}

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'];

const RULES: readonly Rule[] = [
  // ObjectMeta's, wherever it is (a pod template's, a volume claim template's).
  { suffix: ['metadata', 'ownerReferences'], mergeKey: 'uid' },
  { suffix: ['metadata', 'finalizers'], set: true },
  ...CONTAINER_LISTS.map((c) => ({ suffix: [c], mergeKey: 'name' })),
  ...CONTAINER_LISTS.map((c) => ({ suffix: [c, 'ports'], mergeKey: 'containerPort' })),
  ...CONTAINER_LISTS.map((c) => ({ suffix: [c, 'env'], mergeKey: 'name' })),
  ...CONTAINER_LISTS.map((c) => ({ suffix: [c, 'volumeMounts'], mergeKey: 'mountPath' })),
  ...CONTAINER_LISTS.map((c) => ({ suffix: [c, 'volumeDevices'], mergeKey: 'devicePath' })),
  { suffix: ['volumes'], mergeKey: 'name', retainKeys: true },
  // A pod spec's (a ServiceAccount's imagePullSecrets are replaced; its secrets merge by name).
  { suffix: ['spec', 'imagePullSecrets'], mergeKey: 'name' },
  { suffix: ['secrets'], root: true, mergeKey: 'name' },
  { suffix: ['hostAliases'], mergeKey: 'ip' },
  { suffix: ['topologySpreadConstraints'], mergeKey: 'topologyKey' },
  { suffix: ['schedulingGates'], mergeKey: 'name' },
  { suffix: ['resourceClaims'], mergeKey: 'name' },
  // Service
  { suffix: ['spec', 'ports'], root: true, mergeKey: 'port' },
  // Node
  { suffix: ['spec', 'podCIDRs'], root: true, set: true },
  { suffix: ['status', 'addresses'], root: true, mergeKey: 'type' },
  // Pod
  { suffix: ['status', 'podIPs'], root: true, mergeKey: 'ip' },
  // Pod, Node, workloads
  { suffix: ['status', 'conditions'], root: true, mergeKey: 'type' },
  // Deployment, DaemonSet, StatefulSet: the update strategy is a union
  { suffix: ['spec', 'strategy'], root: true, retainKeys: true },
  { suffix: ['spec', 'updateStrategy'], root: true, retainKeys: true },
];

/**
 * The strategy of the field at `path` (keys only, list indexes left out).
 *
 * @example strategyOf(['spec', 'template', 'spec', 'containers']) // { mergeKey: 'name' }
 */
export function strategyOf(path: readonly string[]): FieldStrategy | undefined {
  for (const r of RULES) {
    if (r.root ? path.length !== r.suffix.length : path.length < r.suffix.length) continue;
    const off = path.length - r.suffix.length;
    if (r.suffix.every((s, i) => path[off + i] === s)) return r;
  }
  return undefined;
}

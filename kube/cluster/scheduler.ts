/**
 * The in-memory cluster's scheduler, in small (kube-scheduler's filters,
 * without its scoring): a pod goes to a node that fits it, round-robin among
 * those in the order the nodes were created (a scenario's document order).
 * A node fits when it
 * - is not `spec.unschedulable` (cordoned), unless the pod tolerates
 *   `node.kubernetes.io/unschedulable:NoSchedule` (DaemonSet pods do);
 * - has every label of the pod's `nodeSelector`;
 * - matches one term of `requiredDuringSchedulingIgnoredDuringExecution`
 *   node affinity (matchExpressions on labels: In, NotIn, Exists,
 *   DoesNotExist, Gt, Lt; matchFields on metadata.name);
 * - has no `NoSchedule`/`NoExecute` taint the pod does not tolerate.
 * A pod no node fits stays pending (no `nodeName`), with a
 * `FailedScheduling` warning: it has no interface, so probes to or from it
 * are denied, as in a cluster. Preferences and inter-pod (anti-)affinity
 * are not honoured; the Pod's support table says so (kube/objects/support/pod.ts).
 */
import { labelValue, requirementHolds } from './requirement.ts';
import { isPlainObject } from './json.ts';

type Obj = Readonly<Record<string, unknown>>;

const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strMap = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(obj(v))) if (typeof x === 'string') out[k] = x;
  return out;
};

export interface SchedNode {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly { readonly key: string; readonly value: string; readonly effect: string }[];
  readonly unschedulable: boolean;
}

/** A Node object (or a generated one) as the scheduler sees it. */
export function schedNode(o: Obj): SchedNode {
  const meta = obj(o.metadata);
  const spec = obj(o.spec);
  const name = typeof meta.name === 'string' ? meta.name : '';
  return {
    name,
    // The kubelet labels every node with its hostname.
    labels: { 'kubernetes.io/hostname': name, ...strMap(meta.labels) },
    taints: list(spec.taints).map((t) => {
      const r = obj(t);
      return {
        key: typeof r.key === 'string' ? r.key : '',
        value: typeof r.value === 'string' ? r.value : '',
        effect: typeof r.effect === 'string' ? r.effect : '',
      };
    }),
    unschedulable: spec.unschedulable === true,
  };
}

function requirementOf(req: Obj, value: string | undefined): boolean {
  return requirementHolds(req.operator, list(req.values), value);
}

function termHolds(term: Obj, node: SchedNode): boolean {
  const exprs = list(term.matchExpressions).map(obj);
  const fields = list(term.matchFields).map(obj);
  // An empty term matches no node (kube-scheduler's nodeaffinity).
  if (exprs.length === 0 && fields.length === 0) return false;
  return (
    exprs.every((e) => typeof e.key === 'string' && requirementOf(e, labelValue(node.labels, e.key))) &&
    fields.every((f) => f.key === 'metadata.name' && requirementOf(f, node.name))
  );
}

function tolerates(tolerations: readonly Obj[], taint: SchedNode['taints'][number]): boolean {
  return tolerations.some((t) => {
    if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return t.key === undefined || t.key === '' || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === taint.value;
  });
}

/** The taint kube-scheduler's NodeUnschedulable filter checks a cordoned node's pods against. */
const CORDONED = { key: 'node.kubernetes.io/unschedulable', value: '', effect: 'NoSchedule' } as const;

/** Why `node` does not fit the pod spec, or undefined when it does. */
export function unfit(podSpec: Obj, node: SchedNode): string | undefined {
  const tolerations = list(podSpec.tolerations).map(obj);
  if (node.unschedulable && !tolerates(tolerations, CORDONED)) return 'unschedulable';
  for (const [k, v] of Object.entries(strMap(podSpec.nodeSelector)))
    if (node.labels[k] !== v) return `nodeSelector ${k}=${v}`;
  const required = obj(obj(obj(podSpec.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution);
  const terms = list(required.nodeSelectorTerms).map(obj);
  if (Object.keys(required).length > 0 && !terms.some((t) => termHolds(t, node))) return 'node affinity';
  for (const taint of node.taints)
    if ((taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !tolerates(tolerations, taint))
      return `taint ${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`;
  return undefined;
}

/**
 * Round-robin among fitting nodes, in creation order. One counter for the
 * cluster's life: the scheduler is one process, and a later step's pods go on
 * from where the earlier ones stopped.
 *
 * @example new RoundRobin().place(podSpec, nodes) // { node: 'kovn-node-1' } or { reason: '0/2 nodes are available: ...' }
 */
export class RoundRobin {
  private next = 0;

  /** The node for a pod spec, or why none fits (each node's reason, summarized). */
  place(podSpec: Obj, nodes: readonly SchedNode[]): { node: string } | { reason: string } {
    const fits = nodes.filter((n) => unfit(podSpec, n) === undefined);
    if (fits.length === 0) {
      const why = new Map<string, number>();
      for (const n of nodes) {
        const r = unfit(podSpec, n) ?? '';
        why.set(r, (why.get(r) ?? 0) + 1);
      }
      const parts = [...why].map(([r, k]) => `${k} node(s) didn't match ${r}`);
      return { reason: `0/${nodes.length} nodes are available: ${parts.join(', ')}` };
    }
    // The counter walks all nodes, so a pod that fits everywhere goes where the creation order puts it.
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[(this.next + i) % nodes.length]!;
      if (fits.includes(n)) {
        this.next = (this.next + i + 1) % nodes.length;
        return { node: n.name };
      }
    }
    return { node: fits[0]!.name };
  }
}

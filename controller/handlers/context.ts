/**
 * What every handler is given: the caches (informers) it reads, the IPAM,
 * the committer it hands fragments to, the cluster it writes annotations,
 * status and events to, and `enqueue` for the objects a change affects.
 * Handlers are level-driven (docs/architecture.md, "How a change flows"):
 * each one computes its object's whole fragment from the caches, so a
 * missed or repeated event changes nothing.
 */
import type { IPAM, IpamIssue } from '../../model/ipam/index.ts';
import { WATCHED_KINDS, type WatchedKind } from '../../kube/registry.ts';
import type { ClusterSource, KubeObject, ObjectKey, ObjectRef } from '../../kube/cluster/types.ts';
import type { ControllerSettings } from '../config.ts';
import type { Committer } from '../desired/commit.ts';
import type { Problem } from '../diagnostics.ts';
import { type DecodeIssue, isBlocking } from '../../kube/objects/decode.ts';
import type { Decoded } from '../../kube/objects/objects.ts';
import type { VpcLoadBalancers } from '../translate/names.ts';

/** The kinds the controller watches (the registry's `watched` kinds), an informer each. */
export const KINDS = WATCHED_KINDS;
export type Kind = WatchedKind;

/** The index every namespaced kind's cache has: objects by namespace. */
export const NAMESPACE_INDEX = 'namespace';
/**
 * The index of the kinds that hold IPAM leases (pods, nodes): objects by
 * their IPAM owner key (`<pod>.<ns>`, `node-<name>`), so a lease's holder is
 * found without parsing its key.
 */
export const LEASE_INDEX = 'ipamOwner';

/** A read-only view of one kind's informer cache. */
export interface Cache {
  get(key: string): KubeObject | undefined;
  list(): readonly KubeObject[];
  /** The objects under `value` in an index the kind's informer keeps (handlers declare them, handler.ts). */
  byIndex(name: string, value: string): Iterable<KubeObject>;
  /** The values an index holds objects under. */
  indexValues(name: string): Iterable<string>;
  /** Changes the cache has taken so far (what is derived from it holds while this stays the same). */
  readonly revision: number;
}

export interface Ctx {
  readonly settings: ControllerSettings;
  readonly cluster: ClusterSource;
  readonly ipam: IPAM;
  readonly committer: Committer;
  /** ISO time for status conditions (the injected clock). */
  now(): string;
  cache(kind: Kind): Cache;
  /** Decodes through a memo keyed by the cached object (one decode per version). */
  decode<T>(o: KubeObject, f: (o: KubeObject) => Decoded<T>): Decoded<T>;
  enqueue(kind: Kind, key: ObjectKey): void;
  /** Queues `key` after `ms` (a later call within the delay does not run it twice). */
  enqueueAfter(kind: Kind, key: ObjectKey, ms: number): void;
  /** How long policy recomputes caused by pod changes are gathered. */
  readonly policyDelayMs: number;
  /**
   * The pod or node whose IPAM owner key (`<pod>.<ns>`, `node-<name>`) this
   * is, while it exists: owner keys are formats, never parsed back.
   */
  leaseHolder(owner: string): { readonly kind: Kind; readonly key: ObjectKey } | undefined;
  /**
   * Says what `topic` (a handler's reconcile, say) found wrong with `ref`
   * now, replacing what it said before (an empty list clears it): the
   * warnings an answer built on the controller's work carries.
   */
  report(ref: ObjectRef, topic: string, problems: readonly Problem[]): void;
  /** Records an event on `ref` (Kube-OVN's reasons); never throws. */
  event(ref: ObjectRef & { uid?: string }, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
  /** The cluster's load balancer names (from the settings). */
  readonly clusterLbs: VpcLoadBalancers;
  /**
   * True while the controller fills the store at start-up: nothing is
   * committed yet, so handlers defer their writes to the cluster
   * (annotations, status) to `afterCommit`.
   */
  readonly starting: boolean;
  /**
   * Runs `fn` once the fragments set so far are committed: a write of the
   * object `key` of `kind` (the one being reconciled). When it fails, that
   * key is reconciled again with its backoff, and the error names it.
   */
  afterCommit(kind: Kind, key: ObjectKey, fn: () => Promise<void>): Promise<void>;
}

/**
 * The spec field an IPAM issue is about: its path is `[subnets|ippools, name,
 * field, index?]`, the object's spec field (`spec.excludeIps[2]`).
 */
export function ipamIssueField(i: IpamIssue, otherwise: string): string {
  const [, , field = otherwise, index] = i.path;
  return `spec.${String(field)}${index !== undefined ? `[${String(index)}]` : ''}`;
}

/** A one-line message for decode issues. */
export function describeIssues(issues: readonly { readonly field: string; readonly message: string }[]): string {
  return issues.map((i) => i.message).join('; ');
}

/** Decode issues that make the object unusable (what is reported as not acted on does not block). */
export const blocking = (issues: readonly DecodeIssue[]) => issues.filter(isBlocking);

/** Merge-patches annotations only where they differ (a restart with nothing changed writes nothing). */
export async function patchAnnotations(
  ctx: Ctx,
  o: KubeObject,
  want: Readonly<Record<string, string | null>>,
): Promise<void> {
  const have = o.metadata.annotations ?? {};
  const diff: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(want)) {
    if (v === null ? k in have : have[k] !== v) diff[k] = v;
  }
  if (Object.keys(diff).length === 0) return;
  await ctx.cluster.patch(
    { kind: o.kind, name: o.metadata.name, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}) },
    // The uid as a precondition: an object re-created under the name since is not the one these are for.
    { metadata: { ...(o.metadata.uid !== undefined ? { uid: o.metadata.uid } : {}), annotations: diff } },
  );
}

/** Deep equality of JSON values, for "write only when changed". */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime?: string;
  readonly lastUpdateTime?: string;
}

/**
 * The conditions after setting `next`: a condition whose status, reason and
 * message are unchanged keeps its times (so an unchanged object gets no write).
 */
export function setConditions(have: unknown, next: readonly Condition[], now: string): Condition[] {
  const old = Array.isArray(have) ? (have as Condition[]) : [];
  const out = old.filter((c) => !next.some((n) => n.type === c.type));
  for (const n of next) {
    const prev = old.find((c) => c.type === n.type);
    const same = prev && prev.status === n.status && prev.reason === n.reason && prev.message === n.message;
    out.push(same ? prev : { ...n, lastTransitionTime: now, lastUpdateTime: now });
  }
  return out.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

/**
 * Oldest first (creationTimestamp, then resourceVersion as the API server
 * hands them out in order): on a first start pods get addresses in the order
 * they were created, and of two overlapping Subnets the older one wins.
 */
export function creationOrder(list: readonly KubeObject[]): KubeObject[] {
  const rv = (o: KubeObject) => {
    const n = Number(o.metadata.resourceVersion);
    return Number.isFinite(n) ? n : 0;
  };
  return [...list].sort(
    (a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || rv(a) - rv(b),
  );
}

/**
 * A `Ctx.decode`: each object decoded once per decoder (the cache replaces
 * an object when it changes, never edits it, so the object is the version).
 *
 * @example const decode = memoizedDecode(); decode(pod, decodePod) === decode(pod, decodePod) // true
 */
export function memoizedDecode(): Ctx['decode'] {
  const memo = new WeakMap<KubeObject, Map<unknown, Decoded<unknown>>>();
  return <T>(o: KubeObject, f: (o: KubeObject) => Decoded<T>): Decoded<T> => {
    let m = memo.get(o);
    if (m === undefined) memo.set(o, (m = new Map()));
    let d = m.get(f);
    if (d === undefined) m.set(f, (d = f(o)));
    return d as Decoded<T>;
  };
}

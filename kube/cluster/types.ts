/**
 * The cluster source the controller reads and writes: the part of the
 * Kubernetes API it uses, with Kubernetes semantics (resourceVersion,
 * list + watch from a version, JSON merge patches, the status subresource,
 * deletion held by finalizers, events). The in-memory cluster (memory.ts)
 * implements it for scenarios, tests and benchmarks; a later source speaks
 * to a real API server behind the same interface, so everything above it
 * runs unchanged. Asynchronous, as a real API server is.
 */

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
}

export interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  /** Opaque to clients; the in-memory cluster uses a decimal counter shared by all kinds. */
  readonly resourceVersion?: string;
  /** Bumped by the cluster on every change of `spec` (not of metadata or status). */
  readonly generation?: number;
  readonly creationTimestamp?: string;
  /** Set when deletion was asked while finalizers remain; the object goes once they are gone. */
  readonly deletionTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly finalizers?: readonly string[];
  readonly ownerReferences?: readonly OwnerReference[];
}

/** Any object: the cluster keeps what it is given and interprets metadata only. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly spec?: unknown;
  readonly status?: unknown;
  readonly [field: string]: unknown;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchEvent {
  readonly type: WatchEventType;
  /** The object after the change (for DELETED, its last state with the deleting resourceVersion). */
  readonly object: KubeObject;
}

export interface ListResult {
  readonly items: readonly KubeObject[];
  /** Watch from this version to see every change after the list. */
  readonly resourceVersion: string;
}

export interface Watch {
  /** Stops delivery; no event is delivered after it returns. */
  stop(): void;
  /**
   * The version up to which every event of this watch has been delivered,
   * when the source knows it (etcd's progress notification): a BOOKMARK at
   * it lets a quiet kind's watcher resume after other kinds changed. Absent
   * or undefined: only the last delivered event's version is known.
   */
  progress?(): string | undefined;
}

/**
 * An object's identity within its kind: its namespace (namespaced kinds
 * only) and name. The work queues hold these; `formatKey` makes the string
 * the caches are indexed by, which is never parsed back (a pod's name may
 * hold dots, and a key is cheaper to carry than to recover).
 */
export interface ObjectKey {
  readonly namespace?: string;
  readonly name: string;
}

/** An object's identity in the cluster: its kind and its key within the kind. */
export interface ObjectRef extends ObjectKey {
  readonly kind: string;
}

export interface EventInput {
  /** The object the event is about. */
  readonly involved: ObjectRef & { readonly uid?: string };
  readonly type: 'Normal' | 'Warning';
  /** CamelCase, as Kube-OVN's (`AcquireAddressFailed`, `ValidateFailed`, ...). */
  readonly reason: string;
  readonly message: string;
  /** `kube-ovn-controller`. */
  readonly source?: string;
}

/** What went wrong, as the API server's Status reasons. */
export type ClusterErrorReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'Gone'
  | 'ServiceUnavailable'
  /** The API refused the credentials (401) or the verb (403): a retry does not help. */
  | 'Forbidden';

export class ClusterError extends Error {
  override readonly name = 'ClusterError';
  constructor(
    readonly reason: ClusterErrorReason,
    readonly ref: ObjectRef,
    message: string,
    /** For `Invalid`: the field refused (`metadata.name`). */
    readonly field?: string,
  ) {
    super(message);
  }
}

/**
 * Which objects of a kind a list or watch covers, as the API's query
 * parameters say it: `labelSelector` in the label-selector syntax
 * (`app=web,tier in (a,b),!legacy`), `fieldSelector` in the field-selector
 * syntax (`spec.nodeName=node-1,metadata.namespace!=kube-system`). A source
 * that cannot apply a selector refuses it (`Invalid`), never ignores it.
 *
 * @example cluster.list('Pod', { fieldSelector: 'spec.nodeName=node-1' })
 */
export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

/**
 * A watch's scope (as ListOptions). An object that stops matching is seen as
 * DELETED and one that starts matching as ADDED, as the API server does.
 */
export type WatchOptions = ListOptions;

export interface ClusterSource {
  list(kind: string, opts?: ListOptions): Promise<ListResult>;
  get(ref: ObjectRef): Promise<KubeObject | undefined>;
  /**
   * Every change of `kind` after `resourceVersion`, in order, delivered
   * asynchronously; `onError` with `Gone` when that version is too old to
   * replay (the caller lists again).
   */
  watch(
    kind: string,
    resourceVersion: string,
    onEvent: (e: WatchEvent) => void,
    onError?: (e: ClusterError) => void,
    opts?: WatchOptions,
  ): Watch;
  /** `AlreadyExists` when the name is taken; fills uid, resourceVersion, generation, creationTimestamp. */
  create(obj: KubeObject): Promise<KubeObject>;
  /**
   * Replaces spec and metadata (not status); `Conflict` when the given
   * resourceVersion is not the current one (none given: unconditional).
   * Removing the last finalizer of an object being deleted deletes it.
   */
  update(obj: KubeObject): Promise<KubeObject>;
  /** Replaces status only (the status subresource); same resourceVersion rule. */
  updateStatus(obj: KubeObject): Promise<KubeObject>;
  /**
   * An RFC 7386 JSON merge patch (null removes a key), on the object or, with
   * `subresource: 'status'`, on its status only.
   */
  patch(ref: ObjectRef, patch: unknown, opts?: { readonly subresource?: 'status' }): Promise<KubeObject>;
  /**
   * Deletes at once when no finalizers remain, else sets deletionTimestamp
   * (MODIFIED) and deletes when the last finalizer is removed. `NotFound`
   * when absent.
   */
  delete(ref: ObjectRef): Promise<void>;
  /** Records an Event (kind Event in the involved object's namespace, `default` for cluster-scoped ones). */
  recordEvent(e: EventInput): Promise<void>;
}

export const refOf = (o: KubeObject): ObjectRef => ({
  kind: o.kind,
  name: o.metadata.name,
  ...(o.metadata.namespace !== undefined ? { namespace: o.metadata.namespace } : {}),
});

/**
 * @example objectKey(pod) // { namespace: 'prod', name: 'web.v2' }
 */
export const objectKey = (o: { readonly metadata: ObjectMeta }): ObjectKey =>
  o.metadata.namespace ? { namespace: o.metadata.namespace, name: o.metadata.name } : { name: o.metadata.name };

/**
 * `ns/name`, or `name` for a cluster-scoped key: the informer cache's index and what logs show.
 *
 * @example formatKey({ namespace: 'prod', name: 'web.v2' }) // 'prod/web.v2'
 */
export const formatKey = (k: ObjectKey): string => (k.namespace ? `${k.namespace}/${k.name}` : k.name);

/** `formatKey(objectKey(o))`: the cache index of an object (its metadata is a key already, no copy made). */
export const keyOf = (o: { readonly metadata: ObjectMeta }): string => formatKey(o.metadata);

/**
 * A ClusterSource that passes every call through and notes which API
 * request it stands for: the kind, the subresource and the RBAC verb. The
 * RBAC test runs kovn's controller and node daemon over it to learn what
 * their ClusterRoles must grant.
 */
import type {
  ClusterSource,
  EventInput,
  KubeObject,
  ListOptions,
  ObjectRef,
  WatchEvent,
  WatchOptions,
} from '../../kube/cluster/types.ts';
import type { ClusterError } from '../../kube/cluster/types.ts';
import type { EventSink } from '../../kube/cluster/api/events.ts';

/** One kind of API request: `patch` of `Pod`, `update` of `Subnet/status`. */
export interface ApiUse {
  readonly kind: string;
  readonly subresource?: 'status';
  /** The RBAC verb: get, list, watch, create, update, patch, delete. */
  readonly verb: string;
  /** The namespace the request is in; absent for cluster-scoped objects and lists across namespaces. */
  readonly namespace?: string;
}

export const formatUse = (u: ApiUse): string =>
  `${u.kind}${u.subresource ? `/${u.subresource}` : ''} ${u.verb}${u.namespace ? ` in ${u.namespace}` : ''}`;

/**
 * The verbs `recordEvent` is sent as: the API source's EventRecorder creates
 * an Event or, for a repeat of one (client-go's EventCorrelator), patches its
 * count and lastTimestamp: the two methods of its EventSink, no more (the
 * type below fails to compile when the sink gains one this list lacks).
 */
const EVENT_VERBS = ['create', 'patch'] as const satisfies readonly (keyof EventSink)[];
const EVENT_VERBS_COMPLETE: [Exclude<keyof EventSink, (typeof EVENT_VERBS)[number]>] extends [never] ? true : false =
  true;
void EVENT_VERBS_COMPLETE;

/**
 * Wraps `inner`; `uses` holds every distinct request made through it.
 *
 * @example const rec = new RecordingCluster(new MemoryCluster()); await rec.list('Pod'); rec.uses // Pod list
 */
export class RecordingCluster implements ClusterSource {
  readonly #seen = new Map<string, ApiUse>();

  constructor(readonly inner: ClusterSource) {}

  get uses(): readonly ApiUse[] {
    return [...this.#seen.values()];
  }

  #note(kind: string, verb: string, namespace: string | undefined, subresource?: 'status'): void {
    const u: ApiUse = { kind, verb, ...(subresource ? { subresource } : {}), ...(namespace ? { namespace } : {}) };
    this.#seen.set(formatUse(u), u);
  }

  list(kind: string, opts?: ListOptions) {
    this.#note(kind, 'list', opts?.namespace);
    return this.inner.list(kind, opts);
  }
  get(ref: ObjectRef) {
    this.#note(ref.kind, 'get', ref.namespace);
    return this.inner.get(ref);
  }
  watch(
    kind: string,
    rv: string,
    onEvent: (e: WatchEvent) => void,
    onError?: (e: ClusterError) => void,
    opts?: WatchOptions,
  ) {
    this.#note(kind, 'watch', opts?.namespace);
    return this.inner.watch(kind, rv, onEvent, onError, opts);
  }
  create(obj: KubeObject) {
    this.#note(obj.kind, 'create', obj.metadata.namespace);
    return this.inner.create(obj);
  }
  update(obj: KubeObject) {
    this.#note(obj.kind, 'update', obj.metadata.namespace);
    return this.inner.update(obj);
  }
  updateStatus(obj: KubeObject) {
    this.#note(obj.kind, 'update', obj.metadata.namespace, 'status');
    return this.inner.updateStatus(obj);
  }
  patch(ref: ObjectRef, patch: unknown, opts?: { readonly subresource?: 'status' }) {
    this.#note(ref.kind, 'patch', ref.namespace, opts?.subresource);
    return this.inner.patch(ref, patch, opts);
  }
  delete(ref: ObjectRef) {
    this.#note(ref.kind, 'delete', ref.namespace);
    return this.inner.delete(ref);
  }
  recordEvent(e: EventInput) {
    for (const v of EVENT_VERBS) this.#note('Event', v, e.involved.namespace ?? 'default');
    return this.inner.recordEvent(e);
  }
}

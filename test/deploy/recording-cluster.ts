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

/** One kind of API request: `patch` of `Pod`, `update` of `Subnet/status`. */
export interface ApiUse {
  readonly kind: string;
  readonly subresource?: 'status';
  /** The RBAC verb: get, list, watch, create, update, patch, delete. */
  readonly verb: string;
}

export const formatUse = (u: ApiUse): string => `${u.kind}${u.subresource ? `/${u.subresource}` : ''} ${u.verb}`;

/**
 * The verbs a ClusterSource method is sent as. `recordEvent` creates an Event
 * or, for a repeat of one (client-go's EventCorrelator, kovn's API source),
 * patches its count and lastTimestamp.
 */
const EVENT_VERBS = ['create', 'patch'] as const;

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

  #note(kind: string, verb: string, subresource?: 'status'): void {
    const u: ApiUse = { kind, verb, ...(subresource ? { subresource } : {}) };
    this.#seen.set(formatUse(u), u);
  }

  list(kind: string, opts?: ListOptions) {
    this.#note(kind, 'list');
    return this.inner.list(kind, opts);
  }
  get(ref: ObjectRef) {
    this.#note(ref.kind, 'get');
    return this.inner.get(ref);
  }
  watch(
    kind: string,
    rv: string,
    onEvent: (e: WatchEvent) => void,
    onError?: (e: ClusterError) => void,
    opts?: WatchOptions,
  ) {
    this.#note(kind, 'watch');
    return this.inner.watch(kind, rv, onEvent, onError, opts);
  }
  create(obj: KubeObject) {
    this.#note(obj.kind, 'create');
    return this.inner.create(obj);
  }
  update(obj: KubeObject) {
    this.#note(obj.kind, 'update');
    return this.inner.update(obj);
  }
  updateStatus(obj: KubeObject) {
    this.#note(obj.kind, 'update', 'status');
    return this.inner.updateStatus(obj);
  }
  patch(ref: ObjectRef, patch: unknown, opts?: { readonly subresource?: 'status' }) {
    this.#note(ref.kind, 'patch', opts?.subresource);
    return this.inner.patch(ref, patch, opts);
  }
  delete(ref: ObjectRef) {
    this.#note(ref.kind, 'delete');
    return this.inner.delete(ref);
  }
  recordEvent(e: EventInput) {
    for (const v of EVENT_VERBS) this.#note('Event', v);
    return this.inner.recordEvent(e);
  }
}

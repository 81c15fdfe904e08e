/**
 * The cluster source over a Kubernetes API server: what the controller, the
 * node daemon and the tools read and write when they run against a real
 * cluster (or `kovn sim serve`), with the same contract as the in-memory
 * cluster (../types.ts), so everything above runs unchanged.
 *
 * - list: pages of `pageSize` (the reflector's 500) joined, the list's
 *   resourceVersion kept; a page token that expired (410) starts the list
 *   again; items get their kind and apiVersion (a list's items carry none).
 * - watch: ./watch.ts (bookmarks, reconnects, 410 → `Gone`).
 * - writes: POST, PUT (`/status` for updateStatus), PATCH as a JSON merge
 *   patch (RFC 7386, `application/merge-patch+json`), DELETE; refusals as
 *   `ClusterError`s with the Status's reason (./status.ts).
 * - events: ./events.ts (deduplicated as client-go's recorder).
 * - selectors are passed to the server, which applies them or refuses them.
 */
import type { Clock } from '../../runtime/clock.ts';
import {
  ClusterError,
  type ClusterSource,
  type EventInput,
  type KubeObject,
  type ListOptions,
  type ListResult,
  type ObjectRef,
  type Watch,
  type WatchEvent,
  type WatchOptions,
} from '../types.ts';
import { EventRecorder } from './events.ts';
import { collectionPath, type KindPath, kindPath, objectPath, query } from './paths.ts';
import { clusterErrorOf } from './status.ts';
import type { ApiRequest, ApiResponse, Transport } from './transport.ts';
import { ApiWatch } from './watch.ts';

export interface ApiSourceOptions {
  /** Watch retries and event times. */
  readonly clock: Clock;
  /** In [0, 1): watch jitter. */
  readonly random: () => number;
  /** Objects per list page (default 500). */
  readonly pageSize?: number;
  /** Events' source component (default `kube-ovn-controller`). */
  readonly component?: string;
  /** The shortest watch stream asked of the server, in seconds (default 300; each asks up to twice that). */
  readonly watchTimeoutSeconds?: number;
  /** A watch retrying after a failure, with its delay: for logs. */
  readonly onRetry?: (kind: string, err: unknown, delayMs: number) => void;
}

/** What the source asked of the API: the bench reports it per pod. */
export interface ApiSourceStats {
  /** Requests sent: list pages, gets, writes, and watch connections (each a request to the server). */
  readonly requests: number;
  /** Watch events delivered (bookmarks not counted). */
  readonly watchEvents: number;
}

type Rec = Readonly<Record<string, unknown>>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

const MERGE_PATCH = 'application/merge-patch+json';

/**
 * @example
 * const source = new ApiClusterSource(await kubeConfigTransport(kc, { clock: realClock }), { clock: realClock, random: Math.random });
 * const { items } = await source.list('Pod', { fieldSelector: 'spec.nodeName=node-1' });
 */
export class ApiClusterSource implements ClusterSource {
  readonly #t: Transport;
  readonly #opts: ApiSourceOptions;
  readonly #events: EventRecorder;
  readonly #stats = { requests: 0, watchEvents: 0 };

  constructor(transport: Transport, opts: ApiSourceOptions) {
    this.#t = transport;
    this.#opts = opts;
    this.#events = new EventRecorder(
      { create: (o) => this.create(o), patch: (ref, p) => this.patch(ref, p) },
      { clock: opts.clock, ...(opts.component !== undefined ? { component: opts.component } : {}) },
    );
  }

  stats(): ApiSourceStats {
    return { ...this.#stats };
  }

  /**
   * A GET of a path outside the resources (`kubectl get --raw`): `/version`,
   * `/kovn/stats`; the parsed JSON, or `ServiceUnavailable`/the Status's reason.
   *
   * @example const stats = await source.getRaw('/kovn/stats');
   */
  async getRaw(path: string): Promise<unknown> {
    const res = await this.#send({ method: 'GET', path });
    if (res.status !== 200) throw clusterErrorOf(res.status, res.body, { kind: '', name: path }, 'get');
    return res.body;
  }

  /** Ends the connections (watches should be stopped first). */
  close(): void {
    this.#t.close();
  }

  async list(kind: string, opts: ListOptions = {}): Promise<ListResult> {
    const k = kindPath(kind);
    const limit = String(this.#opts.pageSize ?? 500);
    const items: KubeObject[] = [];
    let cont: string | undefined;
    let restarted = false;
    for (;;) {
      const path =
        collectionPath(k, opts.namespace) +
        query({ limit, continue: cont, labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector });
      const res = await this.#send({ method: 'GET', path });
      if (res.status === 410 && cont !== undefined && !restarted) {
        // The page token expired (the server compacted past it): the list starts again, once.
        restarted = true;
        cont = undefined;
        items.length = 0;
        continue;
      }
      if (res.status !== 200) throw clusterErrorOf(res.status, res.body, { kind, name: '' }, 'list');
      const body = rec(res.body);
      for (const item of Array.isArray(body['items']) ? body['items'] : []) items.push(this.#typed(k, item));
      const meta = rec(body['metadata']);
      cont = typeof meta['continue'] === 'string' && meta['continue'] !== '' ? meta['continue'] : undefined;
      if (cont === undefined) return { items, resourceVersion: String(meta['resourceVersion'] ?? '') };
    }
  }

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    const k = kindPath(ref.kind);
    const res = await this.#send({ method: 'GET', path: objectPath(k, ref), ...laneOf(k) });
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw clusterErrorOf(res.status, res.body, ref, 'get');
    return this.#typed(k, res.body);
  }

  watch(
    kind: string,
    resourceVersion: string,
    onEvent: (e: WatchEvent) => void,
    onError?: (e: ClusterError) => void,
    opts: WatchOptions = {},
  ): Watch {
    const onRetry = this.#opts.onRetry;
    const w = new ApiWatch(this.#t, kindPath(kind), resourceVersion, onEvent, onError, opts, {
      clock: this.#opts.clock,
      random: this.#opts.random,
      onDelivered: () => void this.#stats.watchEvents++,
      onConnect: () => void this.#stats.requests++,
      ...(this.#opts.watchTimeoutSeconds !== undefined ? { timeoutSeconds: this.#opts.watchTimeoutSeconds } : {}),
      ...(onRetry !== undefined ? { onRetry: (err: unknown, ms: number) => onRetry(kind, err, ms) } : {}),
    });
    w.start();
    return w;
  }

  async create(obj: KubeObject): Promise<KubeObject> {
    const k = kindPath(obj.kind);
    const ref = refIn(k, obj);
    const body = { ...obj, apiVersion: obj.apiVersion || k.apiVersion };
    return this.#write(k, ref, 'create', { method: 'POST', path: collectionPath(k, ref.namespace), body }, 201);
  }

  async update(obj: KubeObject): Promise<KubeObject> {
    const k = kindPath(obj.kind);
    const ref = refIn(k, obj);
    const body = { ...obj, apiVersion: obj.apiVersion || k.apiVersion };
    return this.#write(k, ref, 'update', { method: 'PUT', path: objectPath(k, ref), body });
  }

  async updateStatus(obj: KubeObject): Promise<KubeObject> {
    const k = kindPath(obj.kind);
    const ref = refIn(k, obj);
    const body = { ...obj, apiVersion: obj.apiVersion || k.apiVersion };
    return this.#write(k, ref, 'updateStatus', { method: 'PUT', path: objectPath(k, ref, 'status'), body });
  }

  async patch(ref: ObjectRef, patch: unknown, opts: { readonly subresource?: 'status' } = {}): Promise<KubeObject> {
    const k = kindPath(ref.kind);
    const path = objectPath(k, ref, opts.subresource);
    return this.#write(k, ref, 'patch', { method: 'PATCH', path, body: patch, contentType: MERGE_PATCH });
  }

  async delete(ref: ObjectRef): Promise<void> {
    const k = kindPath(ref.kind);
    const res = await this.#send({ method: 'DELETE', path: objectPath(k, ref), ...laneOf(k) });
    if (res.status !== 200 && res.status !== 202) throw clusterErrorOf(res.status, res.body, ref, 'delete');
  }

  recordEvent(e: EventInput): Promise<void> {
    return this.#events.record(e);
  }

  async #write(k: KindPath, ref: ObjectRef, verb: string, req: ApiRequest, created = 200): Promise<KubeObject> {
    const res = await this.#send({ ...req, ...laneOf(k) });
    if (res.status !== 200 && res.status !== created) throw clusterErrorOf(res.status, res.body, ref, verb);
    return this.#typed(k, res.body);
  }

  async #send(req: ApiRequest): Promise<ApiResponse> {
    this.#stats.requests++;
    try {
      return await this.#t.request(req);
    } catch (err) {
      // No answer at all (refused, reset, timed out): the API is unavailable, and a retry may help.
      throw new ClusterError(
        'ServiceUnavailable',
        { kind: '', name: '' },
        `${req.method} ${req.path}: ${(err as Error).message}`,
      );
    }
  }

  #typed(k: KindPath, o: unknown): KubeObject {
    const r = rec(o);
    return {
      ...r,
      apiVersion: (r['apiVersion'] as string) || k.apiVersion,
      kind: (r['kind'] as string) || k.kind,
    } as KubeObject;
  }
}

/** Kinds whose requests go on connections of their own: leader election's (see ApiRequest.lane). */
const PRIORITY_KINDS: ReadonlySet<string> = new Set(['Lease']);

const laneOf = (k: KindPath): Pick<ApiRequest, 'lane'> => (PRIORITY_KINDS.has(k.kind) ? { lane: 'priority' } : {});

function refIn(k: KindPath, obj: KubeObject): ObjectRef {
  const name = obj.metadata?.name;
  if (typeof name !== 'string' || name === '')
    throw new ClusterError(
      'Invalid',
      { kind: k.kind, name: '' },
      `${k.kind}: metadata.name: required`,
      'metadata.name',
    );
  const ns = obj.metadata.namespace;
  return { kind: k.kind, name, ...(k.namespaced ? { namespace: ns || 'default' } : {}) };
}

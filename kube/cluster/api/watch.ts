/**
 * A watch over the API that lasts as the ClusterSource contract says: every
 * change after a version, until stopped or until that version is too old.
 * The API ends a watch stream after `timeoutSeconds` (the reflector asks
 * for 5 to 10 minutes, so a fleet's watches do not all end at once), and
 * connections break; this watch starts again from the last version it saw
 * (the last event's, or a BOOKMARK's, which the server sends so an idle
 * watch's version stays recent), at once after a normal end and after a
 * backoff with jitter after a failure (client-go's reflector: 800 ms doubled
 * up to 30 s, plus up to as much again at random), so the informer above
 * relists only when it must: `Gone` (410, as an ERROR event or as the answer)
 * goes to `onError` and the watch is over, as does a refusal a retry cannot
 * change (400, 403, 404).
 */
import { backoffMs } from '../../runtime/backoff.ts';
import type { Clock } from '../../runtime/clock.ts';
import type { ClusterError, KubeObject, Watch, WatchEvent, WatchOptions } from '../types.ts';
import { collectionPath, type KindPath, query } from './paths.ts';
import { clusterErrorOf } from './status.ts';
import type { ApiStream, Transport } from './transport.ts';

export interface ApiWatchOptions {
  readonly clock: Clock;
  /** In [0, 1): the jitter, and where in `timeoutSeconds` to twice that the server ends each stream. */
  readonly random: () => number;
  /** The shortest stream the server is asked for (default 300 s, client-go's minimum watch timeout). */
  readonly timeoutSeconds?: number;
  /** First retry delay (default 800 ms), doubled per failure in a row up to `maxRetryMs` (default 30 s). */
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
  /** Each retry after a failure, with its delay: for logs. */
  readonly onRetry?: (err: unknown, delayMs: number) => void;
  /** Counts every event delivered (the source's statistics). */
  readonly onDelivered?: () => void;
  /** Counts every connection asked for. */
  readonly onConnect?: () => void;
}

type Rec = Readonly<Record<string, unknown>>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

/** A stream that ends this soon after it started, having delivered nothing, counts as a failure (no tight loop). */
const SHORT_STREAM_MS = 1_000;

/**
 * @example
 * const w = new ApiWatch(transport, kindPath('Pod'), '42', onEvent, onError, {}, { clock, random: Math.random });
 * w.start(); ... w.stop();
 */
export class ApiWatch implements Watch {
  #rv: string;
  #stream: ApiStream | undefined;
  #timer: unknown;
  #stopped = false;
  #failures = 0;
  /** Bumped per connection; callbacks of an older one are ignored. */
  #epoch = 0;

  constructor(
    private readonly transport: Transport,
    private readonly kind: KindPath,
    resourceVersion: string,
    private readonly onEvent: (e: WatchEvent) => void,
    private readonly onError: ((e: ClusterError) => void) | undefined,
    private readonly scope: WatchOptions,
    private readonly opts: ApiWatchOptions,
  ) {
    this.#rv = resourceVersion;
  }

  /** The version the next connection starts from. */
  get resourceVersion(): string {
    return this.#rv;
  }

  start(): void {
    void this.#connect();
  }

  stop(): void {
    this.#stopped = true;
    this.#epoch++;
    this.#stream?.close();
    this.#stream = undefined;
    if (this.#timer !== undefined) this.opts.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    const epoch = ++this.#epoch;
    const started = this.opts.clock.now();
    const timeout = this.opts.timeoutSeconds ?? 300;
    let delivered = false;
    const path =
      collectionPath(this.kind, this.scope.namespace) +
      query({
        watch: '1',
        resourceVersion: this.#rv,
        allowWatchBookmarks: 'true',
        timeoutSeconds: String(Math.floor(timeout * (1 + this.opts.random()))),
        labelSelector: this.scope.labelSelector,
        fieldSelector: this.scope.fieldSelector,
      });
    const onObject = (o: unknown): void => {
      if (epoch !== this.#epoch) return;
      if (this.#line(o)) delivered = true;
    };
    const onEnd = (err?: Error): void => {
      if (epoch !== this.#epoch) return;
      this.#stream = undefined;
      const short = !delivered && this.opts.clock.now() - started < SHORT_STREAM_MS;
      if (err === undefined && !short) {
        this.#failures = 0;
        void this.#connect();
      } else this.#retry(err ?? new Error(`watch ${this.kind.kind}: the stream ended at once`));
    };
    let start: Awaited<ReturnType<Transport['stream']>>;
    this.opts.onConnect?.();
    try {
      start = await this.transport.stream(path, onObject, onEnd);
    } catch (err) {
      if (epoch === this.#epoch) this.#retry(err);
      return;
    }
    if (epoch !== this.#epoch) {
      if (start.ok) start.stream.close();
      return;
    }
    if (start.ok) this.#stream = start.stream;
    else this.#refused(start.response.status, start.response.body);
  }

  /** One document of the stream; whether it was an event. */
  #line(o: unknown): boolean {
    const { type, object } = rec(o);
    const obj = rec(object);
    const rv = rec(obj['metadata'])['resourceVersion'];
    switch (type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED': {
        if (typeof rv === 'string') this.#rv = rv;
        this.#failures = 0;
        const full = { apiVersion: this.kind.apiVersion, kind: this.kind.kind, ...obj } as KubeObject;
        this.opts.onDelivered?.();
        this.onEvent({ type, object: full });
        return true;
      }
      case 'BOOKMARK':
        if (typeof rv === 'string') this.#rv = rv;
        return false;
      case 'ERROR':
        this.#stream?.close();
        this.#stream = undefined;
        this.#epoch++;
        this.#refused(typeof obj['code'] === 'number' ? obj['code'] : 500, obj);
        return false;
      default:
        return false;
    }
  }

  /** The server said no: a retry may help (5xx, 429) or not (the rest: the caller is told, the watch ends). */
  #refused(code: number, body: unknown): void {
    const err = clusterErrorOf(code, body, { kind: this.kind.kind, name: '' }, 'watch');
    if (err.reason === 'ServiceUnavailable') {
      this.#retry(err);
      return;
    }
    this.stop();
    this.onError?.(err);
  }

  #retry(err: unknown): void {
    if (this.#stopped) return;
    this.#failures++;
    const base = backoffMs(this.#failures, this.opts.retryMs ?? 800, this.opts.maxRetryMs ?? 30_000);
    const delay = Math.round(base * (1 + this.opts.random()));
    this.opts.onRetry?.(err, delay);
    this.#timer = this.opts.clock.setTimeout(() => {
      this.#timer = undefined;
      void this.#connect();
    }, delay);
  }
}

/**
 * Events through the API, deduplicated as client-go's EventCorrelator does:
 * an event the same as one already sent (same involved object, uid
 * included, type, reason, message and source) is not a new Event object but
 * the earlier one with `count` incremented and `lastTimestamp` moved, sent as
 * a merge patch; when that Event is gone (events expire, an hour on a real
 * cluster) a new one is created. The memory of what was sent is an LRU of
 * 4,096 keys, as client-go's. Events of one key are sent one after another,
 * so a burst of the same warning becomes one create and patches, never two
 * creates.
 */
import type { Clock } from '../../runtime/clock.ts';
import { apiTime } from '../time.ts';
import { ClusterError, type EventInput, type KubeObject, type ObjectRef } from '../types.ts';

/** The two writes the recorder makes (the API source's own). */
export interface EventSink {
  create(obj: KubeObject): Promise<KubeObject>;
  patch(ref: ObjectRef, patch: unknown): Promise<KubeObject>;
}

export interface EventRecorderOptions {
  readonly clock: Clock;
  /** Keys remembered (default 4,096). */
  readonly cacheSize?: number;
  /** The source component when the input names none (default `kube-ovn-controller`). */
  readonly component?: string;
}

interface Sent {
  readonly ref: ObjectRef;
  readonly count: number;
}

/** RFC 3339 with whole seconds, as the API writes times. */

/**
 * @example
 * const events = new EventRecorder(source, { clock: realClock });
 * await events.record({ involved: { kind: 'Pod', namespace: 'shop', name: 'web' }, type: 'Warning', reason: 'AcquireAddressFailed', message });
 */
export class EventRecorder {
  readonly #sink: EventSink;
  readonly #opts: EventRecorderOptions;
  /** Insertion order is recency: a key used again is moved to the end. */
  readonly #sent = new Map<string, Sent>();
  readonly #chains = new Map<string, Promise<void>>();
  #seq = 0;

  constructor(sink: EventSink, opts: EventRecorderOptions) {
    this.#sink = sink;
    this.#opts = opts;
  }

  record(e: EventInput): Promise<void> {
    const key = JSON.stringify([
      e.source ?? this.#opts.component ?? 'kube-ovn-controller',
      e.involved.kind,
      e.involved.namespace ?? '',
      e.involved.name,
      e.involved.uid ?? '',
      e.type,
      e.reason,
      e.message,
    ]);
    const before = this.#chains.get(key) ?? Promise.resolve();
    const next = before.then(() => this.#send(key, e));
    const tail = next.catch(() => {});
    this.#chains.set(key, tail);
    void tail.then(() => {
      if (this.#chains.get(key) === tail) this.#chains.delete(key);
    });
    return next;
  }

  async #send(key: string, e: EventInput): Promise<void> {
    const now = apiTime(this.#opts.clock.now());
    const sent = this.#sent.get(key);
    if (sent !== undefined) {
      const count = sent.count + 1;
      try {
        await this.#sink.patch(sent.ref, { count, lastTimestamp: now });
        this.#remember(key, { ...sent, count });
        return;
      } catch (err) {
        if (!(err instanceof ClusterError && err.reason === 'NotFound')) throw err;
        this.#sent.delete(key);
      }
    }
    const namespace = e.involved.namespace ?? 'default';
    // client-go names an Event after its object and the time in nanoseconds, in hex.
    const stamp = (BigInt(this.#opts.clock.now()) * 1_000_000n + BigInt(this.#seq++ % 1_000_000)).toString(16);
    const ref = { kind: 'Event', namespace, name: `${e.involved.name}.${stamp}` };
    const obj: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: ref.name, namespace },
      involvedObject: {
        kind: e.involved.kind,
        name: e.involved.name,
        ...(e.involved.namespace !== undefined ? { namespace: e.involved.namespace } : {}),
        ...(e.involved.uid !== undefined ? { uid: e.involved.uid } : {}),
      },
      type: e.type,
      reason: e.reason,
      message: e.message,
      source: { component: e.source ?? this.#opts.component ?? 'kube-ovn-controller' },
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
    };
    await this.#sink.create(obj);
    this.#remember(key, { ref, count: 1 });
  }

  #remember(key: string, s: Sent): void {
    this.#sent.delete(key);
    this.#sent.set(key, s);
    const max = this.#opts.cacheSize ?? 4_096;
    while (this.#sent.size > max) this.#sent.delete(this.#sent.keys().next().value as string);
  }
}

/**
 * `?watch=1`: a chunked stream of watch events, one JSON object a line
 * (`{"type":"ADDED","object":{...}}`), as the API server writes them.
 * Without a resourceVersion (or with "0") the stream opens with an ADDED
 * event for every object that matches, then follows changes from the
 * list's version. `allowWatchBookmarks` adds BOOKMARK events (the version
 * every event up to which has been sent) at an interval; `timeoutSeconds`
 * ends the stream; a version too old to replay ends it with an ERROR event
 * carrying a 410 Status, as the server does, so the client lists again. A
 * watch of one object (a name in the path) is a watch with a
 * `metadata.name` field selector.
 */
import type { ServerResponse } from 'node:http';
import { ClusterError, type KubeObject, type Watch, type WatchEvent } from '../../cluster/types.ts';
import type { Clock } from '../../runtime/clock.ts';
import type { AcceptInfo } from './request.ts';
import { seconds, truthy } from './request.ts';
import { ApiError, apiErrorOf } from './status.ts';
import { groupVersion, listObjects, listOptionsOf, type VerbContext } from './verbs.ts';

/** What the watch counts, for the server's statistics. */
export interface WatchCounters {
  onEvent(): void;
  onOpen(): void;
  onClose(): void;
}

export interface WatchSettings {
  readonly clock: Clock;
  /** How often a BOOKMARK is sent when the client allows them. */
  readonly bookmarkIntervalMs: number;
  /** The stream ends when more than this is waiting to be sent to a slow client. */
  readonly maxBufferedBytes: number;
  readonly counters: WatchCounters;
}

type Line = { readonly type: WatchEvent['type'] | 'BOOKMARK' | 'ERROR'; readonly object: unknown };

/**
 * Serves a watch request until the client goes, the timeout passes or the
 * version is gone.
 *
 * @example await serveWatch(ctx, res, accept, { clock: realClock, bookmarkIntervalMs: 60_000, maxBufferedBytes: 2 ** 26, counters });
 */
export async function serveWatch(
  ctx: VerbContext,
  res: ServerResponse,
  accept: AcceptInfo,
  settings: WatchSettings,
): Promise<void> {
  const ctxOne = ctx.path.name !== undefined ? withNameSelector(ctx) : ctx;
  const timeout = seconds(ctx.query, 'timeoutSeconds');
  const bookmarks = truthy(ctx.query.get('allowWatchBookmarks'));
  const asked = ctx.query.get('resourceVersion') ?? '';
  // An initial list: the stream starts with the objects as they are.
  const initial = asked === '' || asked === '0' ? await listObjects(ctxOne) : undefined;
  const from = initial?.resourceVersion ?? asked;
  let stream: WatchStream | undefined;
  // Events come in microtasks, after the stream below exists and the initial objects are written.
  const watch = watchOrRefuse(
    ctxOne,
    from,
    (e) => stream!.send(e),
    (err) => stream!.fail(err),
  );
  stream = new WatchStream(ctxOne, res, accept, settings, from);
  for (const o of initial?.items ?? []) stream.send({ type: 'ADDED', object: o });
  stream.onEnd(() => watch.stop());
  if (timeout !== undefined) stream.endAfter(timeout * 1000);
  if (bookmarks) stream.bookmarkEvery(settings.bookmarkIntervalMs, () => watch.progress?.());
}

/** The cluster's watch; a refusal (a selector it cannot apply) thrown as a Status before any header is written. */
function watchOrRefuse(
  ctx: VerbContext,
  from: string,
  onEvent: (e: WatchEvent) => void,
  onError: (e: ClusterError) => void,
): Watch {
  try {
    return ctx.cluster.watch(ctx.resource.kind, from, onEvent, onError, listOptionsOf(ctx));
  } catch (err) {
    if (err instanceof ClusterError) throw apiErrorOf(err, ctx.resource);
    throw err;
  }
}

/** The watch of a named object: its name added to the field selector. */
function withNameSelector(ctx: VerbContext): VerbContext {
  const query = new URLSearchParams(ctx.query);
  const by = `metadata.name=${ctx.path.name}`;
  const fs = query.get('fieldSelector');
  query.set('fieldSelector', fs ? `${fs},${by}` : by);
  const { name: _name, ...path } = ctx.path;
  return { ...ctx, query, path };
}

/** One open stream: writes events, ends once (client gone, timeout, error), and clears its timers. */
class WatchStream {
  private ended = false;
  private lastVersion: string;
  private readonly timers: unknown[] = [];
  private readonly endHooks: (() => void)[] = [];

  constructor(
    private readonly ctx: VerbContext,
    private readonly res: ServerResponse,
    private readonly accept: AcceptInfo,
    private readonly settings: WatchSettings,
    from: string,
  ) {
    this.lastVersion = from;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    settings.counters.onOpen();
    res.on('close', () => this.end());
  }

  send(e: { readonly type: WatchEvent['type']; readonly object: KubeObject }): void {
    if (this.ended) return;
    this.lastVersion = e.object.metadata.resourceVersion ?? this.lastVersion;
    this.settings.counters.onEvent();
    this.write({ type: e.type, object: this.shown(e.object) });
  }

  fail(err: ClusterError): void {
    if (this.ended) return;
    const status = apiErrorOf(err, this.ctx.resource).body();
    this.write({ type: 'ERROR', object: status });
    this.end();
  }

  onEnd(hook: () => void): void {
    if (this.ended) hook();
    else this.endHooks.push(hook);
  }

  endAfter(ms: number): void {
    this.timers.push(this.settings.clock.setTimeout(() => this.end(), ms));
  }

  /** BOOKMARKs at the cluster's progress when it knows it (all of this watch's events up to it sent), else at the last event's. */
  bookmarkEvery(ms: number, progress: () => string | undefined): void {
    const tick = () => {
      if (this.ended) return;
      const r = this.ctx.resource;
      this.lastVersion = progress() ?? this.lastVersion;
      this.write({
        type: 'BOOKMARK',
        object: { kind: r.kind, apiVersion: groupVersion(r), metadata: { resourceVersion: this.lastVersion } },
      });
      this.timers.push(this.settings.clock.setTimeout(tick, ms));
    };
    this.timers.push(this.settings.clock.setTimeout(tick, ms));
  }

  private shown(obj: KubeObject): unknown {
    if (!this.accept.table) return obj;
    return this.ctx.description.table(this.ctx.resource, [obj], {
      wide: true,
      includeObject: this.accept.includeObject,
      resourceVersion: obj.metadata.resourceVersion ?? this.lastVersion,
    });
  }

  private write(line: Line): void {
    this.res.write(`${JSON.stringify(line)}\n`);
    // A client this far behind is dropped, its backlog with it (the connection closes at once, not after a drain).
    if (this.res.writableLength > this.settings.maxBufferedBytes) {
      this.end();
      this.res.destroy();
    }
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const t of this.timers) this.settings.clock.clearTimeout(t);
    for (const h of this.endHooks) h();
    this.settings.counters.onClose();
    if (!this.res.writableEnded) this.res.end();
  }
}

/** A watch request answers 405 on a resource whose verbs leave `watch` out. */
export function checkWatchable(ctx: VerbContext): void {
  if (!ctx.resource.verbs.includes('watch'))
    throw new ApiError('MethodNotAllowed', `${ctx.resource.plural} cannot be watched`);
}

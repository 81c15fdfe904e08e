/**
 * The request handler of the API front: authentication (a bearer token),
 * kovn's own paths (`/healthz`, `/readyz`, `/livez`, `/kovn/stats`),
 * discovery (the description side answers), then resource paths routed
 * through the catalog to a verb (verbs.ts, watch.ts). Every refusal is a
 * `Status` body with its code; nothing hangs: an unexpected failure is a
 * 500 Status, and the handler counts every request and watch event for the
 * bench.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { ClusterSource } from '../../cluster/types.ts';
import type { Clock } from '../../runtime/clock.ts';
import type { ApiDescription, ServedResource } from '../types.ts';
import { writeList } from './list-stream.ts';
import { PatchStrategies } from './patch-strategies.ts';
import { parseResourcePath, type ResourcePath } from './path.ts';
import { acceptOf, mediaType, readJsonBody, refuseDryRun, truthy, type AcceptInfo } from './request.ts';
import { ApiError, qualified } from './status.ts';
import {
  createObject,
  deleteCollection,
  deleteObject,
  getObject,
  listBody,
  listObjects,
  patchObject,
  updateObject,
  type VerbAnswer,
  type VerbContext,
} from './verbs.ts';
import { checkWatchable, serveWatch } from './watch.ts';

export interface ApiHandlerOptions {
  readonly cluster: ClusterSource;
  readonly description: ApiDescription;
  readonly clock: Clock;
  /** Randomness in [0, 1) (generateName suffixes). */
  readonly random: () => number;
  /** Required as `Authorization: Bearer <token>` when given. */
  readonly token?: string;
  /** BOOKMARK interval of watches that allow them (default 60 s, as the API server's). */
  readonly bookmarkIntervalMs?: number;
  /**
   * A watch whose client reads slower than events come is ended once this
   * much is buffered for it (default 64 MiB), as the API server drops a
   * watcher that cannot keep up: the client watches again from the last
   * version it read, and memory does not grow with its backlog.
   */
  readonly maxWatchBufferBytes?: number;
}

/** What the front has served: the bench reads it at `/kovn/stats`. */
export interface ApiStats {
  /** Every request, authenticated or not. */
  readonly requests: number;
  /** Requests by verb (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`, `discovery`, `other`). */
  readonly byVerb: Readonly<Record<string, number>>;
  /** Watch events written (ADDED, MODIFIED, DELETED; not bookmarks). */
  readonly watchEvents: number;
  readonly watchesOpen: number;
}

/** Paths answered without authentication: probes need no credentials. */
const HEALTH_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/livez']);

/**
 * @example
 * const h = new ApiHandler({ cluster, description, clock: realClock, random: Math.random, token });
 * https.createServer({ key, cert }, (req, res) => h.handle(req, res));
 */
export class ApiHandler {
  private requests = 0;
  private readonly byVerb: Record<string, number> = {};
  private watchEvents = 0;
  private watchesOpen = 0;
  private readonly token: Buffer | undefined;
  private readonly strategies: PatchStrategies;

  constructor(private readonly opts: ApiHandlerOptions) {
    this.token = opts.token !== undefined ? Buffer.from(`Bearer ${opts.token}`) : undefined;
    this.strategies = new PatchStrategies(opts.description);
  }

  stats(): ApiStats {
    return {
      requests: this.requests,
      byVerb: { ...this.byVerb },
      watchEvents: this.watchEvents,
      watchesOpen: this.watchesOpen,
    };
  }

  /** Answers one request; never rejects (a failure is written as a Status). */
  handle(req: IncomingMessage, res: ServerResponse): void {
    this.requests++;
    this.serve(req, res).catch((err: unknown) => this.fail(res, err));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = requestUrl(req.url);
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (HEALTH_PATHS.has(path)) return this.text(res, 200, 'ok');
    this.authenticate(req);
    if (path === '/kovn/stats') return this.json(res, 200, this.stats());
    const found =
      (req.method === 'GET' || req.method === 'HEAD') && this.opts.description.discovery(path, req.headers.accept);
    if (found) {
      this.count('discovery');
      if (found.body instanceof Uint8Array) return this.bytes(res, found.status, found.body, found.contentType);
      return this.json(res, found.status, found.body, found.contentType);
    }
    const rp = parseResourcePath(path);
    const resource = rp && this.resourceOf(rp);
    if (!rp || !resource) {
      this.count('other');
      throw new ApiError('NotFound', 'the server could not find the requested resource', {});
    }
    const ctx: VerbContext = {
      cluster: this.opts.cluster,
      description: this.opts.description,
      resource,
      path: rp,
      query: url.searchParams,
      random: this.opts.random,
      strategies: () => this.strategies.of(resource),
    };
    await this.route(req, res, ctx);
  }

  /** The served resource of a path; a subresource other than `status`, or a scope that does not fit, is none. */
  private resourceOf(rp: ResourcePath): ServedResource | undefined {
    const r = this.opts.description.catalog.byPath(rp.group, rp.version, rp.plural);
    if (r === undefined) return undefined;
    if (rp.namespace !== undefined && !r.namespaced && rp.plural !== 'namespaces') return undefined;
    // A namespaced object is named within its namespace: `/api/v1/pods/web` names nothing.
    if (r.namespaced && rp.namespace === undefined && rp.name !== undefined) return undefined;
    if (rp.subresource !== undefined && (rp.subresource !== 'status' || !r.statusSubresource)) return undefined;
    return r;
  }

  private async route(req: IncomingMessage, res: ServerResponse, ctx: VerbContext): Promise<void> {
    const { path, query } = ctx;
    const named = path.name !== undefined;
    const method = req.method ?? 'GET';
    if (method === 'GET' && (path.watchPrefix || truthy(query.get('watch')))) {
      this.count('watch');
      this.allow(ctx, 'watch');
      checkWatchable(ctx);
      const accept = acceptOf(req.headers.accept, query);
      return serveWatch(ctx, res, accept, {
        clock: this.opts.clock,
        bookmarkIntervalMs: this.opts.bookmarkIntervalMs ?? 60_000,
        maxBufferedBytes: this.opts.maxWatchBufferBytes ?? 64 * 1024 * 1024,
        counters: {
          onEvent: () => void this.watchEvents++,
          onOpen: () => void this.watchesOpen++,
          onClose: () => void this.watchesOpen--,
        },
      });
    }
    if (method === 'GET' || method === 'HEAD') {
      const accept = acceptOf(req.headers.accept, query);
      return named ? this.get(res, ctx, accept) : this.list(res, ctx, accept);
    }
    // `/watch/` paths are watches only: a write there would land on the collection they name.
    if (path.watchPrefix)
      throw new ApiError('MethodNotAllowed', `the server does not allow this method on a watch path (${method})`);
    const verb = verbOf(method, named, path.subresource);
    this.count(verb);
    this.allow(ctx, verb);
    refuseDryRun(query);
    if (verb === 'create' && ctx.resource.namespaced && path.namespace === undefined)
      throw new ApiError('NotFound', 'the server could not find the requested resource', {});
    const body = await readJsonBody(req);
    const answer = await this.write(ctx, verb, req, body);
    this.answer(res, answer);
  }

  private async write(ctx: VerbContext, verb: string, req: IncomingMessage, body: unknown): Promise<VerbAnswer> {
    switch (verb) {
      case 'create':
        return createObject(ctx, body);
      case 'update':
        return updateObject(ctx, body);
      case 'patch':
        return patchObject(ctx, mediaType(req.headers['content-type']), body ?? {});
      case 'delete':
        return deleteObject(ctx, body);
      default:
        return deleteCollection(ctx);
    }
  }

  private async get(res: ServerResponse, ctx: VerbContext, accept: AcceptInfo): Promise<void> {
    this.count('get');
    this.allow(ctx, 'get');
    const obj = await getObject(ctx);
    const body = accept.table
      ? ctx.description.table(ctx.resource, [obj], {
          wide: true,
          includeObject: accept.includeObject,
          resourceVersion: obj.metadata.resourceVersion ?? '',
        })
      : obj;
    this.json(res, 200, body);
  }

  private async list(res: ServerResponse, ctx: VerbContext, accept: AcceptInfo): Promise<void> {
    this.count('list');
    this.allow(ctx, 'list');
    const { items, resourceVersion } = await listObjects(ctx);
    if (!accept.table) {
      const { items: _items, ...head } = listBody(ctx.resource, [], resourceVersion);
      return writeList(res, head, items);
    }
    const opts = { wide: true, includeObject: accept.includeObject, resourceVersion };
    this.json(res, 200, ctx.description.table(ctx.resource, items, opts));
  }

  /** 405 for a verb the resource does not list (as discovery says it). */
  private allow(ctx: VerbContext, verb: string): void {
    if (!ctx.resource.verbs.includes(verb))
      throw new ApiError(
        'MethodNotAllowed',
        `the server does not allow this method on the requested resource (${verb} ${qualified(ctx.resource)})`,
        { group: ctx.resource.group, kind: ctx.resource.plural },
      );
  }

  private authenticate(req: IncomingMessage): void {
    if (this.token === undefined) return;
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== this.token.length || !timingSafeEqual(given, this.token))
      throw new ApiError('Unauthorized', 'Unauthorized');
  }

  private count(verb: string): void {
    this.byVerb[verb] = (this.byVerb[verb] ?? 0) + 1;
  }

  private answer(res: ServerResponse, a: VerbAnswer): void {
    // Warning headers as RFC 7234 has them: code 299, agent "-", the text quoted.
    const warnings = a.warnings.map((w) => `299 - "${w.replace(/["\\]/g, '\\$&')}"`);
    if (warnings.length > 0) res.setHeader('Warning', warnings);
    this.json(res, a.status, a.body);
  }

  private json(res: ServerResponse, status: number, body: unknown, contentType = 'application/json'): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  /** Bytes as they are (/openapi/v2 in protobuf, which kubectl 1.20 reads). */
  private bytes(res: ServerResponse, status: number, body: Uint8Array, contentType = 'application/octet-stream'): void {
    res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': body.length });
    res.end(body);
  }

  private text(res: ServerResponse, status: number, body: string): void {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }

  private fail(res: ServerResponse, err: unknown): void {
    const e =
      err instanceof ApiError
        ? err
        : new ApiError('InternalError', `an internal error occurred: ${(err as Error)?.message ?? String(err)}`);
    if (res.headersSent) {
      // A stream already under way (a watch): nothing more can be said in its headers.
      if (!res.writableEnded) res.end();
      return;
    }
    this.json(res, e.httpStatus, e.body());
  }
}

/**
 * The request target as a URL. Appended to an origin rather than resolved
 * against one: a target starting `//` is a path here, not a host.
 */
function requestUrl(target: string | undefined): URL {
  try {
    return new URL(`https://kovn.invalid${target?.startsWith('/') ? target : `/${target ?? ''}`}`);
  } catch (err) {
    throw new ApiError('BadRequest', `the request target is not a URL path: ${target}`, undefined, { cause: err });
  }
}

/** The verb of a write request: POST creates, PUT updates, PATCH patches, DELETE deletes one or a collection. */
function verbOf(method: string, named: boolean, subresource: string | undefined): string {
  if (method === 'POST' && !named && subresource === undefined) return 'create';
  if (method === 'PUT' && named) return 'update';
  if (method === 'PATCH' && named) return 'patch';
  if (method === 'DELETE' && subresource === undefined) return named ? 'delete' : 'deletecollection';
  throw new ApiError('MethodNotAllowed', `the server does not allow this method on the requested resource (${method})`);
}

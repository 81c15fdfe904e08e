/**
 * The API-description side of `kovn sim serve` put together: the catalog
 * with kovn's own CRD manifests registered at start and kept in step with
 * the CustomResourceDefinition objects of the cluster (created through the
 * API or given in the loaded files), discovery, Tables and validation.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ClusterError, ClusterSource, KubeObject, Watch } from '../../cluster/types.ts';
import type { ApiAnswer, ApiDescription, FieldCause, ServedResource } from '../types.ts';
import { createCatalog, type MutableCatalog } from './catalog.ts';
import { crdStatusUpdate } from './crd-status.ts';
import { discover } from './discovery.ts';
import { cachedOpenApi } from './openapi/document.ts';
import { renderTable } from './tables.ts';
import { pruneObject, validateObject } from './validate.ts';

const CRD_KIND = 'CustomResourceDefinition';

/** A CRD manifest that cannot be read or is refused. */
export class DescribeError extends Error {
  override readonly name = 'DescribeError';
  constructor(
    readonly code: 'CrdFileUnreadable' | 'CrdInvalid',
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

export interface ApiDescriptionOptions {
  /** CRD manifests (files, or folders of `*.yaml`) registered at start and created in the cluster when absent. */
  readonly crdFiles?: readonly string[];
  /** Milliseconds since the epoch, for the AGE of Tables. */
  readonly now?: () => number;
}

/** The description, and a way to stop following the cluster's CRDs. */
export interface LiveApiDescription extends ApiDescription {
  readonly catalog: MutableCatalog;
  /** CRDs stored in the cluster that are not served, with why (a CRD written before a rule refused it). */
  refusedCrds(): ReadonlyMap<string, readonly FieldCause[]>;
  /** CRDs whose status could not be written, with the error (none expected: the cluster is in process). */
  statusErrors(): ReadonlyMap<string, unknown>;
  close(): void;
}

/** The files a list of files and folders names (a folder: its `*.yaml` and `*.yml`, sorted). */
function expandFiles(paths: readonly string[]): string[] {
  return paths.flatMap((p) =>
    statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => /\.ya?ml$/.test(f))
          .sort()
          .map((f) => join(p, f))
      : [p],
  );
}

/**
 * The CustomResourceDefinitions of manifest files (other documents are not CRDs and are skipped).
 *
 * @example readCrdFiles(['deploy/crds']).map((c) => c.metadata.name) // ['ips.kubeovn.io', ...]
 */
export function readCrdFiles(paths: readonly string[]): KubeObject[] {
  const out: KubeObject[] = [];
  let files: string[];
  try {
    files = expandFiles(paths);
  } catch (e) {
    throw new DescribeError('CrdFileUnreadable', `CRD manifests ${paths.join(', ')}: ${(e as Error).message}`, e);
  }
  for (const file of files) {
    let docs: unknown[];
    try {
      docs = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
        if (d.errors.length > 0) throw d.errors[0];
        return d.toJS();
      });
    } catch (e) {
      throw new DescribeError('CrdFileUnreadable', `${file}: ${(e as Error).message}`, e);
    }
    for (const d of docs) {
      if (typeof d === 'object' && d !== null && (d as KubeObject).kind === CRD_KIND) out.push(d as KubeObject);
    }
  }
  return out;
}

/**
 * The description over a cluster: registers the CRDs of `crdFiles` (and
 * creates them in the cluster when absent), then the cluster's own CRDs,
 * and follows them (a CRD created, changed or deleted through the API).
 *
 * @example
 * const d = await createApiDescription(cluster, { crdFiles: ['deploy/crds'] });
 * d.discovery('/apis/kubeovn.io/v1')?.body // APIResourceList with subnets, vpcs, ips, ippools
 */
export async function createApiDescription(
  cluster: ClusterSource,
  opts: ApiDescriptionOptions = {},
): Promise<LiveApiDescription> {
  const catalog = createCatalog();
  const refused = new Map<string, readonly FieldCause[]>();
  const statusErrors = new Map<string, unknown>();
  for (const crd of readCrdFiles(opts.crdFiles ?? [])) {
    const causes = catalog.registerCrd(crd);
    if (causes.length > 0) {
      const why = causes.map((c) => `${c.field}: ${c.message}`).join('; ');
      throw new DescribeError('CrdInvalid', `CustomResourceDefinition ${crd.metadata.name}: ${why}`);
    }
    const ref = { kind: CRD_KIND, name: crd.metadata.name };
    if (!(await cluster.get(ref))) await cluster.create(crd);
  }
  const follow = (o: KubeObject, gone: boolean): void => {
    if (gone) {
      refused.delete(o.metadata.name);
      return catalog.unregisterCrd(o.metadata.name);
    }
    const causes = catalog.registerCrd(o);
    if (causes.length > 0) refused.set(o.metadata.name, causes);
    else refused.delete(o.metadata.name);
    const now = opts.now ? new Date(opts.now()).toISOString().replace(/\.\d+Z$/, 'Z') : undefined;
    const status = crdStatusUpdate(o, causes, now);
    if (status) void writeStatus(cluster, o, status, statusErrors);
  };
  const watch = await followCrds(cluster, follow);
  const openapi = cachedOpenApi(catalog);
  return {
    catalog,
    refusedCrds: () => refused,
    statusErrors: () => statusErrors,
    close: () => watch.stop(),
    discovery: (path: string, accept?: string): ApiAnswer | undefined =>
      path.split('?')[0] === '/openapi/v2' ? openApiAnswer(openapi, accept) : discover(catalog, path),
    table: (r: ServedResource, objects: readonly KubeObject[], o) =>
      renderTable(r, objects, { ...o, ...(opts.now ? { now: opts.now } : {}) }),
    validate: (r: ServedResource, obj: KubeObject): readonly FieldCause[] =>
      r.kind === CRD_KIND && r.origin === 'builtin'
        ? [...validateObject(r, obj), ...catalog.checkCrd(obj)]
        : validateObject(r, obj),
    prune: (r: ServedResource, obj: KubeObject): KubeObject => pruneObject(r, obj),
  };
}

/** Writes a CRD's status; one deleted meanwhile needs none, any other failure is kept for `statusErrors`. */
async function writeStatus(
  cluster: ClusterSource,
  crd: KubeObject,
  status: unknown,
  errors: Map<string, unknown>,
): Promise<void> {
  try {
    await cluster.patch({ kind: CRD_KIND, name: crd.metadata.name }, { status }, { subresource: 'status' });
    errors.delete(crd.metadata.name);
  } catch (e) {
    if ((e as ClusterError).reason !== 'NotFound') errors.set(crd.metadata.name, e);
  }
}

/**
 * /openapi/v2: protobuf unless the client asks for JSON and not protobuf;
 * sent as application/octet-stream, as the API server does (Go's media-type
 * parser refuses the `@` of the type kubectl asks for).
 */
function openApiAnswer(openapi: ReturnType<typeof cachedOpenApi>, accept: string | undefined): ApiAnswer {
  const json = accept !== undefined && /json/.test(accept) && !/protobuf/.test(accept);
  return json
    ? { status: 200, body: openapi.json(), contentType: 'application/json' }
    : { status: 200, body: openapi.protobuf(), contentType: 'application/octet-stream' };
}

/** Lists the cluster's CRDs, then watches them; a watch that falls too far behind lists again. */
async function followCrds(cluster: ClusterSource, follow: (o: KubeObject, gone: boolean) => void): Promise<Watch> {
  let current: Watch | undefined;
  let stopped = false;
  const start = async (): Promise<void> => {
    const list = await cluster.list(CRD_KIND);
    const names = new Set(list.items.map((o) => o.metadata.name));
    for (const o of list.items) follow(o, false);
    for (const [name] of seen) if (!names.has(name)) follow(seen.get(name)!, true);
    seen.clear();
    for (const o of list.items) seen.set(o.metadata.name, o);
    if (stopped) return;
    current = cluster.watch(
      CRD_KIND,
      list.resourceVersion,
      (e) => {
        if (e.type === 'DELETED') seen.delete(e.object.metadata.name);
        else seen.set(e.object.metadata.name, e.object);
        follow(e.object, e.type === 'DELETED');
      },
      (err: ClusterError) => {
        if (err.reason === 'Gone' && !stopped) void start();
      },
    );
  };
  const seen = new Map<string, KubeObject>();
  await start();
  return {
    stop() {
      stopped = true;
      current?.stop();
    },
  };
}

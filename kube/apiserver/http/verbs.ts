/**
 * The verbs on objects (get, list, create, update, patch, delete,
 * deletecollection) over a `ClusterSource`, with the API server's checks
 * that the cluster does not make: the object's kind, apiVersion, name and
 * namespace agree with the path; `generateName`; validation by the
 * description side (422 with causes; unknown fields pruned and returned as
 * warnings); patches computed here and stored as an update with the
 * version they were computed from (retried on a conflict, as the server's
 * patcher does). The status subresource writes status only.
 */
import { isPlainObject, jsonEqual } from '../../cluster/json.ts';
import { ClusterError, type ClusterSource, type KubeObject, type ObjectRef } from '../../cluster/types.ts';
import type { ApiDescription, FieldCause, ServedResource } from '../types.ts';
import { withoutFields } from './fields.ts';
import { isObjectMetaField, isServerField, metaTypeProblem } from './object-meta.ts';
import { patchedObject, type StrategyLookup } from './patch/index.ts';
import type { ResourcePath } from './path.ts';
import { type FieldValidation, fieldValidationOf } from './request.ts';
import { ApiError, apiErrorOf, qualified } from './status.ts';

export interface VerbContext {
  readonly cluster: ClusterSource;
  readonly description: ApiDescription;
  readonly resource: ServedResource;
  readonly path: ResourcePath;
  readonly query: URLSearchParams;
  /** Randomness in [0, 1) for `generateName` suffixes. */
  readonly random: () => number;
  /** The resource's patch strategies, for strategic merge patches (from the served /openapi/v2). */
  readonly strategies: () => StrategyLookup;
}

/** An answer: the HTTP status, the object (or list) and the Warning texts. */
export interface VerbAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly warnings: readonly string[];
}

/** How many times a patch is recomputed when the object changed under it. */
const PATCH_RETRIES = 5;

export const groupVersion = (r: ServedResource): string => (r.group === '' ? r.version : `${r.group}/${r.version}`);

/** The ref of the object a path names (its name required). */
export function refOfPath(ctx: VerbContext): ObjectRef {
  const { resource, path } = ctx;
  return {
    kind: resource.kind,
    name: path.name!,
    ...(resource.namespaced && path.namespace !== undefined ? { namespace: path.namespace } : {}),
  };
}

/** Runs a cluster call, its refusals turned into the API's Status. */
export async function onCluster<T>(ctx: VerbContext, f: () => Promise<T>, name?: string): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof ClusterError) throw apiErrorOf(err, ctx.resource, name ?? err.ref.name);
    throw err;
  }
}

export async function getObject(ctx: VerbContext): Promise<KubeObject> {
  const obj = await onCluster(ctx, () => ctx.cluster.get(refOfPath(ctx)), ctx.path.name);
  if (obj === undefined)
    throw new ApiError('NotFound', `${qualified(ctx.resource, ctx.path.name)} not found`, details(ctx));
  return obj;
}

/** The ListOptions of a request: its namespace and selectors. */
export function listOptionsOf(ctx: VerbContext) {
  const { query, path } = ctx;
  const label = query.get('labelSelector');
  const field = query.get('fieldSelector');
  return {
    ...(path.namespace !== undefined ? { namespace: path.namespace } : {}),
    ...(label !== null && label !== '' ? { labelSelector: label } : {}),
    ...(field !== null && field !== '' ? { fieldSelector: field } : {}),
  };
}

export async function listObjects(
  ctx: VerbContext,
): Promise<{ items: readonly KubeObject[]; resourceVersion: string }> {
  return onCluster(ctx, () => ctx.cluster.list(ctx.resource.kind, listOptionsOf(ctx)));
}

export async function createObject(ctx: VerbContext, body: unknown): Promise<VerbAnswer> {
  let obj = shaped(ctx, body, 'create');
  const meta = obj.metadata as { name?: string; generateName?: string };
  if ((meta.name === undefined || meta.name === '') && typeof meta.generateName === 'string' && meta.generateName)
    obj = { ...obj, metadata: { ...obj.metadata, name: `${meta.generateName}${suffix(ctx.random)}` } };
  const admitted = admit(ctx, obj);
  const created = await onCluster(ctx, () => ctx.cluster.create(admitted.object), obj.metadata.name);
  return { status: 201, body: created, warnings: admitted.warnings };
}

export async function updateObject(ctx: VerbContext, body: unknown): Promise<VerbAnswer> {
  const obj = shaped(ctx, body, 'update');
  if (obj.metadata.name !== ctx.path.name)
    throw new ApiError(
      'BadRequest',
      `the name of the object (${obj.metadata.name}) does not match the name on the URL (${ctx.path.name})`,
    );
  const admitted = admit(ctx, obj);
  const stored = await store(ctx, admitted.object);
  return { status: 200, body: stored, warnings: admitted.warnings };
}

export async function patchObject(ctx: VerbContext, type: string, patch: unknown): Promise<VerbAnswer> {
  for (let attempt = 0; ; attempt++) {
    const current = await getObject(ctx);
    const computed = patchedObject(type, current, patch, {
      strategic: ctx.resource.strategicMerge,
      strategies: ctx.strategies,
    });
    const next = shaped(ctx, computed, 'patch');
    for (const [field, got, want] of [
      ['metadata.name', next.metadata.name, current.metadata.name],
      ['metadata.namespace', next.metadata.namespace, current.metadata.namespace],
    ] as const) {
      if (got !== want)
        throw invalid(ctx, [{ reason: 'FieldValueInvalid', field, message: `field is immutable (was ${want})` }]);
    }
    const admitted = admit(ctx, next);
    try {
      return { status: 200, body: await store(ctx, admitted.object), warnings: admitted.warnings };
    } catch (err) {
      // The object changed between read and write: patch again, unless the patch itself named the version.
      const pinned = next.metadata.resourceVersion !== current.metadata.resourceVersion;
      if (!(err instanceof ApiError) || err.code !== 'Conflict' || pinned || attempt >= PATCH_RETRIES) throw err;
    }
  }
}

export async function deleteObject(ctx: VerbContext, body: unknown): Promise<VerbAnswer> {
  const current = await getObject(ctx);
  const pre = isPlainObject(body) && isPlainObject(body['preconditions']) ? body['preconditions'] : {};
  for (const [k, have] of [
    ['uid', current.metadata.uid],
    ['resourceVersion', current.metadata.resourceVersion],
  ] as const) {
    const want = pre[k];
    if (want !== undefined && want !== null && want !== have)
      throw new ApiError(
        'Conflict',
        `Operation cannot be fulfilled on ${qualified(ctx.resource, ctx.path.name)}: Precondition failed: ${k} in precondition: ${String(want)}, ${k} in object meta: ${String(have)}`,
        details(ctx),
      );
  }
  await onCluster(ctx, () => ctx.cluster.delete(refOfPath(ctx)), ctx.path.name);
  const after = await onCluster(ctx, () => ctx.cluster.get(refOfPath(ctx)), ctx.path.name);
  // Held by finalizers: 202 with the object as it stands (deletionTimestamp set).
  return after !== undefined && after.metadata.uid === current.metadata.uid
    ? { status: 202, body: after, warnings: [] }
    : { status: 200, body: current, warnings: [] };
}

/** Deletes every object the request's namespace and selectors match; answers the list of what it deleted. */
export async function deleteCollection(ctx: VerbContext): Promise<VerbAnswer> {
  const { items, resourceVersion } = await listObjects(ctx);
  const deleted: KubeObject[] = [];
  for (const o of items) {
    const ref: ObjectRef = { kind: ctx.resource.kind, name: o.metadata.name, ...nsOf(o) };
    try {
      await ctx.cluster.delete(ref);
      deleted.push(o);
    } catch (err) {
      if (!(err instanceof ClusterError && err.reason === 'NotFound')) throw err;
    }
  }
  return { status: 200, body: listBody(ctx.resource, deleted, resourceVersion), warnings: [] };
}

export function listBody(r: ServedResource, items: readonly KubeObject[], resourceVersion: string) {
  return { apiVersion: groupVersion(r), kind: r.listKind, metadata: { resourceVersion }, items };
}

const nsOf = (o: KubeObject) => (o.metadata.namespace !== undefined ? { namespace: o.metadata.namespace } : {});

/** Writes `next` over `current`: the spec and metadata, or the status alone for the status subresource. */
async function store(ctx: VerbContext, next: KubeObject): Promise<KubeObject> {
  const { cluster, path, resource } = ctx;
  const name = path.name;
  if (path.subresource === 'status') return onCluster(ctx, () => cluster.updateStatus(next), name);
  const updated = await onCluster(ctx, () => cluster.update(next), name);
  // A resource without a status subresource writes its status like any other field.
  if (resource.statusSubresource || jsonEqual(updated.status, next.status)) return updated;
  const { resourceVersion: _rv, ...meta } = updated.metadata;
  return onCluster(ctx, () => cluster.updateStatus({ ...updated, metadata: meta, status: next.status }), name);
}

/**
 * The body as an object of the path's resource: kind and apiVersion filled
 * when absent and checked when given, the namespace taken from the path
 * (a different one refused), a namespace refused on a cluster-scoped kind.
 */
function shaped(ctx: VerbContext, body: unknown, verb: string): KubeObject {
  const { resource, path } = ctx;
  if (!isPlainObject(body)) throw new ApiError('BadRequest', `${verb}: the request body must be an object`);
  const gv = groupVersion(resource);
  const kind = body['kind'] ?? resource.kind;
  const apiVersion = body['apiVersion'] ?? gv;
  if (kind !== resource.kind || apiVersion !== gv)
    throw new ApiError(
      'BadRequest',
      `the API version in the data (${String(apiVersion)}) and kind (${String(kind)}) do not match the resource ${gv}, ${resource.kind}`,
    );
  const meta = body['metadata'] ?? {};
  if (!isPlainObject(meta)) throw new ApiError('BadRequest', `${verb}: metadata must be an object`);
  const badMeta = metaTypeProblem(meta);
  if (badMeta !== undefined) throw new ApiError('BadRequest', `${verb}: ${badMeta}`);
  const ns = meta['namespace'];
  let namespace: string | undefined;
  if (resource.namespaced) {
    if (ns !== undefined && ns !== '' && ns !== path.namespace)
      throw new ApiError(
        'BadRequest',
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    namespace = path.namespace;
  } else if (ns !== undefined && ns !== '')
    throw new ApiError('BadRequest', `${resource.kind} is cluster-scoped: metadata.namespace must be empty`);
  const { namespace: _ns, ...rest } = meta;
  return {
    ...body,
    apiVersion: gv,
    kind: resource.kind,
    metadata: { ...rest, ...(namespace !== undefined ? { namespace } : {}) } as KubeObject['metadata'],
  };
}

/** The object after validation: unknown fields pruned (warned, unless Ignore; refused with Strict), other causes 422. */
function admit(ctx: VerbContext, obj: KubeObject): { object: KubeObject; warnings: string[] } {
  const mode: FieldValidation = fieldValidationOf(ctx.query);
  // ObjectMeta, apiVersion and kind are the server's, typed, never a schema's to prune.
  const causes = ctx.description
    .validate(ctx.resource, obj)
    .filter((c) => !(c.reason === 'FieldValueUnknown' && isServerField(c.field)));
  const unknown = causes.filter((c) => c.reason === 'FieldValueUnknown');
  const refused = mode === 'Strict' ? causes : causes.filter((c) => c.reason !== 'FieldValueUnknown');
  if (refused.length > 0) throw invalid(ctx, refused, obj.metadata.name);
  const warnings = mode === 'Warn' ? unknown.map((c) => `unknown field "${c.field}"`) : [];
  const { description, resource } = ctx;
  // The description prunes as its schema says (nulls of non-nullable fields too); without one, the unknown fields go.
  const pruned = description.prune
    ? description.prune(resource, obj)
    : withoutFields(
        obj,
        unknown.map((c) => c.field),
      );
  return { object: withServerFields(obj, pruned), warnings };
}

/** `pruned` with the server's own fields as `obj` has them: apiVersion, kind and every ObjectMeta field. */
function withServerFields(obj: KubeObject, pruned: KubeObject): KubeObject {
  const meta: Record<string, unknown> = isPlainObject(pruned.metadata) ? { ...pruned.metadata } : {};
  for (const [k, v] of Object.entries(obj.metadata)) if (isObjectMetaField(k)) meta[k] = v;
  return { ...pruned, apiVersion: obj.apiVersion, kind: obj.kind, metadata: meta as unknown as KubeObject['metadata'] };
}

function invalid(ctx: VerbContext, causes: readonly FieldCause[], name = ctx.path.name): ApiError {
  const r = ctx.resource;
  const kind = r.group === '' ? r.kind : `${r.kind}.${r.group}`;
  const what = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  return new ApiError('Invalid', `${kind} "${name ?? ''}" is invalid: ${what}`, {
    ...(name !== undefined ? { name } : {}),
    group: r.group,
    kind: r.kind,
    causes,
  });
}

const details = (ctx: VerbContext) => ({
  ...(ctx.path.name !== undefined ? { name: ctx.path.name } : {}),
  group: ctx.resource.group,
  kind: ctx.resource.plural,
});

/** Five characters of [a-z0-9] as the API server's generateName suffix (without vowels, as names.SimpleNameGenerator). */
function suffix(random: () => number): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let s = '';
  for (let i = 0; i < 5; i++) s += alphabet[Math.floor(random() * alphabet.length)];
  return s;
}

/**
 * A CRD version's `openAPIV3Schema` as the API server publishes it in
 * /openapi/v2 for kubectl 1.20: what OpenAPI v2 (and kubectl's reading of
 * it) cannot express is loosened, never tightened, so kubectl never refuses
 * what the API server accepts: allOf/anyOf/oneOf/not dropped; a nullable
 * field loses its type; `x-kubernetes-preserve-unknown-fields` loses its
 * properties and items (kubectl would report the unknown fields it keeps);
 * int-or-string loses its type; an array without items loses its type. The
 * root gets apiVersion, kind and metadata (ObjectMeta), unless it preserves
 * unknown fields, where it stays a bare object (kubectl checks nothing in it).
 */
import type { ServedResource } from '../../types.ts';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ObjectMeta definition CRD roots refer to. */
export const OBJECT_META_REF = '#/definitions/V1ObjectMeta';

const DROPPED = ['allOf', 'anyOf', 'oneOf', 'not', 'nullable'];

function typeMeta(s: Json): Json {
  return {
    ...s,
    type: 'object',
    properties: {
      ...(isObj(s.properties) ? s.properties : {}),
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { $ref: OBJECT_META_REF },
    },
  };
}

/** One schema node converted, its children too. */
export function toV2Schema(s: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) if (!DROPPED.includes(k)) out[k] = v;
  if (s.nullable === true || s['x-kubernetes-int-or-string'] === true) {
    delete out.type;
    if (s.nullable === true) delete out.items;
    if (s.nullable === true) delete out.properties;
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === true) {
    delete out.items;
    delete out.properties;
  }
  if (isObj(out.properties)) {
    const props = out.properties;
    out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, isObj(v) ? toV2Schema(v) : v]));
    if (Array.isArray(out.required)) {
      out.required = out.required.filter((r) => !(isObj(props[r]) && props[r].nullable === true));
    }
  }
  if (isObj(out.items)) out.items = toV2Schema(out.items);
  else delete out.items;
  if (out.type === 'array' && out.items === undefined) delete out.type;
  if (isObj(out.additionalProperties)) out.additionalProperties = toV2Schema(out.additionalProperties);
  if (s['x-kubernetes-embedded-resource'] === true && isObj(out.properties)) return typeMeta(out);
  return out;
}

/**
 * The definition name the API server gives a custom resource: the group reversed, the version, the kind.
 *
 * @example crdDefinitionName(subnets) // 'io.kubeovn.v1.Subnet'
 */
export function crdDefinitionName(r: Pick<ServedResource, 'group' | 'version' | 'kind'>): string {
  return [...r.group.split('.').reverse(), r.version, r.kind].join('.');
}

/** The published v2 definition of a CRD-served resource. */
export function crdDefinition(r: ServedResource): Json {
  const schema = isObj(r.schema) ? r.schema : undefined;
  const gvk = { 'x-kubernetes-group-version-kind': [{ group: r.group, version: r.version, kind: r.kind }] };
  if (!schema || schema['x-kubernetes-preserve-unknown-fields'] === true) return { type: 'object', ...gvk };
  return { ...typeMeta(toV2Schema(schema)), ...gvk };
}

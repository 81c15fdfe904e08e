/**
 * Whether a CRD version's `openAPIV3Schema` is structural, as apiextensions.k8s.io/v1
 * requires (and as validate.ts and the /openapi/v2 conversion assume):
 * every field has a type, unless it is `x-kubernetes-int-or-string` or
 * `x-kubernetes-preserve-unknown-fields`; `items` is one schema, not a
 * list; `properties` and `additionalProperties` are not both given; the
 * value validations inside allOf/anyOf/oneOf/not need no type.
 */
import type { FieldCause } from '../types.ts';

type Json = Readonly<Record<string, unknown>>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function walk(s: Json, at: string, out: FieldCause[]): void {
  const typed = typeof s.type === 'string' && s.type !== '';
  const exempt = s['x-kubernetes-int-or-string'] === true || s['x-kubernetes-preserve-unknown-fields'] === true;
  if (!typed && !exempt) {
    out.push({
      reason: 'FieldValueRequired',
      field: `${at}.type`,
      message: 'must not be empty for specified object fields',
    });
  }
  if (Array.isArray(s.items)) {
    out.push({
      reason: 'FieldValueForbidden',
      field: `${at}.items`,
      message: 'items must be a schema object and not an array',
    });
  } else if (isObj(s.items)) walk(s.items, `${at}.items`, out);
  if (isObj(s.properties) && s.additionalProperties !== undefined && s.additionalProperties !== false) {
    out.push({
      reason: 'FieldValueForbidden',
      field: at,
      message: 'additionalProperties and properties are mutual exclusive',
    });
  }
  if (isObj(s.properties)) {
    for (const [k, v] of Object.entries(s.properties)) if (isObj(v)) walk(v, `${at}.properties[${k}]`, out);
  }
  if (isObj(s.additionalProperties)) walk(s.additionalProperties, `${at}.additionalProperties`, out);
}

/**
 * The causes a schema is not structural for (empty when it is).
 *
 * @example structuralProblems({ type: 'object', properties: { spec: {} } }, 'x')[0]?.field // 'x.properties[spec].type'
 */
export function structuralProblems(schema: Json, at: string): FieldCause[] {
  const out: FieldCause[] = [];
  walk(schema, at, out);
  return out;
}

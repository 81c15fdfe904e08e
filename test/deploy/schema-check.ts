/**
 * The part of OpenAPI v3 structural-schema checking the deploy tests need to
 * tell whether an object fits a CRD: declared fields, JSON types, required
 * fields, enums. (The API front's full validator is kube/apiserver/describe.)
 */

interface Schema {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: Schema | boolean;
  readonly items?: Schema;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
}

const jsonType = (v: unknown): string =>
  Array.isArray(v) ? 'array' : v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v;

function typeFits(s: Schema, v: unknown): boolean {
  const t = jsonType(v);
  if (s['x-kubernetes-int-or-string']) return t === 'integer' || t === 'string';
  if (s.type === undefined) return true;
  return s.type === t || (s.type === 'number' && t === 'integer');
}

/**
 * What in `value` does not fit `schema`, one line per problem (`spec.mtu:
 * integer expected, got number`); metadata is the API server's, not checked.
 *
 * @example schemaProblems({ type: 'object', properties: {} }, { a: 1 }) // ['a: unknown field']
 */
export function schemaProblems(schema: unknown, value: unknown, path = ''): string[] {
  const s = schema as Schema;
  const at = path === '' ? '<root>' : path;
  if (!typeFits(s, value)) return [`${at}: ${s.type} expected, got ${jsonType(value)}`];
  if (s.enum !== undefined && !s.enum.includes(value)) return [`${at}: not one of ${JSON.stringify(s.enum)}`];
  const out: string[] = [];
  if (Array.isArray(value) && s.items)
    value.forEach((v, i) => out.push(...schemaProblems(s.items, v, `${path}[${i}]`)));
  if (jsonType(value) !== 'object' || path === 'metadata') return out;
  const obj = value as Record<string, unknown>;
  for (const r of s.required ?? []) if (!(r in obj)) out.push(`${path === '' ? '' : `${path}.`}${r}: required`);
  for (const [k, v] of Object.entries(obj)) {
    const p = path === '' ? k : `${path}.${k}`;
    const sub = s.properties?.[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    if (sub !== undefined) out.push(...schemaProblems(sub, v, p));
    else if (!s['x-kubernetes-preserve-unknown-fields'] && s.additionalProperties !== true)
      out.push(`${p}: unknown field`);
  }
  return out;
}

/**
 * An OpenAPI v3 structural-schema validator, as the API server checks a
 * custom resource against its CRD's `openAPIV3Schema`: type, required,
 * enum, pattern, format, the numeric, length, item and property bounds,
 * items, properties, additionalProperties, allOf/anyOf/oneOf/not,
 * `x-kubernetes-preserve-unknown-fields`, `x-kubernetes-int-or-string`,
 * `x-kubernetes-embedded-resource`. Problems are field causes naming the
 * field (`spec.excludeIps[2]`) with the API server's reasons.
 *
 * Fields the schema does not know are causes of reason `FieldValueUnknown`:
 * the HTTP side turns them into Warning headers and stores the object
 * pruned (`pruneObject`), as an API server with fieldValidation=Warn does.
 * A null of a field that is not `nullable` is pruned too, as the API server
 * prunes it, and is no error; a declared field that is absent gets the
 * schema's `default` in the stored object. `apiVersion`, `kind` and `metadata` at the
 * root are the API server's own and are not checked against the schema.
 */
import type { KubeObject } from '../../cluster/types.ts';
import type { FieldCause, ServedResource } from '../types.ts';
import { formatProblem } from './formats.ts';
import { BUILTIN_DEFINITIONS, KIND_MODELS } from './openapi/builtin.gen.ts';

type Schema = Readonly<Record<string, unknown>>;
type Obj = Readonly<Record<string, unknown>>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const schemaOf = (v: unknown): Schema | undefined => (isObj(v) ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);
const show = (v: unknown): string => JSON.stringify(v) ?? String(v);

/** What the JSON value is, in the schema's type names. */
function typeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

const intOrString = (s: Schema): boolean => s['x-kubernetes-int-or-string'] === true || s.format === 'int-or-string';

function typeMatches(s: Schema, v: unknown, lenient: boolean): boolean {
  const actual = typeOf(v);
  if (intOrString(s)) return actual === 'integer' || actual === 'string';
  const want = s.type;
  if (typeof want !== 'string') return true;
  if (lenient && want === 'string' && (actual === 'integer' || actual === 'number')) return true;
  return want === actual || (want === 'number' && actual === 'integer');
}

interface WalkOptions {
  /** Definitions `$ref`s point to (`#/definitions/<name>`): the built-ins' v2 schemas. */
  readonly definitions?: Readonly<Record<string, unknown>>;
  /**
   * A number where a string is declared is accepted: the built-ins' schemas
   * (from client-node's models) say `string` for quantities (`cpu: 1`),
   * which the API server reads from numbers too.
   */
  readonly lenientStrings?: boolean;
}

class Walk {
  readonly causes: FieldCause[] = [];
  constructor(readonly opts: WalkOptions = {}) {}
  add(reason: string, field: string, message: string): void {
    this.causes.push({ reason, field, message });
  }

  /** Checks `v` at `path` and returns it with unknown fields and non-nullable nulls removed. */
  value(schema: Schema, v: unknown, path: string): unknown {
    const s = this.resolve(schema);
    if (!typeMatches(s, v, this.opts.lenientStrings === true)) {
      const want = intOrString(s) ? 'integer or string' : String(s.type);
      this.add('FieldValueTypeInvalid', path, `${path} in body must be of type ${want}: ${show(typeOf(v))}`);
      return v;
    }
    this.values(s, v, path);
    this.combinators(s, v, path);
    if (Array.isArray(v)) return this.array(s, v, path);
    if (isObj(v)) return this.object(s, v, path);
    return v;
  }

  /** A `$ref`'s definition (an unknown one constrains nothing). */
  private resolve(s: Schema): Schema {
    if (typeof s.$ref !== 'string') return s;
    const name = s.$ref.replace(/^#\/definitions\//, '');
    return schemaOf(this.opts.definitions?.[name]) ?? {};
  }

  private values(s: Schema, v: unknown, path: string): void {
    if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
      const supported = s.enum.map(show).join(', ');
      this.add('FieldValueNotSupported', path, `Unsupported value: ${show(v)}: supported values: ${supported}`);
    }
    if (typeof v === 'string') this.string(s, v, path);
    if (typeof v === 'number') this.number(s, v, path);
  }

  private string(s: Schema, v: string, path: string): void {
    const len = [...v].length;
    const max = num(s.maxLength);
    const min = num(s.minLength);
    if (max !== undefined && len > max)
      this.add('FieldValueTooLong', path, `${path} in body should be at most ${max} chars long`);
    if (min !== undefined && len < min)
      this.add('FieldValueInvalid', path, `${path} in body should be at least ${min} chars long`);
    if (typeof s.pattern === 'string' && !safeRegExp(s.pattern)?.test(v)) {
      this.add('FieldValueInvalid', path, `${path} in body should match '${s.pattern}'`);
    }
    const bad = typeof s.format === 'string' && !intOrString(s) ? formatProblem(s.format, v) : undefined;
    if (bad) this.add('FieldValueInvalid', path, `${path} in body must be of type ${s.format}: ${show(v)}`);
  }

  private number(s: Schema, v: number, path: string): void {
    const max = num(s.maximum);
    const min = num(s.minimum);
    if (max !== undefined && (s.exclusiveMaximum === true ? v >= max : v > max)) {
      const op = s.exclusiveMaximum === true ? 'less than' : 'less than or equal to';
      this.add('FieldValueInvalid', path, `${path} in body should be ${op} ${max}`);
    }
    if (min !== undefined && (s.exclusiveMinimum === true ? v <= min : v < min)) {
      const op = s.exclusiveMinimum === true ? 'greater than' : 'greater than or equal to';
      this.add('FieldValueInvalid', path, `${path} in body should be ${op} ${min}`);
    }
    const m = num(s.multipleOf);
    if (m !== undefined && m > 0 && !Number.isInteger(v / m)) {
      this.add('FieldValueInvalid', path, `${path} in body should be a multiple of ${m}`);
    }
  }

  private combinators(s: Schema, v: unknown, path: string): void {
    const passes = (sub: unknown): boolean => {
      const w = new Walk(this.opts);
      const ss = schemaOf(sub);
      if (ss) w.value(ss, v, path);
      return w.causes.filter((c) => c.reason !== 'FieldValueUnknown').length === 0;
    };
    if (Array.isArray(s.allOf)) for (const sub of s.allOf) if (isObj(sub)) this.valueOnly(sub, v, path);
    if (Array.isArray(s.anyOf) && !s.anyOf.some(passes)) {
      this.add('FieldValueInvalid', path, `${path} in body must validate at least one schema (anyOf)`);
    }
    if (Array.isArray(s.oneOf) && s.oneOf.filter(passes).length !== 1) {
      this.add('FieldValueInvalid', path, `${path} in body must validate one and only one schema (oneOf)`);
    }
    if (s.not !== undefined && passes(s.not)) {
      this.add('FieldValueInvalid', path, `${path} in body must not validate the schema (not)`);
    }
  }

  /** allOf members validate values; what they prune is the structural schema's business, not theirs. */
  private valueOnly(s: Schema, v: unknown, path: string): void {
    const w = new Walk(this.opts);
    w.value(s, v, path);
    this.causes.push(...w.causes.filter((c) => c.reason !== 'FieldValueUnknown'));
  }

  private array(s: Schema, v: readonly unknown[], path: string): unknown[] {
    const max = num(s.maxItems);
    const min = num(s.minItems);
    if (max !== undefined && v.length > max)
      this.add('FieldValueTooMany', path, `${path} in body should have at most ${max} items`);
    if (min !== undefined && v.length < min)
      this.add('FieldValueInvalid', path, `${path} in body should have at least ${min} items`);
    if (s.uniqueItems === true && new Set(v.map((x) => JSON.stringify(x))).size !== v.length) {
      this.add('FieldValueDuplicate', path, `${path} in body shouldn't contain duplicates`);
    }
    const items = schemaOf(s.items);
    return v.map((x, i) => (items ? this.value(items, x, `${path}[${i}]`) : x));
  }

  private object(s: Schema, v: Obj, path: string): Obj {
    const props = schemaOf(s.properties) ?? {};
    const extra = s.additionalProperties;
    // An untyped schema that declares no fields is any value (client-node's `any`: RawExtension, JSON).
    const anything = s.type === undefined && s.properties === undefined && extra === undefined;
    const keep = anything || s['x-kubernetes-preserve-unknown-fields'] === true || extra === true;
    const embedded = s['x-kubernetes-embedded-resource'] === true;
    for (const r of Array.isArray(s.required) ? s.required : []) {
      if (typeof r === 'string' && (v[r] === undefined || v[r] === null)) {
        this.add('FieldValueRequired', join(path, r), 'Required value');
      }
    }
    const keys = Object.keys(v);
    const maxP = num(s.maxProperties);
    const minP = num(s.minProperties);
    if (maxP !== undefined && keys.length > maxP)
      this.add('FieldValueTooMany', path, `${path} in body should have at most ${maxP} properties`);
    if (minP !== undefined && keys.length < minP)
      this.add('FieldValueInvalid', path, `${path} in body should have at least ${minP} properties`);
    const out: Record<string, unknown> = {};
    for (const k of keys) {
      const field = join(path, k);
      // The server's own fields: typed and checked by the API server whatever the schema says of them.
      if ((path === '' || embedded) && ROOT_FIELDS.has(k)) {
        out[k] = v[k];
        continue;
      }
      const sub = schemaOf(props[k]) ?? (Object.hasOwn(props, k) ? {} : schemaOf(extra));
      if (v[k] === null && sub?.nullable !== true) continue;
      if (sub) out[k] = this.value(sub, v[k], field);
      else if (keep) out[k] = v[k];
      else this.add('FieldValueUnknown', field, `unknown field "${field}"`);
    }
    // CRD defaults, as the API server applies them to what it stores: a declared field that is absent gets its default.
    for (const [k, p] of Object.entries(props)) {
      const d = schemaOf(p)?.default;
      if (d !== undefined && out[k] === undefined) out[k] = structuredClone(d);
    }
    return out;
  }
}

function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

function walk(r: ServedResource, o: KubeObject): { causes: readonly FieldCause[]; pruned: KubeObject } {
  const model = r.origin === 'builtin' ? KIND_MODELS[r.kind] : undefined;
  const schema = model ? schemaOf(BUILTIN_DEFINITIONS[model]) : schemaOf(r.schema);
  if (!schema) return { causes: [], pruned: o };
  const w = new Walk(model ? { definitions: BUILTIN_DEFINITIONS, lenientStrings: true } : {});
  const pruned = w.value(schema, o, '') as KubeObject;
  return { causes: w.causes, pruned: { ...pruned, apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata } };
}

/**
 * What is wrong with an object for its resource's schema (none for a resource without one).
 *
 * @example validateObject(subnets, { ...subnet, spec: { mtu: 'big' } })[0]?.field // 'spec.mtu'
 */
export function validateObject(r: ServedResource, o: KubeObject): readonly FieldCause[] {
  return walk(r, o).causes;
}

/**
 * The object as the API server stores it: fields the schema does not know,
 * and nulls of fields that are not nullable, removed; defaults applied.
 *
 * @example pruneObject(subnets, { ...subnet, spec: { cidrBlock: '10.0.0.0/24', colour: 'red' } }).spec // { cidrBlock: ... }
 */
export function pruneObject(r: ServedResource, o: KubeObject): KubeObject {
  return walk(r, o).pruned;
}

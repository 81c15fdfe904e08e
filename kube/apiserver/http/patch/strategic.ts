/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), what
 * kubectl sends for the built-in kinds (`apply`, `label`, `annotate`,
 * `patch`): a JSON merge patch where lists with a merge key merge element
 * by element (strategies.ts) and the directives kubectl writes are obeyed:
 * `$patch: replace|delete|merge` (on a map or as a list element),
 * `$retainKeys`, `$setElementOrder/<field>` and
 * `$deleteFromPrimitiveList/<field>`. The kind's strategies come from its
 * OpenAPI definition (strategies.ts). Neither argument is modified.
 */
import { isPlainObject, jsonEqual } from '../../../cluster/json.ts';
import { type FieldStrategy, NO_STRATEGIES, type StrategyLookup } from './strategies.ts';

type Obj = Record<string, unknown>;

/** A patch kubectl could not have written (a `$patch` value unknown, a merge key missing). */
export class StrategicPatchError extends Error {
  override readonly name = 'StrategicPatchError';
  constructor(
    readonly code: 'UnknownDirective' | 'MissingMergeKey' | 'NotAList',
    /** The field, dotted (`spec.containers`). */
    readonly path: string,
    message: string,
  ) {
    super(`${path || '(root)'}: ${message}`);
  }
}

const SET_ORDER = '$setElementOrder/';
const DELETE_FROM = '$deleteFromPrimitiveList/';

/**
 * @example
 * strategicMerge(
 *   { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } },
 *   { spec: { containers: [{ name: 'b', image: 'z' }] } },
 * ) // containers a (image x) and b (image z)
 */
export function strategicMerge(original: unknown, patch: unknown, strategies: StrategyLookup = NO_STRATEGIES): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const out = new Merger(strategies).mergeMap(isPlainObject(original) ? original : {}, patch, []);
  return out === DELETED ? {} : out;
}

const DELETED = Symbol('deleted');

/** One patch's merge, with its kind's strategies. */
class Merger {
  constructor(private readonly strategyOf: StrategyLookup) {}

  mergeMap(original: Obj, patch: Obj, path: readonly string[]): Obj | typeof DELETED {
    const directive = patch['$patch'];
    if (directive === 'delete') return DELETED;
    if (directive === 'replace') return stripDirectives(patch) as Obj;
    if (directive !== undefined && directive !== 'merge')
      throw new StrategicPatchError('UnknownDirective', path.join('.'), `unknown $patch ${JSON.stringify(directive)}`);
    const out: Obj = { ...original };
    for (const [k, v] of Object.entries(patch)) {
      if (k === '$patch' || k === '$retainKeys' || k.startsWith(SET_ORDER) || k.startsWith(DELETE_FROM)) continue;
      const at = [...path, k];
      if (v === null) delete out[k];
      else if (isPlainObject(v)) {
        const merged = this.mergeMap(isPlainObject(out[k]) ? (out[k] as Obj) : {}, v, at);
        if (merged === DELETED) delete out[k];
        else out[k] = merged;
      } else if (Array.isArray(v)) out[k] = this.mergeList(out[k], v, at, this.strategyOf(at));
      else out[k] = v;
    }
    for (const [k, v] of Object.entries(patch)) {
      if (k.startsWith(DELETE_FROM)) deleteFromPrimitives(out, k.slice(DELETE_FROM.length), v, path);
    }
    for (const [k, v] of Object.entries(patch)) {
      if (k.startsWith(SET_ORDER)) this.reorder(out, k.slice(SET_ORDER.length), v, path);
    }
    const retain = patch['$retainKeys'];
    if (Array.isArray(retain)) {
      for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
    }
    return out;
  }

  mergeList(original: unknown, patch: readonly unknown[], path: readonly string[], s?: FieldStrategy): unknown {
    const current = Array.isArray(original) ? original : [];
    if (s?.set) {
      const out = [...current];
      for (const v of patch) if (!out.some((x) => jsonEqual(x, v))) out.push(v);
      return out;
    }
    if (s?.mergeKey === undefined) return stripDirectives(patch);
    const key = s.mergeKey;
    if (patch.some((e) => isPlainObject(e) && e['$patch'] === 'replace'))
      return stripDirectives(patch.filter((e) => !(isPlainObject(e) && e['$patch'] === 'replace')));
    const out: unknown[] = [...current];
    for (const e of patch) {
      if (!isPlainObject(e)) throw new StrategicPatchError('NotAList', path.join('.'), 'elements must be objects');
      if (!Object.hasOwn(e, key))
        throw new StrategicPatchError('MissingMergeKey', path.join('.'), `an element has no merge key "${key}"`);
      const i = out.findIndex((x) => isPlainObject(x) && jsonEqual(x[key], e[key]));
      if (e['$patch'] === 'delete') {
        if (i >= 0) out.splice(i, 1);
        continue;
      }
      const merged = this.mergeMap(i >= 0 ? (out[i] as Obj) : {}, e, path);
      if (merged === DELETED) {
        if (i >= 0) out.splice(i, 1);
      } else if (i >= 0) out[i] = merged;
      else out.push(merged);
    }
    return out;
  }

  /**
   * `$setElementOrder/<field>`: the listed elements (by merge key, or scalars)
   * in the order given, those not listed (kept by the server) after them in
   * their own order.
   */
  reorder(out: Obj, field: string, order: unknown, path: readonly string[]): void {
    const at = [...path, field];
    if (!Array.isArray(order)) throw new StrategicPatchError('NotAList', at.join('.'), '$setElementOrder takes a list');
    const list = out[field];
    if (!Array.isArray(list)) return;
    const key = this.strategyOf(at)?.mergeKey;
    const idOf = (x: unknown): unknown => (key !== undefined && isPlainObject(x) ? x[key] : x);
    const rank = (x: unknown): number => {
      const i = order.findIndex((o) => jsonEqual(idOf(o), idOf(x)));
      return i < 0 ? order.length : i;
    };
    out[field] = list
      .map((x, i) => ({ x, i, r: rank(x) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map((e) => e.x);
  }
}

function deleteFromPrimitives(out: Obj, field: string, values: unknown, path: readonly string[]): void {
  if (!Array.isArray(values))
    throw new StrategicPatchError('NotAList', [...path, field].join('.'), '$deleteFromPrimitiveList takes a list');
  const list = out[field];
  if (!Array.isArray(list)) return;
  out[field] = list.filter((x) => !values.some((v) => jsonEqual(v, x)));
}

/**
 * A replaced value, written whole as RFC 7386 writes a list (its nulls kept:
 * they delete nothing there); whatever directives it carries mean nothing.
 */
function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isPlainObject(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith(SET_ORDER) || k.startsWith(DELETE_FROM)) continue;
    out[k] = stripDirectives(x);
  }
  return out;
}

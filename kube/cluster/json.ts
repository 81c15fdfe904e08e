/**
 * JSON value helpers the in-memory cluster needs to behave like an API
 * server: RFC 7386 merge patches, equality in the JSON sense (a property set
 * to `undefined` is the same as an absent one, because it would not survive
 * serialisation) and deep freezing of stored objects. Kept apart from
 * memory.ts so each is small and tested on its own.
 */

/** A plain object (not null, not an array): what a merge patch merges into. */
export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * RFC 7386 JSON merge patch: objects merge recursively, `null` removes a key,
 * everything else (arrays and scalars included) replaces. Neither argument is
 * modified; the result shares untouched subtrees with `target`.
 *
 * @example
 * mergePatch({ a: 1, b: { c: 2, d: 3 } }, { b: { c: null }, e: [1] }); // { a: 1, b: { d: 3 }, e: [1] }
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (v !== undefined) out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * Deep equality of JSON-like values; `undefined` properties count as absent.
 *
 * @example
 * jsonEqual({ a: [1, { b: 2 }], c: undefined }, { a: [1, { b: 2 }] }); // true
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

/**
 * Freezes a value and everything reachable from it, in place; returns it.
 *
 * @example
 * const o = deepFreeze({ a: { b: 1 } }); Object.isFrozen(o.a); // true
 */
export function deepFreeze<T>(v: T): T {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return v;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
  return v;
}

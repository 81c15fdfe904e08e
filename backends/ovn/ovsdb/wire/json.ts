/**
 * Shape checks for JSON received from the peer. Each throws
 * {@link OvsdbProtocolError} naming the path inside the message.
 */
import { OvsdbProtocolError } from './errors.ts';

/**
 * An empty object for keys a peer chooses (table, column and row names, map
 * keys): without a prototype, so `"__proto__"` is an ordinary key and
 * `"constructor"` or `"toString"` look up nothing.
 *
 * @example const tables = dict<TableSchema>(); tables[name] = parsed;
 */
export function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/**
 * Nesting no OVSDB message comes near: a datum is at most `["map", [[k,
 * ["uuid", u]]]]` inside a row inside a table update inside the message,
 * about a dozen levels; a transact request's conditions a few more. The
 * framing refuses deeper input while scanning, before anything parses it.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Short JSON-like text of a value for error messages. Bounded in depth and
 * length, and never calls a value's own `toString`/`toJSON` (a peer's
 * `{"toString": 1}` must not turn an error message into a TypeError).
 */
export function preview(json: unknown, max = 80): string {
  const out: string[] = [];
  let length = 0;
  const emit = (s: string): boolean => {
    out.push(s);
    length += s.length;
    return length <= max;
  };
  const walk = (v: unknown, depth: number): boolean => {
    if (v === null || typeof v === 'boolean' || typeof v === 'number') return emit(String(v));
    if (typeof v === 'string') return emit(JSON.stringify(v.length > max ? v.slice(0, max) : v));
    if (typeof v === 'bigint') return emit(`${v}n`);
    if (typeof v !== 'object') return emit(typeof v);
    if (depth >= 8) return emit(Array.isArray(v) ? '[…]' : '{…}');
    if (Array.isArray(v)) {
      if (!emit('[')) return false;
      for (let i = 0; i < v.length; i++) if ((i > 0 && !emit(',')) || !walk(v[i], depth + 1)) return false;
      return emit(']');
    }
    if (!emit('{')) return false;
    let first = true;
    for (const k of Object.keys(v)) {
      if ((!first && !emit(',')) || !emit(`${JSON.stringify(k)}:`)) return false;
      first = false;
      if (!walk((v as Record<string, unknown>)[k], depth + 1)) return false;
    }
    return emit('}');
  };
  walk(json, 0);
  const text = out.join('');
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

export function expectObject(json: unknown, path: string): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new OvsdbProtocolError(`${path}: expected an object, got ${preview(json)}`);
  }
  return json as Record<string, unknown>;
}

export function expectArray(json: unknown, path: string): unknown[] {
  if (!Array.isArray(json)) throw new OvsdbProtocolError(`${path}: expected an array, got ${preview(json)}`);
  return json;
}

export function expectString(json: unknown, path: string): string {
  if (typeof json !== 'string') throw new OvsdbProtocolError(`${path}: expected a string, got ${preview(json)}`);
  return json;
}

export function expectBoolean(json: unknown, path: string): boolean {
  if (typeof json !== 'boolean') throw new OvsdbProtocolError(`${path}: expected a boolean, got ${preview(json)}`);
  return json;
}

/**
 * Schema-directed decoding: a JSON `<value>` as received straight to its
 * native form (datum.ts's table), without the intermediate wire objects
 * (`OvsSet`, `OvsMap`, `OvsUuid`). Monitor updates carry every row a
 * transaction writes, so this is the client's hottest receive path.
 *
 * A decoder is compiled once per column type and gives exactly what
 * `toNative(type, parseValue(json))` gives, and throws
 * {@link OvsdbProtocolError} in the same cases (the message may name the
 * first problem found rather than the first one `parseValue` would find).
 * Values come back frozen: sets sorted, maps as plain records.
 */
import { type NativeAtom, type NativeValue, compareAtoms, parseValue, toNative } from './datum.ts';
import { isUuid, parseAtom } from './atom.ts';
import { preview } from './json.ts';
import { OvsdbProtocolError } from './errors.ts';
import type { BaseType, ColumnType } from './schema.ts';

/** JSON value → native value for one column type; `path` names the column in errors. */
export type NativeDecoder = (json: unknown, path: string) => NativeValue;

type AtomDecoder = (json: unknown, path: string) => NativeAtom;

/**
 * @example
 * const ports = nativeDecoder(parseColumnType({ key: 'uuid', min: 0, max: 'unlimited' }));
 * ports(['set', [['uuid', u2], ['uuid', u1]]], 'Logical_Switch.ports') // [u1, u2] (sorted, frozen)
 */
export function nativeDecoder(type: ColumnType): NativeDecoder {
  const key = atomDecoder(type.key);
  if (type.value !== undefined) return mapDecoder(type, key, atomDecoder(type.value));
  if (type.max > 1) return setDecoder(type, key);
  return scalarDecoder(type, key);
}

/**
 * Sets a property as an own data property, even `__proto__` (as JSON.parse
 * and Object.fromEntries do; a plain assignment would set the prototype).
 *
 * @example setOwn(ids, '__proto__', 'x') // Object.keys(ids) includes '__proto__'
 */
export function setOwn(o: Record<string, NativeAtom>, key: string, value: NativeAtom): void {
  if (key === '__proto__')
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/** `["set", [...]]` / `["map", [...]]`: the tag, or undefined for an atom. */
function composite(json: unknown): 'set' | 'map' | undefined {
  if (!Array.isArray(json) || json.length !== 2 || !Array.isArray(json[1])) return undefined;
  return json[0] === 'set' || json[0] === 'map' ? json[0] : undefined;
}

/** The error the two-step path would give for a value that is not of the column's shape. */
function wrongShape(type: ColumnType, json: unknown, path: string): never {
  toNative(type, parseValue(json, path), path); // throws the parse or type error
  throw new OvsdbProtocolError(`${path}: unexpected value ${preview(json)}`);
}

function mapDecoder(type: ColumnType, key: AtomDecoder, value: AtomDecoder): NativeDecoder {
  return (json, path) => {
    const tag = composite(json);
    if (tag === undefined) wrongShape(type, json, path);
    const pairs = (json as unknown[])[1] as unknown[];
    if (tag === 'set' && pairs.length > 0) wrongShape(type, json, path);
    const out: Record<string, NativeAtom> = {};
    for (let i = 0; i < pairs.length; i++) {
      const pair = pairs[i];
      if (!Array.isArray(pair) || pair.length !== 2)
        throw new OvsdbProtocolError(`${path}[${i}]: not a map pair: ${preview(pair)}`);
      setOwn(out, String(key(pair[0], path)), value(pair[1], path));
    }
    return Object.freeze(out);
  };
}

function setDecoder(type: ColumnType, key: AtomDecoder): NativeDecoder {
  return (json, path) => {
    const tag = composite(json);
    let out: NativeAtom[];
    if (tag === 'set') {
      const items = (json as unknown[])[1] as unknown[];
      out = new Array<NativeAtom>(items.length);
      for (let i = 0; i < items.length; i++) out[i] = key(items[i], path);
      if (out.length > 1) out.sort(compareAtoms);
    } else if (tag === 'map') {
      wrongShape(type, json, path);
    } else {
      out = [key(json, path)];
    }
    return Object.freeze(out);
  };
}

function scalarDecoder(type: ColumnType, key: AtomDecoder): NativeDecoder {
  return (json, path) => {
    const tag = composite(json);
    if (tag === undefined) return key(json, path);
    if (tag === 'map') wrongShape(type, json, path);
    const items = (json as unknown[])[1] as unknown[];
    if (items.length === 1) return key(items[0], path);
    if (items.length > 1) wrongShape(type, json, path);
    if (type.min > 0) throw new OvsdbProtocolError(`${path}: empty value for a required column`);
    return undefined;
  };
}

function atomDecoder(base: BaseType): AtomDecoder {
  switch (base.type) {
    case 'string':
      return (j, path) => (typeof j === 'string' ? j : wrongAtom(base, j, path));
    case 'integer':
      return (j, path) => (typeof j === 'number' && Number.isInteger(j) ? j : wrongAtom(base, j, path));
    case 'real':
      return (j, path) => (typeof j === 'number' && Number.isFinite(j) ? j : wrongAtom(base, j, path));
    case 'boolean':
      return (j, path) => (typeof j === 'boolean' ? j : wrongAtom(base, j, path));
    case 'uuid':
      return (j, path) => {
        if (Array.isArray(j) && j.length === 2 && j[0] === 'uuid') {
          const u: unknown = j[1];
          if (typeof u === 'string' && isUuid(u)) return u;
        }
        return wrongAtom(base, j, path);
      };
  }
}

function wrongAtom(base: BaseType, json: unknown, path: string): never {
  parseAtom(json, path); // not an atom at all: its own error
  throw new OvsdbProtocolError(`${path}: expected ${base.type}, got ${preview(json)}`);
}

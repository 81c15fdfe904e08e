/**
 * OVSDB values (RFC 7047 §5.1 `<value>`): an atom, `["set", [...]]` or
 * `["map", [[k, v], ...]]`, exactly as on the wire; and their conversion to and
 * from native TypeScript values by column type:
 *
 * | column type                 | native value                         |
 * |-----------------------------|--------------------------------------|
 * | atom (min 1, max 1)         | string / number / boolean            |
 * | uuid                        | the uuid as a string                 |
 * | optional (min 0, max 1)     | the atom, or `undefined` when empty  |
 * | set (max > 1)               | readonly array of atoms              |
 * | map                         | frozen plain object (Record)         |
 *
 * Map keys are object keys, so non-string keys (integers, reals, booleans)
 * become their JS string form and are converted back by the key type when
 * emitted. In a uuid column a string that is not UUID-shaped is a named-uuid
 * (a row inserted by the same transaction), as libovsdb does.
 */
import { type Atom, type AtomType, OvsNamedUuid, OvsUuid, emitAtom, isUuid, parseAtom } from './atom.ts';
import { preview } from './json.ts';
import { OvsdbProtocolError, OvsdbValueError } from './errors.ts';
import type { BaseType, ColumnType } from './schema.ts';

/** `["set", [...]]`. */
export class OvsSet {
  constructor(readonly items: readonly Atom[]) {}
}

/** `["map", [[key, value], ...]]`. */
export class OvsMap {
  constructor(readonly pairs: readonly (readonly [Atom, Atom])[]) {}
}

export type Value = Atom | OvsSet | OvsMap;

export type NativeAtom = string | number | boolean;
/** A column value as rows in the cache hold it (see the table above). */
export type NativeValue = NativeAtom | undefined | readonly NativeAtom[] | Readonly<Record<string, NativeAtom>>;

/**
 * Parses a JSON `<value>`.
 *
 * @example parseValue(['map', [['vendor', 'kovn']]]) // OvsMap([['vendor', 'kovn']])
 */
export function parseValue(json: unknown, path = 'value'): Value {
  if (Array.isArray(json) && json.length === 2 && Array.isArray(json[1])) {
    if (json[0] === 'set') return new OvsSet(json[1].map((a, i) => parseAtom(a, `${path}[${i}]`)));
    if (json[0] === 'map') {
      return new OvsMap(
        json[1].map((pair, i) => {
          if (!Array.isArray(pair) || pair.length !== 2)
            throw new OvsdbProtocolError(`${path}[${i}]: not a map pair: ${preview(pair)}`);
          return [parseAtom(pair[0], `${path}[${i}][0]`), parseAtom(pair[1], `${path}[${i}][1]`)] as const;
        }),
      );
    }
  }
  return parseAtom(json, path);
}

/**
 * Emits a value as JSON. Inverse of {@link parseValue}. Atoms that are
 * their own JSON (strings, numbers, booleans) are not copied: a set of
 * strings emits its own (readonly) items array, a string map its own pairs,
 * so the result must be treated as read-only too.
 */
export function emitValue(value: Value): unknown {
  if (value instanceof OvsSet) return ['set', value.items.every(isPlainAtom) ? value.items : value.items.map(emitAtom)];
  if (value instanceof OvsMap)
    return [
      'map',
      value.pairs.every(isPlainPair)
        ? value.pairs
        : value.pairs.map((p) => (isPlainPair(p) ? p : [emitAtom(p[0]), emitAtom(p[1])])),
    ];
  return emitAtom(value);
}

function isPlainAtom(a: Atom): boolean {
  return typeof a !== 'object';
}

function isPlainPair(p: readonly [Atom, Atom]): boolean {
  return typeof p[0] !== 'object' && typeof p[1] !== 'object';
}

// ---- wire → native -------------------------------------------------------

/**
 * Converts a value received from the server to its native form by column type.
 * Mismatches are protocol errors (the server broke its own schema).
 *
 * @example toNative(setOfUuids, new OvsSet([new OvsUuid(u)]), 'Logical_Switch.ports') // [u]
 */
export function toNative(type: ColumnType, value: Value, path: string): NativeValue {
  if (type.value !== undefined) {
    const pairs =
      value instanceof OvsMap ? value.pairs : value instanceof OvsSet && value.items.length === 0 ? [] : undefined;
    if (pairs === undefined) throw new OvsdbProtocolError(`${path}: expected a map, got ${preview(emitValue(value))}`);
    const valueType = type.value;
    // fromEntries defines own properties, so a key like "__proto__" stays data.
    return Object.freeze(
      Object.fromEntries(
        pairs.map(([k, v]) => [String(atomToNative(type.key, k, path)), atomToNative(valueType, v, path)]),
      ),
    );
  }
  const items = value instanceof OvsSet ? value.items : value instanceof OvsMap ? undefined : [value];
  if (items === undefined)
    throw new OvsdbProtocolError(`${path}: expected ${type.max > 1 ? 'a set' : 'an atom'}, got a map`);
  if (type.max > 1) return Object.freeze(sortAtoms(items.map((a) => atomToNative(type.key, a, path))));
  if (items.length > 1) throw new OvsdbProtocolError(`${path}: ${items.length} values for a column of at most one`);
  const first = items[0];
  if (first === undefined) {
    if (type.min > 0) throw new OvsdbProtocolError(`${path}: empty value for a required column`);
    return undefined;
  }
  return atomToNative(type.key, first, path);
}

/**
 * Native sets are kept sorted (numbers numerically, strings by code unit,
 * false before true) so that equal sets are equal arrays.
 */
export function sortAtoms<T extends NativeAtom>(atoms: T[]): T[] {
  return atoms.sort(compareAtoms);
}

export function compareAtoms(a: NativeAtom, b: NativeAtom): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function atomToNative(base: BaseType, atom: Atom, path: string): NativeAtom {
  if (atom instanceof OvsUuid) {
    if (base.type === 'uuid') return atom.uuid;
  } else if (!(atom instanceof OvsNamedUuid) && matchesType(base.type, atom)) {
    return atom;
  }
  throw new OvsdbProtocolError(`${path}: expected ${base.type}, got ${preview(emitAtom(atom))}`);
}

function matchesType(type: AtomType, atom: NativeAtom): boolean {
  switch (type) {
    case 'integer':
      return typeof atom === 'number' && Number.isInteger(atom);
    case 'real':
      return typeof atom === 'number';
    case 'boolean':
      return typeof atom === 'boolean';
    case 'string':
      return typeof atom === 'string';
    case 'uuid':
      return false;
  }
}

/** The value of a column the server omitted (RFC 7047: rows omit defaults in update2 initial/insert). */
export function defaultNative(type: ColumnType): NativeValue {
  if (type.value !== undefined) return Object.freeze({});
  if (type.max > 1) return Object.freeze([]);
  if (type.min === 0) return undefined;
  switch (type.key.type) {
    case 'integer':
    case 'real':
      return 0;
    case 'boolean':
      return false;
    case 'string':
      return '';
    case 'uuid':
      return '00000000-0000-0000-0000-000000000000';
  }
}

// ---- native → wire -------------------------------------------------------

export interface FromNativeOptions {
  /**
   * Skip the min/max size check: conditions (`includes`) and mutations
   * (`insert`, `delete`) carry partial sets and maps.
   */
  readonly relaxSize?: boolean;
}

/**
 * Converts a native value to the wire value for a column, checking the
 * atomic types and the size. Accepts wire values (OvsUuid, OvsSet, ...) as is.
 *
 * @example fromNative(mapOfStrings, { vendor: 'kovn' }, 'Logical_Switch.external_ids') // OvsMap
 */
export function fromNative(type: ColumnType, native: unknown, path: string, opts: FromNativeOptions = {}): Value {
  if (native instanceof OvsSet || native instanceof OvsMap) return native;
  if (type.value !== undefined) return mapFromNative(type, native, path, opts);
  let items: readonly unknown[];
  if (native === undefined || native === null) items = [];
  else if (Array.isArray(native)) items = native;
  else items = [native];
  const atoms = items.map((a, i) => atomFromNative(type.key, a, items.length > 1 ? `${path}[${i}]` : path));
  checkSize(type, atoms.length, path, opts);
  if (type.max === 1 && type.min === 1 && atoms.length === 1 && atoms[0] !== undefined) return atoms[0];
  if (atoms.length === 1 && atoms[0] !== undefined && !Array.isArray(native)) return atoms[0];
  return new OvsSet(atoms);
}

function mapFromNative(type: ColumnType, native: unknown, path: string, opts: FromNativeOptions): OvsMap {
  const valueType = type.value as BaseType;
  let entries: [unknown, unknown][];
  if (native instanceof Map) entries = [...(native as Map<unknown, unknown>).entries()];
  else if (typeof native === 'object' && native !== null && !Array.isArray(native)) entries = Object.entries(native);
  else if (native === undefined) entries = [];
  else throw new OvsdbValueError(path, `expected a map (object), got ${preview(native)}`);
  const pairs = entries.map(([k, v]) => {
    const key = atomFromNative(
      type.key,
      typeof k === 'string' ? keyFromString(type.key.type, k, path) : k,
      `${path} key ${String(k)}`,
    );
    return [key, atomFromNative(valueType, v, `${path}[${String(k)}]`)] as const;
  });
  checkSize(type, pairs.length, path, opts);
  return new OvsMap(pairs);
}

/**
 * {@link fromNative} for one column, compiled once: the common shapes
 * (strings, sets of strings, string→string maps) skip the generic checks;
 * anything else goes through fromNative itself, so results and errors are
 * the same. Returns undefined for a required column left undefined (omit it:
 * the server uses the default), as `OpBuilder.row` does.
 *
 * @example nativeEncoder(mapOfStrings, 'Logical_Switch.external_ids')({ vendor: 'kovn' }) // OvsMap
 */
export function nativeEncoder(type: ColumnType, path: string): (native: unknown) => Value | undefined {
  const generic = (native: unknown): Value | undefined =>
    native === undefined && type.min > 0 ? undefined : fromNative(type, native, path);
  if (type.key.type !== 'string') return generic;
  if (type.value !== undefined) {
    if (type.value.type !== 'string') return generic;
    return (native) => {
      if (typeof native !== 'object' || native === null || Object.getPrototypeOf(native) !== Object.prototype)
        return generic(native);
      const keys = Object.keys(native);
      if (keys.length < type.min || keys.length > type.max) return generic(native);
      const pairs = new Array<readonly [Atom, Atom]>(keys.length);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i] as string;
        const v = (native as Record<string, unknown>)[k];
        if (typeof v !== 'string') return generic(native);
        pairs[i] = [k, v];
      }
      return new OvsMap(pairs);
    };
  }
  const single = type.min === 1 && type.max === 1;
  return (native) => {
    if (typeof native === 'string') return native;
    if (single || !Array.isArray(native) || native.length < type.min || native.length > type.max)
      return generic(native);
    for (let i = 0; i < native.length; i++) if (typeof native[i] !== 'string') return generic(native);
    return new OvsSet(native.slice() as string[]);
  };
}

/** Record keys are strings; turn them back into the key type's atoms. */
function keyFromString(type: AtomType, key: string, path: string): unknown {
  switch (type) {
    case 'integer':
    case 'real': {
      const n = Number(key);
      if (key.trim() === '' || !Number.isFinite(n))
        throw new OvsdbValueError(path, `map key ${JSON.stringify(key)} is not a number`);
      return n;
    }
    case 'boolean':
      if (key === 'true' || key === 'false') return key === 'true';
      throw new OvsdbValueError(path, `map key ${JSON.stringify(key)} is not a boolean`);
    default:
      return key;
  }
}

function checkSize(type: ColumnType, n: number, path: string, opts: FromNativeOptions): void {
  if (opts.relaxSize) return;
  if (n < type.min || n > type.max) {
    const max = type.max === Infinity ? 'unlimited' : type.max;
    throw new OvsdbValueError(path, `${n} values, column takes ${type.min}..${max}`);
  }
}

/**
 * One atom from native form. In uuid columns, a UUID-shaped string is
 * `["uuid", s]` and any other string is `["named-uuid", s]`.
 */
export function atomFromNative(base: BaseType, native: unknown, path: string): Atom {
  if (native instanceof OvsUuid || native instanceof OvsNamedUuid) {
    if (base.type === 'uuid') return native;
  } else if (base.type === 'uuid') {
    if (typeof native === 'string') return isUuid(native) ? new OvsUuid(native) : new OvsNamedUuid(native);
  } else if (
    (typeof native === 'string' || typeof native === 'number' || typeof native === 'boolean') &&
    matchesType(base.type, native)
  ) {
    if (typeof native === 'number' && !Number.isFinite(native))
      throw new OvsdbValueError(path, `${native} is not finite`);
    return native;
  }
  throw new OvsdbValueError(path, `expected ${base.type}, got ${preview(native)}`);
}

/** Deep-freezes a native value (arrays and records) in place and returns it. */
export function freezeNative<T extends NativeValue>(v: T): T {
  if (typeof v === 'object' && v !== null) Object.freeze(v);
  return v;
}

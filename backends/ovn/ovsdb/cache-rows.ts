/**
 * Cache rows of one table built from monitor updates: the per-table
 * decoding the cache (cache.ts) runs for every row a monitor delivers.
 *
 * Rows are frozen plain objects holding `_uuid` and every monitored column
 * in native form (wire/datum.ts); a row is never edited: a modify builds a
 * new row that shares the unchanged column values with the old one.
 *
 * Two sources, one result: `<table-updates2>` JSON as received (decoded with
 * per-column decoders compiled once, wire/decode.ts: no intermediate wire
 * objects), or already parsed `TableUpdates2` (wire values, for callers that
 * built them). Both check the message's shape and every value's type and
 * throw {@link OvsdbProtocolError} on a mismatch.
 */
import { type NativeDecoder, nativeDecoder, setOwn } from './wire/decode.ts';
import { type NativeAtom, type NativeValue, compareAtoms, defaultNative, parseValue, toNative } from './wire/datum.ts';
import { isUuid } from './wire/atom.ts';
import { expectObject, preview } from './wire/json.ts';
import { OvsdbProtocolError, OvsdbSchemaError } from './wire/errors.ts';
import type { Row } from './wire/operation.ts';
import { type ColumnType, isCompositeType } from './wire/schema.ts';
import type { TableUpdates2 } from './wire/update.ts';

export type CacheRow = { readonly _uuid: string } & { readonly [column: string]: NativeValue };

export type UpdateKind = 'initial' | 'insert' | 'modify' | 'delete';

interface Column {
  readonly name: string;
  readonly type: ColumnType;
  /** `Table.column`, for errors (built once, not per row). */
  readonly path: string;
  readonly composite: boolean;
  readonly decode: NativeDecoder;
  /** Frozen, shared by every row that omits the column. */
  readonly fallback: NativeValue;
  /**
   * The name is also a member of `Object.prototype` (`constructor`, `toString`, ... are valid column names): a row
   * that omits the column must not read the inherited member. Checked only for these names.
   */
  readonly inherited: boolean;
}

/**
 * How one table's rows are built.
 *
 * @example
 * const codec = new RowCodec('Logical_Switch', new Map([['name', stringType]]));
 * codec.fromJson(u, { name: 'ls1' }) // {_uuid: u, name: 'ls1'} (frozen)
 */
export class RowCodec {
  readonly columns: readonly string[];
  private readonly list: readonly Column[];
  private readonly byName: ReadonlyMap<string, Column>;

  constructor(
    readonly table: string,
    readonly types: ReadonlyMap<string, ColumnType>,
  ) {
    this.columns = [...types.keys()];
    this.list = [...types].map(([name, type]) => ({
      name,
      type,
      path: `${table}.${name}`,
      composite: isCompositeType(type),
      decode: nativeDecoder(type),
      fallback: defaultNative(type),
      inherited: name in Object.prototype,
    }));
    this.byName = new Map(this.list.map((c) => [c.name, c]));
  }

  /** A row from an `initial`/`insert` update as received: given columns decoded, the other monitored ones defaulted. */
  fromJson(uuid: string, json: unknown, path = this.table): CacheRow {
    const o = expectObject(json, path);
    // Column names are schema identifiers (never "__proto__": OVSDB reserves names starting with "_").
    const out: Record<string, NativeValue> = { _uuid: uuid };
    let given = 0;
    for (const c of this.list) {
      const v = c.inherited && !Object.hasOwn(o, c.name) ? undefined : o[c.name];
      if (v === undefined) out[c.name] = c.fallback;
      else {
        out[c.name] = c.decode(v, c.path);
        given++;
      }
    }
    if (given !== countKeys(o)) this.checkOthers(o, path);
    return Object.freeze(out) as CacheRow;
  }

  /** A new row: `old` with the diffs of a `modify` update as received applied. */
  modifyJson(old: CacheRow, json: unknown, path = this.table): CacheRow {
    const o = expectObject(json, path);
    const next: Record<string, NativeValue> = { ...old };
    for (const name in o) {
      const c = this.byName.get(name);
      if (c === undefined) {
        parseValue(o[name], `${path}.${name}`); // a column we did not ask for: checked, ignored
        continue;
      }
      const d = c.decode(o[name], c.path);
      next[name] = c.composite ? applyDiff(c.type, old[name], d) : d;
    }
    return Object.freeze(next) as CacheRow;
  }

  /** {@link fromJson} for a parsed (wire) row. */
  fromWire(uuid: string, row: Row): CacheRow {
    const out: Record<string, NativeValue> = { _uuid: uuid };
    for (const c of this.list) {
      const v = c.inherited && !Object.hasOwn(row, c.name) ? undefined : row[c.name];
      out[c.name] = v === undefined ? c.fallback : toNative(c.type, v, c.path);
    }
    return Object.freeze(out) as CacheRow;
  }

  /** {@link modifyJson} for a parsed (wire) diff. */
  modifyWire(old: CacheRow, diff: Row): CacheRow {
    const next: Record<string, NativeValue> = { ...old };
    for (const [name, v] of Object.entries(diff)) {
      const c = this.byName.get(name);
      if (c === undefined) continue; // a column we did not ask for
      const d = toNative(c.composite ? { ...c.type, min: 0 } : c.type, v, c.path);
      next[name] = c.composite ? applyDiff(c.type, old[name], d) : d;
    }
    return Object.freeze(next) as CacheRow;
  }

  /** Columns sent but not monitored: checked as values, then ignored. */
  private checkOthers(o: Record<string, unknown>, path: string): void {
    for (const name in o) if (!this.byName.has(name)) parseValue(o[name], `${path}.${name}`);
  }
}

function countKeys(o: object): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

/**
 * Calls `visit` for every row update of `<table-updates2>` JSON, checking the
 * message's shape (tables and rows are objects, rows keyed by uuid, one of
 * the four kinds each). The row bodies are left to the visitor.
 *
 * @example walkUpdatesJson({ LS: { [u]: { insert: { name: 'a' } } } }, 'update', (t, u, kind, body) => ...) // ('LS', u, 'insert', {name: 'a'})
 */
export function walkUpdatesJson(
  json: unknown,
  path: string,
  visit: (table: string, uuid: string, kind: UpdateKind, body: unknown) => void,
): void {
  const tables = expectObject(json, path);
  for (const table of Object.keys(tables)) {
    const rows = expectObject(tables[table], `${path}.${table}`);
    for (const uuid of Object.keys(rows)) {
      if (!isUuid(uuid)) throw new OvsdbProtocolError(`${path}.${table}: row key ${preview(uuid)} is not a uuid`);
      const u = rows[uuid];
      const kind = typeof u === 'object' && u !== null && !Array.isArray(u) ? onlyKey(u) : undefined;
      if (kind === undefined)
        throw new OvsdbProtocolError(
          `${path}.${table}.${uuid}: expected one of initial/insert/modify/delete, got ${preview(u)}`,
        );
      visit(table, uuid, kind, (u as Record<string, unknown>)[kind]);
    }
  }
}

/** The single key of a row update object, if it is one of the four kinds. */
function onlyKey(o: object): UpdateKind | undefined {
  let kind: string | undefined;
  for (const k in o) {
    if (kind !== undefined) return undefined;
    kind = k;
  }
  return kind === 'initial' || kind === 'insert' || kind === 'modify' || kind === 'delete' ? kind : undefined;
}

/** {@link walkUpdatesJson} for parsed updates. */
export function walkUpdatesParsed(
  updates: TableUpdates2,
  visit: (table: string, uuid: string, kind: UpdateKind, body: Row | undefined) => void,
): void {
  for (const [table, rows] of Object.entries(updates)) {
    for (const [uuid, u] of Object.entries(rows)) visit(table, uuid, u.kind, u.kind === 'delete' ? undefined : u.row);
  }
}

/** Applies an update2 diff to a set (symmetric difference) or map (add / remove same pair / change value). */
export function applyDiff(type: ColumnType, old: NativeValue, diff: NativeValue): NativeValue {
  if (type.value !== undefined) {
    // Spread defines own properties, so a "__proto__" key stays data.
    const out: Record<string, NativeAtom> = { ...((old ?? {}) as Record<string, NativeAtom>) };
    const d = (diff ?? {}) as Readonly<Record<string, NativeAtom>>;
    for (const k of Object.keys(d)) {
      const v = d[k] as NativeAtom;
      if (Object.hasOwn(out, k) && out[k] === v) delete out[k];
      else setOwn(out, k, v);
    }
    return Object.freeze(out);
  }
  // Native sets are sorted: merge the two, dropping atoms present in both (O(n), no re-sort of the old set).
  const a = (old ?? []) as readonly NativeAtom[];
  const cmp = type.key.type === 'string' || type.key.type === 'uuid' ? compareStrings : compareAtoms;
  // A decoded diff is sorted already (wire/decode.ts): copied and sorted only when it is not.
  const given = (diff ?? []) as readonly NativeAtom[];
  const d = isSorted(given, cmp) ? given : [...given].sort(cmp);
  // Sized once (a switch's ports grow by a few per update, the set itself can hold thousands).
  const out = new Array<NativeAtom>(a.length + d.length);
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < d.length) {
    const c = cmp(a[i] as NativeAtom, d[j] as NativeAtom);
    if (c === 0) {
      i++;
      j++;
    } else out[n++] = (c < 0 ? a[i++] : d[j++]) as NativeAtom;
  }
  while (i < a.length) out[n++] = a[i++] as NativeAtom;
  while (j < d.length) out[n++] = d[j++] as NativeAtom;
  out.length = n;
  return Object.freeze(out);
}

function isSorted(xs: readonly NativeAtom[], cmp: (a: NativeAtom, b: NativeAtom) => number): boolean {
  for (let i = 1; i < xs.length; i++) if (cmp(xs[i - 1] as NativeAtom, xs[i] as NativeAtom) > 0) return false;
  return true;
}

/** compareAtoms for two strings (sets of strings and uuids: most of them). */
function compareStrings(a: NativeAtom, b: NativeAtom): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function rowEquals(a: CacheRow, b: CacheRow): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => valueEquals(a[k], b[k]));
}

function valueEquals(a: NativeValue, b: NativeValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (
    typeof a === 'object' &&
    typeof b === 'object' &&
    a !== null &&
    b !== null &&
    !Array.isArray(a) &&
    !Array.isArray(b)
  ) {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length &&
      ka.every(
        (k) => Object.hasOwn(b, k) && (a as Record<string, NativeAtom>)[k] === (b as Record<string, NativeAtom>)[k],
      )
    );
  }
  return false;
}

/**
 * The codec of a cached table's `columns`, checking that each exists.
 *
 * @example tableCodec('Logical_Switch', ['name', 'ports'], schema.tables.Logical_Switch.columns)
 */
export function tableCodec(
  table: string,
  columns: readonly string[],
  schemaColumns: Readonly<Record<string, { readonly type: ColumnType }>>,
): RowCodec {
  const types = new Map<string, ColumnType>();
  for (const c of columns) {
    const cs = schemaColumns[c];
    if (cs === undefined) throw new OvsdbSchemaError(`${table}.${c}`, `no column ${c} in table ${table}`);
    types.set(c, cs.type);
  }
  return new RowCodec(table, types);
}

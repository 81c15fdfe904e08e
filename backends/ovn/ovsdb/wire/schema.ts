/**
 * Database schemas (RFC 7047 §3.2, the `.ovsschema` format): parse into typed
 * column types, emit back in the long form. `max: "unlimited"` becomes
 * `Infinity`; omitted fields get their RFC defaults, so emitting and parsing
 * again gives the same value.
 */
import { ATOM_TYPES, type Atom, type AtomType, OvsUuid } from './atom.ts';
import { preview, dict } from './json.ts';
import { OvsdbProtocolError, OvsdbSchemaError } from './errors.ts';
import { OvsMap, OvsSet, type Value, emitValue, parseValue } from './datum.ts';

export interface BaseType {
  readonly type: AtomType;
  /** Allowed values (the schema's `enum`, a set or a single atom). */
  readonly enum?: readonly Atom[];
  readonly minInteger?: number;
  readonly maxInteger?: number;
  readonly minReal?: number;
  readonly maxReal?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly refTable?: string;
  readonly refType?: 'strong' | 'weak';
}

export interface ColumnType {
  readonly key: BaseType;
  /** Present for maps. */
  readonly value?: BaseType;
  readonly min: number;
  /** `Infinity` for "unlimited". */
  readonly max: number;
}

export interface ColumnSchema {
  readonly type: ColumnType;
  readonly ephemeral: boolean;
  readonly mutable: boolean;
}

export interface TableSchema {
  readonly columns: Readonly<Record<string, ColumnSchema>>;
  readonly maxRows?: number;
  readonly isRoot: boolean;
  readonly indexes: readonly (readonly string[])[];
}

export interface DatabaseSchema {
  readonly name: string;
  readonly version: string;
  readonly cksum?: string;
  readonly tables: Readonly<Record<string, TableSchema>>;
}

/** The implicit `_uuid` and `_version` columns every table has. */
export const UUID_COLUMN_TYPE: ColumnType = Object.freeze({
  key: Object.freeze({ type: 'uuid' as const }),
  min: 1,
  max: 1,
});

const BASE_KEYS = ['minInteger', 'maxInteger', 'minReal', 'maxReal', 'minLength', 'maxLength'] as const;

/**
 * Parses an `.ovsschema` document (or a `get_schema` reply).
 *
 * @example
 * const nb = parseSchema(JSON.parse(readFileSync('/usr/share/ovn/ovn-nb.ovsschema', 'utf8')));
 * nb.tables.Logical_Switch.columns.ports.type // {key: {type: 'uuid', refTable: 'Logical_Switch_Port', ...}, min: 0,
 * max: Infinity}
 */
export function parseSchema(json: unknown): DatabaseSchema {
  const o = object(json, 'schema');
  const name = str(o.name, 'name');
  const version = o.version === undefined ? '0.0.0' : str(o.version, 'version');
  const tablesJson = object(o.tables, 'tables');
  const tables = dict<TableSchema>();
  for (const [t, tj] of Object.entries(tablesJson)) tables[t] = parseTable(tj, `tables.${t}`);
  return {
    name,
    version,
    ...(o.cksum === undefined ? {} : { cksum: str(o.cksum, 'cksum') }),
    tables,
  };
}

function parseTable(json: unknown, path: string): TableSchema {
  const o = object(json, path);
  const columns = dict<ColumnSchema>();
  for (const [c, cj] of Object.entries(object(o.columns, `${path}.columns`))) {
    const co = object(cj, `${path}.columns.${c}`);
    columns[c] = {
      type: parseColumnType(co.type, `${path}.columns.${c}.type`),
      ephemeral: co.ephemeral === undefined ? false : bool(co.ephemeral, `${path}.columns.${c}.ephemeral`),
      mutable: co.mutable === undefined ? true : bool(co.mutable, `${path}.columns.${c}.mutable`),
    };
  }
  const indexes =
    o.indexes === undefined
      ? []
      : array(o.indexes, `${path}.indexes`).map((ix, i) =>
          array(ix, `${path}.indexes[${i}]`).map((c, j) => str(c, `${path}.indexes[${i}][${j}]`)),
        );
  return {
    columns,
    ...(o.maxRows === undefined ? {} : { maxRows: int(o.maxRows, `${path}.maxRows`) }),
    isRoot: o.isRoot === undefined ? false : bool(o.isRoot, `${path}.isRoot`),
    indexes,
  };
}

/** Parses a `<type>`: an atomic type name or `{key, value?, min?, max?}`. */
export function parseColumnType(json: unknown, path = 'type'): ColumnType {
  if (typeof json === 'string') return { key: parseBaseType(json, path), min: 1, max: 1 };
  const o = object(json, path);
  const key = parseBaseType(o.key, `${path}.key`);
  const value = o.value === undefined ? undefined : parseBaseType(o.value, `${path}.value`);
  const min = o.min === undefined ? 1 : int(o.min, `${path}.min`);
  const max = o.max === undefined ? 1 : o.max === 'unlimited' ? Infinity : int(o.max, `${path}.max`);
  if (min < 0 || min > 1 || max < 1 || min > max) {
    throw new OvsdbSchemaError(path, `bad min/max ${min}/${max}`);
  }
  return value === undefined ? { key, min, max } : { key, value, min, max };
}

function parseBaseType(json: unknown, path: string): BaseType {
  if (typeof json === 'string') return { type: atomType(json, path) };
  const o = object(json, path);
  const type = atomType(o.type, `${path}.type`);
  const out: { -readonly [K in keyof BaseType]: BaseType[K] } = { type };
  if (o.enum !== undefined) out.enum = parseEnum(o.enum, type, `${path}.enum`);
  for (const k of BASE_KEYS) if (o[k] !== undefined) out[k] = num(o[k], `${path}.${k}`);
  if (o.refTable !== undefined) out.refTable = str(o.refTable, `${path}.refTable`);
  if (o.refType !== undefined) {
    if (o.refType !== 'strong' && o.refType !== 'weak')
      throw new OvsdbSchemaError(`${path}.refType`, `bad refType ${preview(o.refType)}`);
    out.refType = o.refType;
  } else if (out.refTable !== undefined) {
    out.refType = 'strong';
  }
  return out;
}

/**
 * An `enum`: a set of atoms of the base type, or a single one. Its faults are schema errors like every other
 * (found by the ovsdb/schema fuzz target of a helper branch: a malformed enum let the datum parser's protocol error
 * escape parseSchema).
 */
function parseEnum(json: unknown, type: AtomType, path: string): readonly Atom[] {
  let v: Value;
  try {
    v = parseValue(json, path);
  } catch (cause) {
    if (!(cause instanceof OvsdbProtocolError)) throw cause;
    throw new OvsdbSchemaError(path, `not an atom or a set of atoms: ${preview(json)}`, { cause });
  }
  if (v instanceof OvsMap) throw new OvsdbSchemaError(path, 'a map is not an enum');
  const atoms = v instanceof OvsSet ? v.items : [v];
  const wrong = atoms.find((a) => !atomOfType(a, type));
  if (wrong !== undefined) throw new OvsdbSchemaError(path, `${preview(emitValue(wrong))} is not of type ${type}`);
  return atoms;
}

function atomOfType(a: Atom, type: AtomType): boolean {
  switch (type) {
    case 'integer':
      return typeof a === 'number' && Number.isInteger(a);
    case 'real':
      return typeof a === 'number';
    case 'boolean':
      return typeof a === 'boolean';
    case 'string':
      return typeof a === 'string';
    case 'uuid':
      return a instanceof OvsUuid;
  }
}

/** Emits a schema as JSON (long form). Inverse of {@link parseSchema}. */
export function emitSchema(schema: DatabaseSchema): unknown {
  const tables: Record<string, unknown> = {};
  for (const [t, ts] of Object.entries(schema.tables)) {
    const columns: Record<string, unknown> = {};
    for (const [c, cs] of Object.entries(ts.columns)) {
      columns[c] = { type: emitColumnType(cs.type), ephemeral: cs.ephemeral, mutable: cs.mutable };
    }
    tables[t] = {
      columns,
      ...(ts.maxRows === undefined ? {} : { maxRows: ts.maxRows }),
      isRoot: ts.isRoot,
      indexes: ts.indexes.map((ix) => [...ix]),
    };
  }
  return {
    name: schema.name,
    version: schema.version,
    ...(schema.cksum === undefined ? {} : { cksum: schema.cksum }),
    tables,
  };
}

export function emitColumnType(type: ColumnType): unknown {
  return {
    key: emitBaseType(type.key),
    ...(type.value === undefined ? {} : { value: emitBaseType(type.value) }),
    min: type.min,
    max: type.max === Infinity ? 'unlimited' : type.max,
  };
}

function emitBaseType(base: BaseType): unknown {
  const out: Record<string, unknown> = { type: base.type };
  if (base.enum !== undefined) out.enum = emitValue(new OvsSet(base.enum));
  for (const k of BASE_KEYS) if (base[k] !== undefined) out[k] = base[k];
  if (base.refTable !== undefined) out.refTable = base.refTable;
  if (base.refType !== undefined) out.refType = base.refType;
  return out;
}

/**
 * The type of `table.column`, including the implicit `_uuid`/`_version`;
 * throws {@link OvsdbSchemaError} naming both when either is unknown.
 */
export function columnType(schema: DatabaseSchema, table: string, column: string): ColumnType {
  if (column === '_uuid' || column === '_version') {
    tableSchema(schema, table);
    return UUID_COLUMN_TYPE;
  }
  const c = tableSchema(schema, table).columns[column];
  if (c === undefined) throw new OvsdbSchemaError(`${table}.${column}`, `no column ${column} in table ${table}`);
  return c.type;
}

export function tableSchema(schema: DatabaseSchema, table: string): TableSchema {
  const t = schema.tables[table];
  if (t === undefined) throw new OvsdbSchemaError(table, `no table ${table} in database ${schema.name}`);
  return t;
}

/**
 * Whether rows of `table` live without references. OVSDB's compatibility rule:
 * when no table of the schema sets isRoot, every table is a root.
 */
export function isRootTable(schema: DatabaseSchema, table: string): boolean {
  let anyRoot = ANY_ROOT.get(schema);
  if (anyRoot === undefined) {
    anyRoot = Object.values(schema.tables).some((t) => t.isRoot);
    ANY_ROOT.set(schema, anyRoot);
  }
  return !anyRoot || tableSchema(schema, table).isRoot;
}

/** Per schema: whether any table sets isRoot (schemas are immutable values, so this is cached). */
const ANY_ROOT = new WeakMap<DatabaseSchema, boolean>();

/** A map column, a set column (max > 1 or min 0 with max > 1), or a scalar/optional. */
export function isMapType(type: ColumnType): boolean {
  return type.value !== undefined;
}

/** Composite columns (max > 1) get symmetric-difference diffs in update2. */
export function isCompositeType(type: ColumnType): boolean {
  return type.max > 1;
}

function object(json: unknown, path: string): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new OvsdbSchemaError(path, `expected an object, got ${preview(json)}`);
  }
  return json as Record<string, unknown>;
}

function array(json: unknown, path: string): unknown[] {
  if (!Array.isArray(json)) throw new OvsdbSchemaError(path, `expected an array, got ${preview(json)}`);
  return json;
}

function str(json: unknown, path: string): string {
  if (typeof json !== 'string') throw new OvsdbSchemaError(path, `expected a string, got ${preview(json)}`);
  return json;
}

function bool(json: unknown, path: string): boolean {
  if (typeof json !== 'boolean') throw new OvsdbSchemaError(path, `expected a boolean, got ${preview(json)}`);
  return json;
}

function num(json: unknown, path: string): number {
  if (typeof json !== 'number' || !Number.isFinite(json))
    throw new OvsdbSchemaError(path, `expected a number, got ${preview(json)}`);
  return json;
}

function int(json: unknown, path: string): number {
  const n = num(json, path);
  if (!Number.isInteger(n)) throw new OvsdbSchemaError(path, `expected an integer, got ${n}`);
  return n;
}

function atomType(json: unknown, path: string): AtomType {
  if (typeof json === 'string' && (ATOM_TYPES as readonly string[]).includes(json)) return json as AtomType;
  throw new OvsdbSchemaError(path, `unknown atomic type ${preview(json)}`);
}

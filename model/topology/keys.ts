/**
 * Row identity. A row's key is a typed value, the row's key fields
 * ({@link RowKey}, listed per table in `tables.ts`); it never changes while
 * the row lives: changing a key column means deleting one row and creating
 * another, exactly as OVN's own tools see it (`ovn-nbctl acl-add` treats
 * attachment + direction + priority + match as the ACL; `lr-nat-add` type +
 * external IP + logical IP as the NAT).
 *
 * Topologies index rows by the key's text form, {@link formatKey}: the one
 * place that text is made. It is never parsed back; code that needs a key's
 * parts reads them from the row (or the {@link RowKey}).
 */
import { printMatch, type MatchExpr } from '../match/index.ts';
import { type FieldSpec, TABLE_ORDER, type TABLES, tableSpec } from './tables.ts';
import type { AclAttachment, TableName, Tables } from './types.ts';

/** The fields that make up the key of a row of `T`. */
export type KeyField<T extends TableName> = (typeof TABLES)[T]['key'][number] & keyof Tables[T];

/**
 * A row's identity as a value: its key fields. Every row of `T` is also its own key.
 *
 * @example const k: RowKey<'nat'> = { router: 'ovn-cluster', type: 'snat', externalIp: '172.18.0.2', logicalIp: '10.16.0.0/16' }
 */
export type RowKey<T extends TableName> = Pick<Tables[T], KeyField<T>>;

/** A key together with its table. */
export type TableKey = { readonly [T in TableName]: { readonly table: T; readonly key: RowKey<T> } }[TableName];

const SEP = '|';

type Format = (key: Readonly<Record<string, unknown>>) => string;

type Part = (v: unknown) => string;

/** An NB map column's entries, sorted, `k=v` joined by `,`; an entry whose value is undefined is absent. */
const printEntries: Part = (v) =>
  Object.entries((v ?? {}) as Readonly<Record<string, unknown>>)
    .filter(([, x]) => x !== undefined)
    .map(([k, x]) => `${k}=${String(x)}`)
    .sort()
    .join(',');

/**
 * How one key field prints: a match as its canonical text; a map stored in an NB column (QoS action,
 * bandwidth) as its entries; a map with no column (an ACL's attachment record) as kind and name.
 */
function partOf(spec: FieldSpec, absent = ''): Part {
  if (spec.kind === 'match') return (v) => printMatch(v as MatchExpr);
  if (spec.kind === 'map' && spec.column !== undefined) return printEntries;
  if (spec.kind === 'map') return (v) => (v as AclAttachment).kind + SEP + (v as AclAttachment).name;
  return (v) => (v === undefined ? absent : String(v));
}

/** One formatter per table, made once from its key fields: a single-field name key is the name itself. */
function formatterOf(table: TableName): Format {
  const spec = tableSpec(table);
  const fields = spec.key as readonly string[];
  const [only] = fields;
  if (fields.length === 1 && only !== undefined) return (k) => k[only] as string;
  const defaults = (spec.keyDefaults ?? {}) as Readonly<Record<string, string>>;
  const specs = spec.fields as Readonly<Record<string, FieldSpec>>;
  const parts = fields.map((f) => partOf(specs[f] as FieldSpec, defaults[f]));
  return (k) => {
    let s = parts[0]!(k[fields[0]!]);
    for (let i = 1; i < fields.length; i++) s += SEP + parts[i]!(k[fields[i]!]);
    return s;
  };
}

const FORMATS = Object.fromEntries(TABLE_ORDER.map((t) => [t, formatterOf(t)])) as Readonly<Record<TableName, Format>>;

/**
 * The text form of a key: the index of its row in a topology, and the
 * `kovn-key` NB records. Made only here, never parsed back.
 *
 * @example formatKey('nat', { router: 'ovn-cluster', type: 'snat', externalIp: '172.18.0.2', logicalIp: '10.16.0.0/16' })
 * // 'ovn-cluster|snat|172.18.0.2|10.16.0.0/16'
 */
export function formatKey<T extends TableName>(table: T, key: RowKey<T>): string {
  return FORMATS[table](key as unknown as Readonly<Record<string, unknown>>);
}

/**
 * The typed key of a row: its key fields, copied out.
 *
 * @example rowKey('switch', ls) // { name: 'ovn-default' }
 */
export function rowKey<T extends TableName>(table: T, row: Tables[T]): RowKey<T> {
  const r = row as unknown as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const f of tableSpec(table).key as readonly string[]) if (r[f] !== undefined) out[f] = r[f];
  return out as RowKey<T>;
}

/**
 * The text key of a row in its table: {@link formatKey} of the row (a row is its own key).
 *
 * @example keyOf('nat', { router: 'ovn-cluster', type: 'snat', externalIp: '172.18.0.2', logicalIp: '10.16.0.0/16', ... })
 * // 'ovn-cluster|snat|172.18.0.2|10.16.0.0/16'
 */
export function keyOf<T extends TableName>(table: T, row: Tables[T]): string {
  return FORMATS[table](row as unknown as Readonly<Record<string, unknown>>);
}

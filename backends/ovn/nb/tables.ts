/**
 * Which NB table holds each model table, how kovn recognises its own rows
 * there, and what the session monitors and indexes: all derived from the
 * model's table descriptions (model/topology/tables.ts) and the schema's
 * unique indexes, none listed here by hand.
 *
 * Ownership: every row kovn writes carries `external_ids:vendor=kovn`; rows
 * without it are never updated or deleted. Tables with a name column are
 * identified by name; the others carry their model key in
 * `external_ids:kovn-key` (DHCP options: `kovn-name`), which is also what a
 * guarded insert checks so that a replayed transaction cannot add a second
 * row (raft commits are at-least-once).
 *
 * Two more reserved keys keep the round trip exact:
 * - `kovn-vendor`: the model row's own `externalIds.vendor`, if it sets one
 *   (NB's `vendor` is always `kovn`, the owner tag).
 * - `kovn-explicit`: model fields set to the value NB cannot tell from
 *   "unset" (ACL `label` 0, NAT `externalPortRange` ""), comma-separated.
 */
import {
  type FieldSpec,
  type ParentSpec,
  TABLE_ORDER,
  TABLES,
  type TableName,
  tableSpec,
} from '../../../model/topology/index.ts';
import { nb } from '../ovsdb/index.ts';
import { OvnBackendError } from './errors.ts';

export type NbTable = nb.TableName;

export const VENDOR_KEY = 'vendor';
export const VENDOR = 'kovn';
export const KEY_ID = 'kovn-key';
export const NAME_ID = 'kovn-name';
export const SHADOW_VENDOR_ID = 'kovn-vendor';
export const EXPLICIT_ID = 'kovn-explicit';
const RESERVED = new Set([KEY_ID, NAME_ID, SHADOW_VENDOR_ID, EXPLICIT_ID]);

/** The NB table of model table `T`, and its generated row type. */
export type NbTableOf<T extends TableName> = (typeof TABLES)[T]['nb'];
export type NbRow<T extends TableName> = nb.Tables[NbTableOf<T>];
/** A row of a parent table (switch, router, port group). */
export type ParentRow = NbRow<ParentSlot['table']>;

/** The NB table of each model table (from the description; a name that is not an NB table fails to type-check). */
export const NB_TABLE = Object.fromEntries(TABLE_ORDER.map((t) => [t, TABLES[t].nb])) as {
  readonly [T in TableName]: NbTableOf<T>;
};

/**
 * How a model table's rows are found in NB: by `name` when its key is a name
 * stored in a column, else by an external_ids key holding the key text
 * (`kovn-name` for a name kept only there, `kovn-key` for a composite key).
 */
export type Identity =
  | { readonly kind: 'name' }
  | { readonly kind: 'id'; readonly idKey: typeof KEY_ID | typeof NAME_ID };

function identityOf(table: TableName): Identity {
  const spec = tableSpec(table);
  const [only, ...more] = spec.key as readonly string[];
  if (more.length > 0 || only === undefined) return { kind: 'id', idKey: KEY_ID };
  const f = (spec.fields as Readonly<Record<string, FieldSpec>>)[only];
  return f?.column === 'name' ? { kind: 'name' } : { kind: 'id', idKey: NAME_ID };
}

export const IDENTITY = Object.fromEntries(TABLE_ORDER.map((t) => [t, identityOf(t)])) as Readonly<
  Record<TableName, Identity>
>;

/**
 * Guard of an insert (`OpBuilder.guardedInsert`'s unique spec), or undefined
 * where NB's own unique index on `name` already makes a replay fail.
 * Switches, routers and load balancers have no index on `name` (the schema's
 * indexes say so): the guard is on the name alone, so a row of that name
 * created meanwhile by anyone fails the insert instead of duplicating the name.
 */
export const INSERT_GUARD = Object.fromEntries(
  TABLE_ORDER.map((t) => {
    const id = IDENTITY[t];
    if (id.kind === 'id') return [t, [`external_ids:${VENDOR_KEY}`, `external_ids:${id.idKey}`]];
    const indexed = (nb.UNIQUE_INDEXES[NB_TABLE[t]] ?? []).some((ix) => ix.length === 1 && ix[0] === 'name');
    return [t, indexed ? undefined : ['name']];
  }),
) as Readonly<Record<TableName, readonly string[] | undefined>>;

/** Where a child row hangs in NB: the parent's model table and uuid-set column. */
export type ParentSlot = ParentSpec['slots'][number];

/** Parent slots that may hold a row of each non-root model table. */
export const PARENT_SLOTS: Readonly<Partial<Record<TableName, readonly ParentSlot[]>>> = Object.fromEntries(
  TABLE_ORDER.flatMap((t) => {
    const p = tableSpec(t).parent;
    return p === undefined ? [] : [[t, p.slots]];
  }),
);

/** The NB columns a model table's fields are stored in. */
function fieldColumns(t: TableName): string[] {
  return Object.values(tableSpec(t).fields as Readonly<Record<string, FieldSpec>>).flatMap((f) =>
    f.column === undefined ? [] : [f.column],
  );
}

/** The table rows of a `rowSet` field (gateway chassis) are stored in, with their columns. */
const ROW_SETS = TABLE_ORDER.flatMap((t) =>
  Object.values(tableSpec(t).fields as Readonly<Record<string, FieldSpec>>).flatMap((f) =>
    f.rows === undefined ? [] : [f.rows],
  ),
);

/** Read, never written: northd's progress counters (northd.ts waits on them). */
const NB_GLOBAL_COLUMNS = ['nb_cfg', 'sb_cfg', 'hv_cfg'];

/**
 * Monitored columns: exactly what the mapping writes and reads (not northd's
 * `up`, `dynamic_addresses`, ...): each field's column, the child columns a
 * parent holds, the gateway chassis rows, and NB_Global's counters.
 */
export const MONITOR: Readonly<Partial<Record<NbTable, readonly string[]>>> = (() => {
  const out: Partial<Record<NbTable, string[]>> = {};
  for (const t of TABLE_ORDER) (out[NB_TABLE[t]] ??= []).push(...fieldColumns(t));
  for (const t of TABLE_ORDER)
    for (const s of PARENT_SLOTS[t] ?? []) {
      const cols = out[NB_TABLE[s.table]] as string[];
      if (!cols.includes(s.column)) cols.push(s.column);
    }
  for (const r of ROW_SETS) out[r.nbTable as NbTable] = ['name', ...Object.values(r.columns), 'external_ids'];
  out.NB_Global = NB_GLOBAL_COLUMNS;
  return out;
})();

/**
 * Cache indexes: names and id keys. Parent columns (`Logical_Switch.ports`,
 * ...) are not indexed: an index on a set column is rebuilt on every change
 * of the set, which on a switch gaining ports in every batch costs more than
 * view.ts's reverse map, built only when asked for.
 */
export const INDEXES: Readonly<Partial<Record<NbTable, readonly string[]>>> = Object.fromEntries([
  ...TABLE_ORDER.map((t) => {
    const id = IDENTITY[t];
    return [NB_TABLE[t], id.kind === 'name' ? ['name'] : [`external_ids:${id.idKey}`]];
  }),
  ...ROW_SETS.map((r) => [r.nbTable, ['name']]),
]);

type Ids = Readonly<Record<string, string>>;

/** Whether an NB row belongs to kovn. */
export function isOwned(row: { readonly external_ids?: Ids }): boolean {
  return row.external_ids?.[VENDOR_KEY] === VENDOR;
}

/**
 * The NB external_ids of a model row: its own ids plus the owner tag, the
 * identity key, and the shadow keys described in the file header.
 *
 * @example encodeIds({ np: 'web' }, { 'kovn-key': 'k' }, []) // { np: 'web', vendor: 'kovn', 'kovn-key': 'k' }
 */
export function encodeIds(
  model: Ids,
  tags: Readonly<Record<string, string>>,
  explicit: readonly string[],
  where: () => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(model)) {
    const v = model[k];
    if (v === undefined) continue;
    if (RESERVED.has(k))
      throw new OvnBackendError(
        'reserved-key',
        `${where()}: externalIds key ${JSON.stringify(k)} is reserved for kovn's own bookkeeping`,
      );
    if (k === VENDOR_KEY) out[SHADOW_VENDOR_ID] = v;
    else out[k] = v;
  }
  out[VENDOR_KEY] = VENDOR;
  for (const k of Object.keys(tags)) out[k] = tags[k] as string;
  if (explicit.length > 0) out[EXPLICIT_ID] = explicit.join(',');
  return out;
}

/** The model's externalIds and explicit-field list back from NB external_ids. */
export function decodeIds(ids: Ids): { externalIds: Record<string, string>; explicit: ReadonlySet<string> } {
  const externalIds: Record<string, string> = {};
  let explicit: ReadonlySet<string> = NO_FIELDS;
  for (const [k, v] of Object.entries(ids)) {
    if (k === VENDOR_KEY || k === KEY_ID || k === NAME_ID) continue;
    if (k === SHADOW_VENDOR_ID) externalIds[VENDOR_KEY] = v;
    else if (k === EXPLICIT_ID) explicit = new Set(v.split(','));
    else externalIds[k] = v;
  }
  return { externalIds, explicit };
}

const NO_FIELDS: ReadonlySet<string> = new Set();

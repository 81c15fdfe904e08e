/**
 * What changed in kovn's NB rows, as model rows: the session cache's change
 * batches (its monitor, fed by every writer, kovn included) turned into the
 * Backend's `RowChange`s, and rows read by key.
 *
 * An NB change names the model rows it may have changed: the row's own key
 * before and after (by `name`, or by its `kovn-key`/`kovn-name` id, so a row
 * already deleted from the cache still names its key), and, for a parent
 * whose child columns changed (a switch's `ports`, a router's `nat`, ...),
 * the children that came or went without a change of their own (moved from
 * one parent to another: their model row names the parent). Each named row
 * is then read as `read()` would read it, from the cache as it is after the
 * change. Rows of other owners name nothing. A row that refers to another by
 * uuid (a switch's load balancers, a port's DHCP options) hears of that row's
 * deletion through NB itself: the references are weak, so NB removes them
 * and the referring row changes too. A gateway chassis belongs to the
 * router port that holds it: its change is reported as the port's.
 */
import type { RowChange, RowKeys, RowsRead } from '../../backend.ts';
import type { TableName } from '../../../model/topology/index.ts';
import type { CacheRow, RowChange as NbRowChange } from '../ovsdb/index.ts';
import { type ReadContext, fromNbRow } from './columns.ts';
import { IDENTITY, NB_TABLE, type NbTable, PARENT_SLOTS, isOwned } from './tables.ts';

/** What naming a row reads of it: its name or its id key, and the owner tag. */
type Named = { readonly name?: unknown; readonly external_ids: Readonly<Record<string, string>> };

const MODEL_TABLE: ReadonlyMap<string, TableName> = new Map(
  (Object.entries(NB_TABLE) as [TableName, NbTable][]).map(([model, nbTable]) => [nbTable, model]),
);

/** Parent model table → its child columns, each with the model table of the children it holds. */
const CHILD_COLUMNS: ReadonlyMap<TableName, readonly { column: string; child: TableName }[]> = (() => {
  const out = new Map<TableName, { column: string; child: TableName }[]>();
  for (const [child, slots] of Object.entries(PARENT_SLOTS) as [
    TableName,
    readonly { table: TableName; column: string }[],
  ][])
    for (const s of slots) {
      const list = out.get(s.table) ?? [];
      list.push({ column: s.column, child });
      out.set(s.table, list);
    }
  return out;
})();

/**
 * @example
 * const off = session.cache.onChange((batch) => { const changes = modelChanges(ctx, batch); if (changes.length) listener(changes); });
 */
export function modelChanges(ctx: ReadContext, batch: readonly NbRowChange[]): RowChange[] {
  const named = new Map<TableName, Set<string>>();
  const changedUuids = new Set<string>();
  for (const c of batch) changedUuids.add(c.uuid);
  for (const c of batch) {
    if (c.table === 'Gateway_Chassis') gatewayPorts(ctx, named, c.uuid);
    const table = MODEL_TABLE.get(c.table);
    if (table === undefined) continue;
    for (const r of [c.old, c.new]) if (r !== undefined && isOwned(r as unknown as Named)) name(named, table, r);
    if (c.old !== undefined && c.new !== undefined) movedChildren(ctx, named, table, c.old, c.new, changedUuids);
  }
  const out: RowChange[] = [];
  for (const [table, keys] of named)
    for (const key of keys) {
      const row = readRow(ctx, table, key);
      if (row !== unreadable) out.push({ table, key, row } as RowChange);
    }
  return out;
}

/**
 * Rows by key, as `read()` would give them now (undefined: not there, or
 * not readable as a model row).
 *
 * @example readRowsNow(ctx, new Map([['switchPort', new Set(['web-0.default'])]])).get('switchPort')?.get('web-0.default')
 */
export function readRowsNow(ctx: ReadContext, keys: RowKeys): RowsRead {
  const out: RowsRead = new Map();
  for (const [table, ks] of keys) {
    const rows = new Map<string, unknown>();
    for (const key of ks) {
      const row = readRow(ctx, table, key);
      rows.set(key, row === unreadable ? undefined : row);
    }
    out.set(table, rows);
  }
  return out;
}

const unreadable = Symbol('unreadable');

/**
 * The model row at `key`, or `unreadable` when its NB row cannot be read as
 * one (a match edited by hand into something kovn cannot parse): nothing
 * is reported for it, as `read()` would fail on it too.
 */
function readRow(ctx: ReadContext, table: TableName, key: string): unknown {
  const nbRow = ctx.view.find(table, key);
  if (nbRow === undefined) return undefined;
  try {
    return fromNbRow(table, nbRow, ctx);
  } catch {
    return unreadable;
  }
}

function name(named: Map<TableName, Set<string>>, table: TableName, r: CacheRow): void {
  const id = IDENTITY[table];
  const row = r as unknown as Named;
  const key = id.kind === 'name' ? row.name : row.external_ids[id.idKey];
  if (typeof key !== 'string') return;
  let set = named.get(table);
  if (set === undefined) named.set(table, (set = new Set()));
  set.add(key);
}

/**
 * The router ports holding gateway chassis `uuid`: a gateway chassis is part
 * of its port's model row, not a model row of its own (a priority changed by
 * hand is a change of the port). Router ports are few; they are scanned.
 */
function gatewayPorts(ctx: ReadContext, named: Map<TableName, Set<string>>, uuid: string): void {
  for (const lrp of ctx.view.owned('routerPort'))
    if (((lrp as unknown as { gateway_chassis?: readonly string[] }).gateway_chassis ?? []).includes(uuid))
      name(named, 'routerPort', lrp as unknown as CacheRow);
}

/** Children that entered or left a parent's child column without a change of their own. */
function movedChildren(
  ctx: ReadContext,
  named: Map<TableName, Set<string>>,
  table: TableName,
  old: CacheRow,
  now: CacheRow,
  changed: ReadonlySet<string>,
): void {
  for (const { column, child } of CHILD_COLUMNS.get(table) ?? []) {
    const was = old[column] as readonly string[] | undefined;
    const is = now[column] as readonly string[] | undefined;
    if (was === is) continue;
    const before = new Set(was ?? []);
    const after = new Set(is ?? []);
    for (const uuid of [...before, ...after]) {
      if (before.has(uuid) === after.has(uuid) || changed.has(uuid)) continue;
      const row = ctx.view.get(NB_TABLE[child], uuid);
      if (row !== undefined && isOwned(row)) name(named, child, row as unknown as CacheRow);
    }
  }
}

/**
 * Plan operations → OVSDB operations, added to a {@link Batch}.
 *
 * - create: an insert (guarded where NB has no unique index, see
 *   INSERT_GUARD), uuid references resolved, the row added to its parent's
 *   column; a router port's gateway chassis are inserted with it, named
 *   `<port>-<chassis>` as ovn-nbctl names them.
 * - update: the row's new columns are computed from the current NB row with
 *   the changes laid over it; only columns that differ are sent. Reference
 *   sets (load balancers, port group ports) change by mutation, touching only
 *   kovn's members; a port that moves is removed from the old parent and
 *   added to the new one in the same transaction.
 * - mutate: one OVSDB mutate of the row's membership columns (deletes before
 *   inserts, as the plan operation says); reference members are resolved to
 *   uuids, and a member to delete that NB does not have is left out (deleting
 *   an absent member is a no-op in OVSDB too).
 * - delete: removed from its parent and deleted, by uuid, in one transaction;
 *   a root row's pending parent mutations are dropped.
 * Every update, mutate and delete is limited to rows tagged vendor=kovn.
 */
import {
  type FieldSpec,
  type Operation as PlanOperation,
  type TableName,
  type Tables,
  TABLE_ORDER,
  keyOf,
  parentOf,
  tableSpec,
} from '../../../model/topology/index.ts';
import type { Batch } from './batch.ts';
import { type Columns, type ReadContext, fromNbRow, toNbColumns } from './columns.ts';
import { type ErrorSite, OvnBackendError, describeSite } from './errors.ts';
import {
  IDENTITY,
  INSERT_GUARD,
  NB_TABLE,
  type NbRow,
  type NbTable,
  PARENT_SLOTS,
  VENDOR,
  VENDOR_KEY,
  isOwned,
} from './tables.ts';
import type { nb } from '../ovsdb/index.ts';
import type { NamedTable } from './view.ts';

/** A field that names rows of another table by NB uuid. */
interface RefSpec {
  readonly field: string;
  readonly column: string;
  readonly target: NamedTable;
}

/** The uuid references of each table, from the description: sets (`REF_SETS`) and optional single ones. */
function uuidRefs(many: boolean): Partial<Record<TableName, readonly RefSpec[]>> {
  const out: Partial<Record<TableName, RefSpec[]>> = {};
  for (const t of TABLE_ORDER)
    for (const [field, f] of Object.entries(tableSpec(t).fields as Readonly<Record<string, FieldSpec>>)) {
      if (f.ref?.by !== 'uuid' || f.column === undefined || (f.kind === 'set') !== many) continue;
      (out[t] ??= []).push({ field, column: f.column, target: f.ref.table as NamedTable });
    }
  return out;
}

/** Reference sets (uuid sets of rows kovn names). */
const REF_SETS = uuidRefs(true);
/** Optional single references. */
const REF_ONES = uuidRefs(false);

/** A row's columns by name (the generic column-wise paths below). */
const columnsOf = (row: object): Readonly<Columns> => row as Readonly<Columns>;

/** Adds plan operation `op` (number `index` of the plan) to `batch`. */
export function addOperation(batch: Batch, ctx: ReadContext, op: PlanOperation, index: number): void {
  batch.begin(index, () => ({ op: op.op, modelTable: op.table, key: op.key, nbTable: NB_TABLE[op.table] }));
  if (op.op === 'create') addCreate(batch, op.table, op.key, op.row, index);
  else if (op.op === 'update') addUpdate(batch, ctx, op.table, op.key, op.changes, index);
  else if (op.op === 'mutate') addMutate(batch, ctx, op, index);
  else addDelete(batch, ctx, op.table, op.key, index);
}

function fail(
  batch: Batch,
  code: 'missing-row' | 'name-clash' | 'not-a-member-column',
  index: number,
  detail: string,
): never {
  const site: ErrorSite = batch.site(index);
  throw new OvnBackendError(code, `${describeSite(site)}: ${detail}`, site);
}

function checkClash(batch: Batch, table: TableName, key: string, index: number): void {
  const nb = NB_TABLE[table];
  if (IDENTITY[table].kind === 'name') {
    const rows = batch.view.named(table, key);
    if (rows.some((r) => !isOwned(r)))
      fail(
        batch,
        'name-clash',
        index,
        `NB ${nb} already has a row named ${JSON.stringify(key)} that kovn does not own`,
      );
    if (rows.length > 0)
      fail(
        batch,
        'name-clash',
        index,
        `kovn already has ${nb} ${JSON.stringify(key)} (the plan was made from a stale read?)`,
      );
  } else if (batch.view.find(table, key) !== undefined) {
    fail(batch, 'name-clash', index, `kovn already has this ${nb} row (the plan was made from a stale read?)`);
  }
}

function resolveRefs(batch: Batch, table: TableName, row: Readonly<Columns>, cols: Columns, index: number): void {
  for (const s of REF_ONES[table] ?? []) {
    const name = row[s.field] as string | undefined;
    cols[s.column] = name === undefined ? undefined : batch.ref(s.target, name, index);
  }
}

function addCreate(batch: Batch, table: TableName, key: string, row: Tables[TableName], index: number): void {
  checkClash(batch, table, key, index);
  const b = batch.b;
  const nb = NB_TABLE[table];
  const r = columnsOf(row);
  const cols: Columns = toNbColumns(table, row, key);
  resolveRefs(batch, table, r, cols, index);
  for (const s of REF_SETS[table] ?? [])
    cols[s.column] = [...new Set(r[s.field] as string[])].map((n) => batch.ref(s.target, n, index));
  if (table === 'routerPort') {
    cols.gateway_chassis = (row as Tables['routerPort']).gatewayChassis.map((gc) =>
      insertGatewayChassis(batch, key, gc, index),
    );
  }
  const uuid = batch.newUuid();
  const guard = INSERT_GUARD[table];
  const row_ = withoutDefaults(cols);
  if (guard === undefined) batch.push(index, b.insert(nb, row_, { uuid }));
  else {
    const [wait, insert] = b.guardedInsert(nb, row_, { unique: guard });
    batch.push(index, wait, { ...insert, uuid });
  }
  batch.inserted(table, key, uuid, index);
  const parent = parentOf(table, row as never);
  if (parent !== undefined)
    batch.parentRef(
      { table: parent.table, uuid: batch.ref(parent.table, parent.name, index) },
      parent.column,
      uuid,
      'insert',
      index,
    );
}

/**
 * The columns of an insert without those equal to the column default (unset,
 * empty set or map, empty string): the server fills them in, and a port
 * insert shrinks from eleven columns to three on the wire.
 */
function withoutDefaults(cols: Columns): Columns {
  const out: Columns = {};
  for (const c in cols) {
    const v = cols[c];
    if (v === undefined || v === '' || (typeof v === 'object' && v !== null && isEmpty(v))) continue;
    out[c] = v;
  }
  return out;
}

/** An empty array or a record without defined entries. */
function isEmpty(o: object): boolean {
  if (Array.isArray(o)) return o.length === 0;
  for (const k in o) if ((o as Record<string, unknown>)[k] !== undefined) return false;
  return true;
}

function insertGatewayChassis(
  batch: Batch,
  port: string,
  gc: Tables['routerPort']['gatewayChassis'][number],
  index: number,
): string {
  const uuid = batch.newUuid();
  const row = {
    name: `${port}-${gc.chassisName}`,
    chassis_name: gc.chassisName,
    priority: gc.priority,
    external_ids: { [VENDOR_KEY]: VENDOR },
  };
  batch.push(index, batch.b.insert('Gateway_Chassis', row, { uuid }));
  return uuid;
}

/** kovn's NB row of `key`; for keyed tables also found when its key columns were edited by hand (kovn-key stale). */
function findRow<T extends TableName>(batch: Batch, ctx: ReadContext, table: T, key: string, index: number): NbRow<T> {
  let row = batch.view.find(table, key);
  if (row === undefined && IDENTITY[table].kind === 'id') {
    row = batch.view.owned(table).find((r) => {
      const m = fromNbRow(table, r, ctx);
      return m !== undefined && keyOf(table, m) === key;
    });
  }
  if (row === undefined) fail(batch, 'missing-row', index, `kovn has no such ${NB_TABLE[table]} row in NB`);
  return row;
}

function addUpdate(
  batch: Batch,
  ctx: ReadContext,
  table: TableName,
  key: string,
  changes: Partial<Tables[TableName]>,
  index: number,
): void {
  const b = batch.b;
  const nb = NB_TABLE[table];
  const nbRow = findRow(batch, ctx, table, key, index);
  batch.touches(nbRow._uuid, index);
  const current = fromNbRow(table, nbRow, ctx);
  if (current === undefined)
    fail(batch, 'missing-row', index, `kovn's ${nb} row ${nbRow._uuid} hangs off no kovn parent`);
  const next = merge(current, changes);
  const cols: Columns = toNbColumns(table, next, key);
  resolveRefs(batch, table, columnsOf(next), cols, index);
  const nbCols = columnsOf(nbRow);
  const changed: Columns = {};
  for (const [c, v] of Object.entries(cols)) if (!nativeEqual(v, nbCols[c])) changed[c] = v;
  if (Object.keys(changed).length > 0) batch.push(index, b.update(nb, batch.whereOwned(nbRow._uuid), changed));
  for (const s of REF_SETS[table] ?? []) updateRefSet(batch, nb, nbRow, s, current, next, index);
  const from = parentOf(table, current as never);
  const to = parentOf(table, next as never);
  if (from !== undefined && to !== undefined && (from.table !== to.table || from.name !== to.name)) {
    const old = batch.view.parentOf(table, nbRow._uuid);
    if (old !== undefined)
      batch.parentRef({ table: old.slot.table, uuid: old.row._uuid }, old.slot.column, nbRow._uuid, 'delete', index);
    batch.parentRef(
      { table: to.table, uuid: batch.ref(to.table, to.name, index) },
      to.column,
      nbRow._uuid,
      'insert',
      index,
    );
  }
  if (table === 'routerPort')
    updateGatewayChassis(batch, nbRow as NbRow<'routerPort'>, next as Tables['routerPort'], index);
}

function merge<R>(row: R, changes: Partial<R>): R {
  const next: Record<string, unknown> = { ...(row as Record<string, unknown>) };
  for (const [f, v] of Object.entries(changes)) {
    if (v === undefined) delete next[f];
    else next[f] = v;
  }
  return next as R;
}

/** Mutates a reference set by the difference of kovn's names; members kovn does not name stay. */
function updateRefSet(
  batch: Batch,
  nb: NbTable,
  nbRow: { readonly _uuid: string },
  s: RefSpec,
  current: object,
  next: object,
  index: number,
): void {
  const cur = new Set(columnsOf(current)[s.field] as readonly string[]);
  const nxt = new Set(columnsOf(next)[s.field] as readonly string[]);
  const gone = ((columnsOf(nbRow)[s.column] ?? []) as readonly string[]).filter((u) => {
    const n = batch.view.nameOf(s.target, u);
    return n !== undefined && cur.has(n) && !nxt.has(n);
  });
  const added = [...nxt].filter((n) => !cur.has(n)).map((n) => batch.ref(s.target, n, index));
  const muts: [string, 'insert' | 'delete', string[]][] = [];
  if (gone.length > 0) muts.push([s.column, 'delete', gone]);
  if (added.length > 0) muts.push([s.column, 'insert', added]);
  if (muts.length > 0) batch.push(index, batch.b.mutate(nb, batch.whereOwned(nbRow._uuid), muts));
}

/** NB column of each membership field, per table (from the description). */
const MEMBER_COLUMNS = Object.fromEntries(
  TABLE_ORDER.map((t) => [
    t,
    new Map(
      Object.entries(tableSpec(t).fields as Readonly<Record<string, FieldSpec>>).flatMap(([field, f]) =>
        f.member === true && f.column !== undefined ? [[field, f.column]] : [],
      ),
    ),
  ]),
) as unknown as Readonly<Record<TableName, ReadonlyMap<string, string>>>;

type MutateOp = Extract<PlanOperation, { op: 'mutate' }>;

function addMutate(batch: Batch, ctx: ReadContext, op: MutateOp, index: number): void {
  const nb = NB_TABLE[op.table];
  const nbRow = findRow(batch, ctx, op.table, op.key, index);
  batch.touches(nbRow._uuid, index);
  const del = (op.delete ?? {}) as Record<string, readonly string[] | undefined>;
  const ins = (op.insert ?? {}) as Record<string, unknown>;
  const muts: [string, 'insert' | 'delete', unknown][] = [];
  for (const field of new Set([...Object.keys(del), ...Object.keys(ins)])) {
    const ref = REF_SETS[op.table]?.find((s) => s.field === field);
    const column = MEMBER_COLUMNS[op.table].get(field);
    if (column === undefined) fail(batch, 'not-a-member-column', index, `${field} is not a membership column of ${nb}`);
    const gone = del[field] ?? [];
    const added = ins[field];
    if (ref !== undefined) {
      const goneUuids = gone.map((n) => batch.refIfAny(ref.target, n)).filter((u): u is string => u !== undefined);
      const addedUuids = ((added ?? []) as readonly string[]).map((n) => batch.ref(ref.target, n, index));
      if (goneUuids.length > 0) muts.push([column, 'delete', goneUuids]);
      if (addedUuids.length > 0) muts.push([column, 'insert', addedUuids]);
    } else {
      if (gone.length > 0) muts.push([column, 'delete', [...gone]]);
      const empty =
        added === undefined || (Array.isArray(added) ? added.length === 0 : Object.keys(added as object).length === 0);
      if (!empty) muts.push([column, 'insert', added]);
    }
  }
  if (muts.length > 0) batch.push(index, batch.b.mutate(nb, batch.whereOwned(nbRow._uuid), muts as never));
}

function updateGatewayChassis(
  batch: Batch,
  nbRow: NbRow<'routerPort'>,
  next: Tables['routerPort'],
  index: number,
): void {
  const b = batch.b;
  const existing = new Map<string, nb.GatewayChassis>();
  for (const u of nbRow.gateway_chassis) {
    const gc = batch.view.get('Gateway_Chassis', u);
    if (gc !== undefined) existing.set(gc.chassis_name, gc);
  }
  const wanted = new Map(next.gatewayChassis.map((g) => [g.chassisName, g]));
  const added: string[] = [];
  for (const g of wanted.values()) {
    const e = existing.get(g.chassisName);
    if (e === undefined) added.push(insertGatewayChassis(batch, next.name, g, index));
    else if (e.priority !== g.priority)
      batch.push(index, b.update('Gateway_Chassis', batch.whereOwned(e._uuid), { priority: g.priority }));
  }
  const gone = [...existing.values()].filter((e) => !wanted.has(e.chassis_name)).map((e) => e._uuid);
  const muts: [string, 'insert' | 'delete', string[]][] = [];
  if (gone.length > 0) muts.push(['gateway_chassis', 'delete', gone]);
  if (added.length > 0) muts.push(['gateway_chassis', 'insert', added]);
  if (muts.length > 0) batch.push(index, b.mutate('Logical_Router_Port', batch.whereOwned(nbRow._uuid), muts));
}

function addDelete(batch: Batch, ctx: ReadContext, table: TableName, key: string, index: number): void {
  const nb = NB_TABLE[table];
  const nbRow = findRow(batch, ctx, table, key, index);
  batch.touches(nbRow._uuid, index);
  if (PARENT_SLOTS[table] !== undefined) {
    const p = batch.view.parentOf(table, nbRow._uuid);
    if (p !== undefined)
      batch.parentRef({ table: p.slot.table, uuid: p.row._uuid }, p.slot.column, nbRow._uuid, 'delete', index);
  }
  batch.push(index, batch.b.delete(nb, batch.whereOwned(nbRow._uuid)));
  if (PARENT_SLOTS[table] === undefined) batch.deletedRow(nbRow._uuid);
}

/** Equality of two native column values with OVSDB semantics (sets unordered, maps by entries, unset = empty). */
export function nativeEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    const sa = new Set((a ?? []) as readonly unknown[]);
    const sb = new Set((b ?? []) as readonly unknown[]);
    return sa.size === sb.size && [...sa].every((x) => sb.has(x));
  }
  if ((a === undefined || typeof a === 'object') && (b === undefined || typeof b === 'object')) {
    const ea = Object.entries((a ?? {}) as Record<string, unknown>).filter(([, v]) => v !== undefined);
    const mb = (b ?? {}) as Record<string, unknown>;
    return ea.length === Object.values(mb).filter((v) => v !== undefined).length && ea.every(([k, v]) => mb[k] === v);
  }
  return false;
}

/**
 * `<table-updates2>` (ovsdb-server(7) §4.1.14): table → row uuid →
 * `{initial|insert|modify: <row>}` or `{delete: null}`. In `modify`, the row
 * holds only changed columns as diffs (see cache.ts for applying them).
 * Used by the monitor_cond reply, `update2`, monitor_cond_since and `update3`.
 */
import { OvsdbProtocolError } from './errors.ts';
import { isUuid } from './atom.ts';
import { expectObject, preview, dict } from './json.ts';
import { type Row, emitRow, parseRow } from './operation.ts';

export type RowUpdate2 =
  | { readonly kind: 'initial' | 'insert' | 'modify'; readonly row: Row }
  | { readonly kind: 'delete' };

/** table name → row uuid → update. */
export type TableUpdates2 = Readonly<Record<string, Readonly<Record<string, RowUpdate2>>>>;

const KINDS = ['initial', 'insert', 'modify', 'delete'] as const;

/**
 * @example parseTableUpdates2({Logical_Switch: {[u]: {insert: {name: 'ls1'}}}})
 */
export function parseTableUpdates2(json: unknown, path = 'table-updates2'): TableUpdates2 {
  const out = dict<Record<string, RowUpdate2>>();
  for (const [table, tj] of Object.entries(expectObject(json, path))) {
    const rows = dict<RowUpdate2>();
    for (const [uuid, rj] of Object.entries(expectObject(tj, `${path}.${table}`))) {
      if (!isUuid(uuid)) throw new OvsdbProtocolError(`${path}.${table}: row key ${preview(uuid)} is not a uuid`);
      rows[uuid] = parseRowUpdate2(rj, `${path}.${table}.${uuid}`);
    }
    out[table] = rows;
  }
  return out;
}

function parseRowUpdate2(json: unknown, path: string): RowUpdate2 {
  const o = expectObject(json, path);
  const keys = Object.keys(o);
  const kind = keys[0];
  if (keys.length !== 1 || kind === undefined || !(KINDS as readonly string[]).includes(kind)) {
    throw new OvsdbProtocolError(`${path}: expected one of ${KINDS.join('/')}, got ${preview(json)}`);
  }
  if (kind === 'delete') return { kind: 'delete' };
  return { kind: kind as 'initial' | 'insert' | 'modify', row: parseRow(o[kind], `${path}.${kind}`) };
}

/** Inverse of {@link parseTableUpdates2}. */
export function emitTableUpdates2(updates: TableUpdates2): Record<string, unknown> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [table, rows] of Object.entries(updates)) {
    const t: Record<string, unknown> = {};
    for (const [uuid, u] of Object.entries(rows))
      t[uuid] = u.kind === 'delete' ? { delete: null } : { [u.kind]: emitRow(u.row) };
    out[table] = t;
  }
  return out;
}

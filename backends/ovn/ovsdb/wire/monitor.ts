/**
 * Monitor requests and replies (RFC 7047 §4.1.5, ovsdb-server(7) §4.1.12 and
 * §4.1.15): `<monitor-cond-requests>` (table → `[{columns, where, select}]`)
 * and the monitor_cond_since reply `[found, last-txn-id, <table-updates2>]`.
 */
import { isUuid } from './atom.ts';
import { OvsdbProtocolError } from './errors.ts';
import { type Condition, emitWhere, parseWhere } from './condition.ts';
import { expectArray, expectBoolean, expectObject, expectString, preview, dict } from './json.ts';
import { type TableUpdates2, emitTableUpdates2, parseTableUpdates2 } from './update.ts';

export interface MonitorSelect {
  readonly initial?: boolean;
  readonly insert?: boolean;
  readonly delete?: boolean;
  readonly modify?: boolean;
}

export interface MonitorCondRequest {
  /** Columns to monitor; all when omitted. */
  readonly columns?: readonly string[];
  /** Rows matching any condition are monitored; all when omitted. */
  readonly where?: readonly Condition[];
  readonly select?: MonitorSelect;
}

/** table name → requests. */
export type MonitorCondRequests = Readonly<Record<string, readonly MonitorCondRequest[]>>;

/** The transaction id that means "none" (monitor_cond_since from scratch). */
export const ZERO_TXN_ID = '00000000-0000-0000-0000-000000000000';

const SELECT_KEYS = ['initial', 'insert', 'delete', 'modify'] as const;

export function emitMonitorCondRequests(reqs: MonitorCondRequests): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [table, list] of Object.entries(reqs)) {
    out[table] = list.map((r) => ({
      ...(r.columns === undefined ? {} : { columns: [...r.columns] }),
      ...(r.where === undefined ? {} : { where: emitWhere(r.where) }),
      ...(r.select === undefined ? {} : { select: { ...r.select } }),
    }));
  }
  return out;
}

/**
 * Inverse of {@link emitMonitorCondRequests} (a single request object is accepted as a one-element array, as
 * ovsdb-server does).
 */
export function parseMonitorCondRequests(json: unknown, path = 'monitor-cond-requests'): MonitorCondRequests {
  const out = dict<MonitorCondRequest[]>();
  for (const [table, lj] of Object.entries(expectObject(json, path))) {
    const list = Array.isArray(lj) ? lj : [lj];
    out[table] = list.map((rj, i) => parseMonitorCondRequest(rj, `${path}.${table}[${i}]`));
  }
  return out;
}

function parseMonitorCondRequest(json: unknown, path: string): MonitorCondRequest {
  const o = expectObject(json, path);
  const out: { columns?: string[]; where?: Condition[]; select?: MonitorSelect } = {};
  if (o.columns !== undefined)
    out.columns = expectArray(o.columns, `${path}.columns`).map((c, i) => expectString(c, `${path}.columns[${i}]`));
  if (o.where !== undefined) out.where = parseWhere(o.where, `${path}.where`);
  if (o.select !== undefined) {
    const so = expectObject(o.select, `${path}.select`);
    const select: { -readonly [K in keyof MonitorSelect]: boolean } = {};
    for (const k of SELECT_KEYS) if (so[k] !== undefined) select[k] = expectBoolean(so[k], `${path}.select.${k}`);
    out.select = select;
  }
  return out;
}

export interface MonitorCondSinceReply {
  /** Whether the server still had our last txn id: then `updates` are only the changes after it. */
  readonly found: boolean;
  /** The id of the latest transaction included in `updates`. */
  readonly lastTxnId: string;
  readonly updates: TableUpdates2;
}

/**
 * @example parseMonitorCondSinceReply([true, txnId, {}])
 */
export function parseMonitorCondSinceReply(json: unknown, path = 'monitor_cond_since reply'): MonitorCondSinceReply {
  const [found, lastTxnId, updates] = parseMonitorCondSinceHead(json, path);
  return { found, lastTxnId, updates: parseTableUpdates2(updates, `${path}[2]`) };
}

/**
 * The reply's `found` and last txn id checked, its `<table-updates2>` as received (for decoders that read it
 * directly).
 */
export function parseMonitorCondSinceHead(
  json: unknown,
  path = 'monitor_cond_since reply',
): [found: boolean, lastTxnId: string, updates: unknown] {
  const a = expectArray(json, path);
  if (a.length !== 3)
    throw new OvsdbProtocolError(`${path}: expected [found, last-txn-id, updates], got ${preview(json)}`);
  const lastTxnId = expectString(a[1], `${path}[1]`);
  if (!isUuid(lastTxnId)) throw new OvsdbProtocolError(`${path}[1]: not a uuid: ${preview(lastTxnId)}`);
  return [expectBoolean(a[0], `${path}[0]`), lastTxnId, a[2]];
}

export function emitMonitorCondSinceReply(r: MonitorCondSinceReply): unknown {
  return [r.found, r.lastTxnId, emitTableUpdates2(r.updates)];
}

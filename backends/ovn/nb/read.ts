/**
 * The topology rebuilt from the session cache: every row kovn owns, mapped
 * back to the model (columns.ts), keyed by `keyOf`. Rows kovn cannot name
 * (a child that hangs off no kovn parent) are left out, since no model row
 * could describe them; where two kovn rows share a key the lowest uuid wins.
 */
import { TABLE_ORDER, type TableName, type Tables, type Topology, keyOf } from '../../../model/topology/index.ts';
import { type ReadContext, fromNbRow } from './columns.ts';

/**
 * @example
 * const t = readTopology({ view: new NbView(session.cache), parse: memoParser() });
 * plan(t, desired) // what is left to do
 */
export function readTopology(ctx: ReadContext): Topology {
  const out = {} as Record<TableName, Map<string, unknown>>;
  for (const table of TABLE_ORDER) out[table] = readTable(ctx, table);
  return out as unknown as Topology;
}

function readTable<T extends TableName>(ctx: ReadContext, table: T): Map<string, Tables[T]> {
  const rows = new Map<string, Tables[T]>();
  const uuids = new Map<string, string>();
  for (const nbRow of ctx.view.owned(table)) {
    const row = fromNbRow(table, nbRow, ctx);
    if (row === undefined) continue;
    const key = keyOf(table, row);
    const seen = uuids.get(key);
    if (seen !== undefined && seen < nbRow._uuid) continue;
    uuids.set(key, nbRow._uuid);
    rows.set(key, row);
  }
  return rows;
}

/**
 * kovn's rows as the session cache holds them: find a model row's NB row by
 * key, the name of a referenced row, the parent that holds a child. Every
 * answer is restricted to rows kovn owns (`external_ids:vendor=kovn`); where
 * two owned rows share a key (never written by kovn, but possible by hand),
 * the lowest uuid wins, so answers are deterministic.
 */
import type { TableName } from '../../../model/topology/index.ts';
import type { OvsdbCache, nb } from '../ovsdb/index.ts';
import {
  IDENTITY,
  NAME_ID,
  NB_TABLE,
  type NbRow,
  type NbTable,
  PARENT_SLOTS,
  type ParentRow,
  type ParentSlot,
  isOwned,
} from './tables.ts';

/** Parent tables and the child columns they hold, for the reverse map. */
const PARENT_COLUMNS: readonly ParentSlot[] = [
  ...new Map(
    Object.values(PARENT_SLOTS)
      .flat()
      .map((s) => [`${s.table}.${s.column}`, s]),
  ).values(),
];

/** The uuid-set column `slot.column` of a parent row. */
const children = (row: ParentRow, column: string): readonly string[] =>
  (row as unknown as Readonly<Record<string, readonly string[] | undefined>>)[column] ?? [];

/** Tables whose rows other rows name (by uuid). */
export type NamedTable =
  | 'switchPort'
  | 'routerPort'
  | 'loadBalancer'
  | 'dhcpOptions'
  | 'switch'
  | 'router'
  | 'portGroup';

export class NbView {
  /** child uuid → owned parent holding it, with the slot; rebuilt after any cache change. */
  private parents: Map<string, { slot: ParentSlot; row: ParentRow }> | undefined;

  constructor(readonly cache: OvsdbCache<nb.Tables>) {
    cache.onChange(() => (this.parents = undefined));
  }

  /** The owned NB row of model row `key`, if any. */
  find<T extends TableName>(table: T, key: string): NbRow<T> | undefined {
    const id = IDENTITY[table];
    const index = id.kind === 'name' ? 'name' : `external_ids:${id.idKey}`;
    return lowest(this.cache.lookup(NB_TABLE[table], index, key).filter(isOwned));
  }

  /** Rows of `table` that have `name`, whoever owns them (for clash checks). */
  named<T extends TableName>(table: T, name: string): NbRow<T>[] {
    return this.cache.lookup(NB_TABLE[table], 'name', name);
  }

  /** The model name of an owned row by uuid (`name`, or `kovn-name` for DHCP options). */
  nameOf(table: NamedTable, uuid: string): string | undefined {
    const row = this.cache.get(NB_TABLE[table], uuid);
    if (row === undefined || !isOwned(row)) return undefined;
    return 'name' in row ? row.name : row.external_ids[NAME_ID];
  }

  /** The owned parent holding child `uuid` of `table`, with the slot it sits in. */
  parentOf(table: TableName, uuid: string): { slot: ParentSlot; row: ParentRow; name: string } | undefined {
    const p = this.parentMap().get(uuid);
    if (p === undefined || !(PARENT_SLOTS[table] ?? []).includes(p.slot)) return undefined;
    return { ...p, name: p.row.name };
  }

  private parentMap(): Map<string, { slot: ParentSlot; row: ParentRow }> {
    if (this.parents !== undefined) return this.parents;
    const map = new Map<string, { slot: ParentSlot; row: ParentRow }>();
    for (const slot of PARENT_COLUMNS) {
      for (const row of this.owned(slot.table)) {
        for (const child of children(row, slot.column)) {
          const seen = map.get(child);
          if (seen === undefined || row._uuid < seen.row._uuid) map.set(child, { slot, row });
        }
      }
    }
    return (this.parents = map);
  }

  /** Any NB row by table and uuid, owned or not. */
  get<N extends NbTable>(table: N, uuid: string): nb.Tables[N] | undefined {
    return this.cache.get(table, uuid);
  }

  /** Every owned row of a model table. */
  owned<T extends TableName>(table: T): NbRow<T>[] {
    const out: NbRow<T>[] = [];
    for (const row of this.cache.table(NB_TABLE[table]).values()) if (isOwned(row)) out.push(row);
    return out;
  }
}

function lowest<R extends { readonly _uuid: string }>(rows: readonly R[]): R | undefined {
  let best: R | undefined;
  for (const r of rows) if (best === undefined || r._uuid < best._uuid) best = r;
  return best;
}

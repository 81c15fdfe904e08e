/**
 * kovn's rows as the session cache holds them: find a model row's NB row by
 * key, the name of a referenced row, the parent that holds a child. Every
 * answer is restricted to rows kovn owns (`external_ids:vendor=kovn`); where
 * two owned rows share a key (never written by kovn, but possible by hand),
 * the lowest uuid wins, so answers are deterministic.
 */
import type { TableName } from '../../../model/topology/index.ts';
import type { OvsdbCache, RowChange, nb } from '../ovsdb/index.ts';
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

/** The parent slots by NB table: where a changed row of that table may hold children. */
const SLOTS_BY_NB_TABLE = new Map<string, ParentSlot[]>();
for (const slot of PARENT_COLUMNS) {
  const t = NB_TABLE[slot.table];
  SLOTS_BY_NB_TABLE.set(t, [...(SLOTS_BY_NB_TABLE.get(t) ?? []), slot]);
}

/** A monitor update larger than this rebuilds the reverse map rather than patching it row by row. */
const PATCH_MAX = 1024;

type Holder = { readonly slot: ParentSlot; readonly row: ParentRow };

export class NbView {
  /**
   * child uuid → the owned parents holding it, with their slots; built on
   * first use and then patched by each cache change (a full rebuild per
   * monitor update costs the size of the database per row written).
   */
  private parents: Map<string, Holder[]> | undefined;

  constructor(readonly cache: OvsdbCache<nb.Tables>) {
    cache.onChange((changes) => this.patch(changes));
  }

  private patch(changes: readonly RowChange[]): void {
    const map = this.parents;
    if (map === undefined) return;
    if (changes.length > PATCH_MAX) {
      this.parents = undefined;
      return;
    }
    for (const c of changes) {
      const slots = SLOTS_BY_NB_TABLE.get(c.table);
      if (slots === undefined) continue;
      for (const slot of slots) {
        const old = c.old as unknown as ParentRow | undefined;
        if (old !== undefined && isOwned(old))
          for (const child of children(old, slot.column)) {
            const list = map.get(child)?.filter((h) => !(h.row._uuid === c.uuid && h.slot === slot));
            if (list === undefined || list.length === 0) map.delete(child);
            else map.set(child, list);
          }
        const row = c.new as unknown as ParentRow | undefined;
        if (row !== undefined && isOwned(row))
          for (const child of children(row, slot.column)) hold(map, child, { slot, row });
      }
    }
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
    let p: Holder | undefined;
    // The lowest uuid among the owned parents holding it (two only when written so by hand).
    for (const h of this.parentMap().get(uuid) ?? []) if (p === undefined || h.row._uuid < p.row._uuid) p = h;
    if (p === undefined || !(PARENT_SLOTS[table] ?? []).includes(p.slot)) return undefined;
    return { ...p, name: p.row.name };
  }

  private parentMap(): Map<string, Holder[]> {
    if (this.parents !== undefined) return this.parents;
    const map = new Map<string, Holder[]>();
    for (const slot of PARENT_COLUMNS)
      for (const row of this.owned(slot.table))
        for (const child of children(row, slot.column)) hold(map, child, { slot, row });
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

function hold(map: Map<string, Holder[]>, child: string, h: Holder): void {
  const list = map.get(child);
  if (list === undefined) map.set(child, [h]);
  else list.push(h);
}

function lowest<R extends { readonly _uuid: string }>(rows: readonly R[]): R | undefined {
  let best: R | undefined;
  for (const r of rows) if (best === undefined || r._uuid < best._uuid) best = r;
  return best;
}

/**
 * kovn's rows as the session cache holds them: find a model row's NB row by
 * key, the name of a referenced row, the parent that holds a child. Every
 * answer is restricted to rows kovn owns (`external_ids:vendor=kovn`); where
 * two owned rows share a key (never written by kovn, but possible by hand),
 * the lowest uuid wins, so answers are deterministic.
 */
import type { TableName } from '../../../model/topology/index.ts';
import type { OvsdbCache, nb } from '../ovsdb/index.ts';
import { IDENTITY, NAME_ID, NB_TABLE, type NbTable, PARENT_SLOTS, type ParentSlot, isOwned } from './tables.ts';

type AnyRow = {
  readonly _uuid: string;
  readonly external_ids: Readonly<Record<string, string>>;
  readonly [c: string]: unknown;
};

/** Parent tables and the child columns they hold, for the reverse map. */
const PARENT_COLUMNS: readonly ParentSlot[] = [
  ...new Map(
    Object.values(PARENT_SLOTS)
      .flat()
      .map((s) => [`${s.table}.${s.column}`, s]),
  ).values(),
];

export class NbView {
  /** child uuid → owned parent holding it, with the slot; rebuilt after any cache change. */
  private parents: Map<string, { slot: ParentSlot; row: AnyRow }> | undefined;

  constructor(readonly cache: OvsdbCache<nb.Tables>) {
    cache.onChange(() => (this.parents = undefined));
  }

  /** The owned NB row of model row `key`, if any. */
  find(table: TableName, key: string): AnyRow | undefined {
    const id = IDENTITY[table];
    const index = id.kind === 'name' ? 'name' : `external_ids:${id.idKey}`;
    return lowest(this.rows(NB_TABLE[table], index, key).filter(isOwned));
  }

  /** Rows of `table` that have `name`, whoever owns them (for clash checks). */
  named(table: TableName, name: string): AnyRow[] {
    return this.rows(NB_TABLE[table], 'name', name);
  }

  /** The model name of an owned row by uuid (`name`, or `kovn-name` for DHCP options). */
  nameOf(
    table: 'switchPort' | 'routerPort' | 'loadBalancer' | 'dhcpOptions' | 'switch' | 'router' | 'portGroup',
    uuid: string,
  ): string | undefined {
    const row = this.get(NB_TABLE[table], uuid);
    if (row === undefined || !isOwned(row)) return undefined;
    return table === 'dhcpOptions' ? row.external_ids[NAME_ID] : (row.name as string);
  }

  /** The owned parent holding child `uuid` of `table`, with the slot it sits in. */
  parentOf(table: TableName, uuid: string): { slot: ParentSlot; row: AnyRow; name: string } | undefined {
    const p = this.parentMap().get(uuid);
    if (p === undefined || !(PARENT_SLOTS[table] ?? []).includes(p.slot)) return undefined;
    return { ...p, name: p.row.name as string };
  }

  private parentMap(): Map<string, { slot: ParentSlot; row: AnyRow }> {
    if (this.parents !== undefined) return this.parents;
    const map = new Map<string, { slot: ParentSlot; row: AnyRow }>();
    for (const slot of PARENT_COLUMNS) {
      for (const row of this.owned(slot.table)) {
        for (const child of (row[slot.column] ?? []) as readonly string[]) {
          const seen = map.get(child);
          if (seen === undefined || row._uuid < seen.row._uuid) map.set(child, { slot, row });
        }
      }
    }
    return (this.parents = map);
  }

  get(table: NbTable, uuid: string): AnyRow | undefined {
    return this.cache.get(table as keyof nb.Tables & string, uuid) as unknown as AnyRow | undefined;
  }

  /** Every owned row of a model table. */
  owned(table: TableName): AnyRow[] {
    const out: AnyRow[] = [];
    for (const row of this.cache.table(NB_TABLE[table]).values()) if (isOwned(row)) out.push(row as unknown as AnyRow);
    return out;
  }

  private rows(table: NbTable, index: string, value: string): AnyRow[] {
    return this.cache.lookup(table as keyof nb.Tables & string, index, value) as unknown as AnyRow[];
  }
}

export type { AnyRow };

function lowest(rows: readonly AnyRow[]): AnyRow | undefined {
  let best: AnyRow | undefined;
  for (const r of rows) if (best === undefined || r._uuid < best._uuid) best = r;
  return best;
}

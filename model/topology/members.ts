/**
 * Membership columns: the set and map columns that many objects share and
 * that change one member at a time (a port joining a port group of 10,000, an
 * address joining an address set, one Service's VIP on the cluster load
 * balancer, a load balancer attached to a switch). A plan changes them with a
 * `mutate` operation carrying only the members that come and go, which the OVN
 * backend sends as an OVSDB `mutate`; every other column changes by `update`.
 *
 * Semantics are OVSDB's (RFC 7047 §5.1), applied in this order: `delete`
 * first, then `insert`.
 * - set column: `delete` removes the listed members (absent ones are ignored),
 *   `insert` adds those not present.
 * - map column: `delete` lists keys and removes them whatever their values;
 *   `insert` adds the pairs whose key is absent, and leaves a present key's
 *   value alone. To change a key's value, delete the key and insert the pair
 *   in the same operation (delete comes first).
 */
import { type FieldSpec, type MemberFields, TABLE_ORDER, tableSpec } from './tables.ts';
import type { Attrs, TableName, Tables } from './types.ts';

/** The columns a `mutate` operation may change, per table (the fields marked `member` in `tables.ts`). */
export const MEMBER_FIELDS = Object.fromEntries(
  TABLE_ORDER.flatMap((t) => {
    const fields = Object.entries(tableSpec(t).fields as Readonly<Record<string, FieldSpec>>)
      .filter(([, f]) => f.member === true)
      .map(([name]) => name);
    return fields.length > 0 ? [[t, fields]] : [];
  }),
) as unknown as MemberFields;

export type MemberTable = keyof typeof MEMBER_FIELDS;
export type MemberField<T extends MemberTable> = MemberFields[T][number];

/** Members to add: set members as a list, map pairs as a record. */
export type MemberInsert<T extends MemberTable> = {
  readonly [F in MemberField<T>]?: F extends keyof Tables[T] ? Tables[T][F] : never;
};
/** Members to remove: set members, or map keys. */
export type MemberDelete<T extends MemberTable> = { readonly [F in MemberField<T>]?: readonly string[] };

export function isMemberTable(table: TableName): table is MemberTable {
  return Object.hasOwn(MEMBER_FIELDS, table);
}

/** Whether `field` of `table` may be changed by `mutate`. */
export function isMemberField(table: TableName, field: string): boolean {
  return isMemberTable(table) && (MEMBER_FIELDS[table] as readonly string[]).includes(field);
}

/**
 * `row` with the member changes applied (a new object; `row` is untouched).
 * Returns the name of the first field that is not a membership column of the
 * table instead, for the caller to report.
 *
 * @example
 * applyMembers('portGroup', pg, { ports: ['web-1.default'] }, { ports: ['web-0.default'] })
 */
export function applyMembers<T extends MemberTable>(
  table: T,
  row: Tables[T],
  insert: MemberInsert<T> | undefined,
  del: MemberDelete<T> | undefined,
): Tables[T] | { readonly badField: string } {
  const next: Record<string, unknown> = { ...(row as object) };
  const fields = new Set([...Object.keys(del ?? {}), ...Object.keys(insert ?? {})]);
  for (const field of fields) {
    if (!isMemberField(table, field)) return { badField: field };
    const gone = (del as Record<string, readonly string[] | undefined> | undefined)?.[field] ?? [];
    const added = (insert as Record<string, unknown> | undefined)?.[field];
    const current = next[field];
    next[field] = Array.isArray(current)
      ? mutateSet(current as readonly string[], gone, (added ?? []) as readonly string[])
      : mutateMap((current ?? {}) as Attrs, gone, (added ?? {}) as Attrs);
  }
  return next as unknown as Tables[T];
}

function mutateSet(current: readonly string[], gone: readonly string[], added: readonly string[]): string[] {
  const drop = new Set(gone);
  const out = drop.size === 0 ? [...current] : current.filter((m) => !drop.has(m));
  const have = new Set(out);
  for (const m of added) {
    if (have.has(m)) continue;
    have.add(m);
    out.push(m);
  }
  return out;
}

/** Built through a Map and `Object.fromEntries` so a `__proto__` key stays an ordinary key. */
function mutateMap(current: Attrs, gone: readonly string[], added: Attrs): Attrs {
  const out = new Map(Object.entries(current));
  for (const k of gone) out.delete(k);
  for (const [k, v] of Object.entries(added)) if (!out.has(k)) out.set(k, v);
  return Object.fromEntries(out);
}

/**
 * Column-wise comparison of two rows of one table, with NB semantics: set
 * columns compare as sets (order and repeats do not matter, as in OVSDB), map
 * columns by their entries, matches by their canonical text, and an optional
 * column that is absent equals one that is present with value `undefined`.
 *
 * The column kinds come from the table descriptions (`tables.ts`), which
 * must name every field of every table (a mapped type forces it), so adding
 * a field to `types.ts` without saying how to compare it fails to type-check.
 */
import { type MatchExpr, printMatch } from '../match/index.ts';
import { type ColumnKind, type FieldSpec, TABLE_ORDER, tableSpec } from './tables.ts';
import type { TableName, Tables } from './types.ts';

/** Each table's fields and their kinds as a list (walked on every comparison, so made once). */
const FIELDS = Object.fromEntries(
  TABLE_ORDER.map((t) => [
    t,
    Object.entries(tableSpec(t).fields as Readonly<Record<string, FieldSpec>>).map(([field, f]) => ({
      field,
      kind: f.kind,
    })),
  ]),
) as unknown as Readonly<Record<TableName, readonly { readonly field: string; readonly kind: ColumnKind }[]>>;

/**
 * Deep equality of two rows of `table` with NB semantics (see the file header).
 *
 * @example
 * rowsEqual('addressSet', { name: 'a', addresses: ['10.0.0.1', '10.0.0.2'], externalIds: {} },
 *                         { name: 'a', addresses: ['10.0.0.2', '10.0.0.1'], externalIds: {} }) // true
 */
export function rowsEqual<T extends TableName>(table: T, a: Tables[T], b: Tables[T]): boolean {
  if (a === b) return true;
  const ra = a as unknown as Readonly<Record<string, unknown>>;
  const rb = b as unknown as Readonly<Record<string, unknown>>;
  const fields = FIELDS[table];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const x = ra[f.field];
    const y = rb[f.field];
    if (x !== y && !valuesEqual(f.kind, x, y)) return false;
  }
  return true;
}

/**
 * The fields of `to` that differ from `from`, with `to`'s values; a field set
 * in `from` and unset in `to` is present with value `undefined`. Returns
 * undefined when the rows are equal.
 *
 * @example diffRow('router', r, { ...r, enabled: false }) // { enabled: false }
 */
export function diffRow<T extends TableName>(table: T, from: Tables[T], to: Tables[T]): Partial<Tables[T]> | undefined {
  if (from === to) return undefined;
  const ra = from as unknown as Readonly<Record<string, unknown>>;
  const rb = to as unknown as Readonly<Record<string, unknown>>;
  let changes: Record<string, unknown> | undefined;
  const fields = FIELDS[table];
  for (let i = 0; i < fields.length; i++) {
    const { field, kind } = fields[i]!;
    if (valuesEqual(kind, ra[field], rb[field])) continue;
    changes ??= {};
    changes[field] = rb[field];
  }
  return changes as Partial<Tables[T]> | undefined;
}

function valuesEqual(kind: ColumnKind, a: unknown, b: unknown): boolean {
  if (a === b) return true;
  switch (kind) {
    case 'scalar':
      return false;
    case 'set':
      return setsEqual((a ?? []) as readonly string[], (b ?? []) as readonly string[]);
    case 'map':
      return mapsEqual((a ?? {}) as Readonly<Record<string, unknown>>, (b ?? {}) as Readonly<Record<string, unknown>>);
    case 'match':
      return a !== undefined && b !== undefined && printMatch(a as MatchExpr) === printMatch(b as MatchExpr);
    case 'rowSet':
      return setsEqual(rowSetKeys(a), rowSetKeys(b));
  }
}

function setsEqual(a: readonly string[], b: readonly string[]): boolean {
  // Fast path: the same elements in the same order (the usual case).
  if (a.length === b.length && a.every((x, i) => x === b[i])) return true;
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size !== sb.size) return false;
  for (const x of sa) if (!sb.has(x)) return false;
  return true;
}

function mapsEqual(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  let na = 0;
  for (const k in a) {
    if (a[k] === undefined) continue;
    na++;
    if (a[k] !== b[k]) return false;
  }
  let nb = 0;
  for (const k in b) if (b[k] !== undefined) nb++;
  return na === nb;
}

/** Each record as a canonical string of its defined entries, sorted by field. */
function rowSetKeys(v: unknown): string[] {
  const rows = (v ?? []) as readonly Readonly<Record<string, unknown>>[];
  return rows.map((r) =>
    JSON.stringify(
      Object.keys(r)
        .filter((k) => r[k] !== undefined)
        .sort()
        .map((k) => [k, r[k]]),
    ),
  );
}

/**
 * Shared helpers of the real-server tests: a seeded PRNG, a fresh `select`
 * of the cached tables in cache form, and guarded writer loops. Test-only code.
 */
import type { OvsdbClient } from '../client.ts';
import type { OvsdbCache, CacheRow } from '../cache.ts';
import { OpBuilder } from '../build.ts';
import { type OvsdbSession, isReplayedDuplicate } from '../session.ts';
import type { OvsUuid } from '../wire/atom.ts';
import type { Value } from '../wire/datum.ts';
import type { Row } from '../wire/operation.ts';
import type { nb } from '../schema/index.ts';

/** mulberry32: a small seeded PRNG (tests only; the seed comes from fcSeed()). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the server holds for the cache's tables and columns, converted like the cache converts rows. */
export async function freshSelect(client: OvsdbClient, cache: OvsdbCache<object>): Promise<Record<string, CacheRow[]>> {
  const tables = Object.keys(cache.snapshot());
  const b = new OpBuilder(cache.schema);
  const results = await client.transact(
    cache.schema.name,
    tables.map((t) => b.select(t, [])),
  );
  const out: Record<string, CacheRow[]> = {};
  tables.forEach((t, i) => {
    const rows = (results[i] as { rows: readonly Row[] }).rows.map((r) => {
      const cols: Record<string, Value> = { ...r };
      const uuid = (cols._uuid as OvsUuid).uuid;
      delete cols._uuid;
      delete cols._version;
      return cache.rowFromWire(t, uuid, cols);
    });
    out[t] = rows
      .sort((x, y) => (x._uuid < y._uuid ? -1 : x._uuid > y._uuid ? 1 : 0))
      .map((r) => pick(r, cache.snapshot()[t]?.[0]));
  });
  return out;
}

/** Keeps only the columns the cache monitors (a select returns every column). */
function pick(row: CacheRow, like: CacheRow | undefined): CacheRow {
  if (like === undefined) return row;
  return Object.fromEntries(Object.keys(like).map((k) => [k, row[k]])) as CacheRow;
}

export type Outcome = 'committed' | 'replayed-duplicate';

/**
 * Inserts one Logical_Switch tagged `external_ids:kovn-key=<key>`, guarded so
 * a replay cannot duplicate it. Resolves with how it ended.
 */
export async function guardedSwitch(s: OvsdbSession<nb.Tables>, key: string): Promise<Outcome> {
  const row = { name: `ls-${key}`, external_ids: { vendor: 'kovn', 'kovn-key': key } };
  try {
    await s.transact(s.ops.guardedInsert('Logical_Switch', row, { unique: ['external_ids:kovn-key'] }));
    return 'committed';
  } catch (e) {
    if (isReplayedDuplicate(e)) return 'replayed-duplicate';
    throw e;
  }
}

/** Counts Logical_Switch rows per kovn-key, from a fresh select. */
export async function countByKey(client: OvsdbClient): Promise<Map<string, number>> {
  const b = new OpBuilder<nb.Tables>(await client.getSchema('OVN_Northbound'));
  const [sel] = await client.transact('OVN_Northbound', [
    b.select('Logical_Switch', [['external_ids', 'includes', { vendor: 'kovn' }]], ['external_ids']),
  ]);
  const counts = new Map<string, number>();
  for (const r of sel.rows) {
    const ext = r.external_ids as unknown as { pairs: [string, string][] };
    const key = ext.pairs.find(([k]) => k === 'kovn-key')?.[1];
    if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Runs `task` over `items` with at most `width` in flight. */
export async function inParallel<T, R>(
  items: readonly T[],
  width: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

/** Removes a test's temp dir (kept with KOVN_KEEP_TMP=1, as the control plane does). */
export async function removeTempDir(dir: string | undefined): Promise<void> {
  if (dir === undefined || process.env.KOVN_KEEP_TMP === '1') return;
  const { rm } = await import('node:fs/promises');
  await rm(dir, { recursive: true, force: true });
}

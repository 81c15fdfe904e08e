/**
 * The drift part of `kovn bench controller --drift N`: once the cluster has
 * settled, another writer deletes or changes N random rows of ours (half
 * and half, at random) and creates 10 rows of its own; the running
 * controller must put ours back and leave theirs alone.
 *
 * A drifted row counts from just before its foreign write is sent. It is
 * armed once the backend reports it differing from the desired state (so a
 * check cannot pass on a view that has not seen the write yet), and repaired
 * at the first moment after that when the backend holds it as desired: a
 * change report saying so (real OVN reports kovn's own writes too), or the
 * end of an apply after which reading the row says so (the simulator reports
 * only foreign writes). At the end every drifted row is read once more:
 * `drift_repaired` counts those repaired and still as desired.
 * `foreign_touched` counts the foreign rows that are not as they were
 * created; it is null where the backend cannot hold rows of other owners
 * (the simulator holds only kovn's rows, so no figure there could be other
 * than 0, and none is given).
 */
import type { ApplyOptions, Backend, RowChange, RowKeys } from '../backends/backend.ts';
import type { SimBackend } from '../backends/sim/index.ts';
import type { Plan, TableName, Tables, Topology } from '../model/topology/index.ts';
import { rowsEqual } from '../model/topology/row-diff.ts';
import { splitmix32 } from '../model/ipam/index.ts';

/** A writer that is not kovn, on the backend kovn writes. */
export interface ForeignWriter {
  /** Deletes (`change` false) or changes a row of ours; false when the row is not there. */
  tamper(table: TableName, key: string, change: boolean): Promise<boolean>;
  /**
   * Creates `n` rows of its own (some inside rows of ours, where the backend
   * has such a thing); undefined where the backend holds no rows but kovn's.
   */
  readonly addForeign?: (n: number) => Promise<void>;
  /** Its own rows as they are now, one fingerprint each (a missing row has none). */
  readonly foreign?: () => Promise<readonly string[]>;
  close(): Promise<void>;
}

export interface DriftMetrics {
  drift_repaired: number;
  drift_repair_p50_ms: number;
  drift_repair_p99_ms: number;
  /** Null where the backend holds no rows of other owners (the simulator). */
  foreign_touched: number | null;
}

/** Tables drifted: many rows each, and every kind of NB row (child, root, referenced by others). */
export const DRIFT_TABLES: readonly TableName[] = ['switchPort', 'acl', 'addressSet', 'portGroup', 'loadBalancer'];
const FOREIGN_ROWS = 10;

type Key = `${TableName} ${string}`;
const keyOf = (table: TableName, key: string): Key => `${table} ${key}`;

/**
 * Watches drifted rows on a backend: wrap the backend the controller uses
 * (its applies are what repairs), then `expect` each row just before it is
 * tampered with.
 *
 * @example
 * const probe = new DriftProbe(backend, (t, k) => controller.store.row(t, k), performance.now.bind(performance));
 * const controller = new Controller({ backend: probe.backend, ... });
 */
export class DriftProbe {
  readonly backend: Backend;
  /** Drifted rows not yet repaired: when their foreign write was sent, and whether it was seen. */
  private readonly pending = new Map<Key, { table: TableName; key: string; at: number; armed: boolean }>();
  readonly repairMs = new Map<Key, number>();
  private done: (() => void) | undefined;
  private watching = false;

  constructor(
    readonly inner: Backend,
    private readonly wanted: (table: TableName, key: string) => unknown,
    private readonly now: () => number,
  ) {
    const apply = async (p: Plan, o?: ApplyOptions) => {
      const r = await inner.apply(p, o);
      if (this.pending.size > 0) await this.checkAfterApply();
      return r;
    };
    this.backend = {
      kind: inner.kind,
      apply,
      read: () => inner.read(),
      readRows: (keys) => inner.readRows(keys),
      watch: (listener) => inner.watch(listener),
      close: () => inner.close(),
    };
  }

  /** A row about to be tampered with. */
  expect(table: TableName, key: string): void {
    // Watched from the first drifted row on: before it, the bench's other figures pay nothing for the probe.
    if (!this.watching) this.inner.watch((changes) => this.seen(changes));
    this.watching = true;
    this.pending.set(keyOf(table, key), { table, key, at: this.now(), armed: false });
  }

  /** A row that turned out not to be there: not drifted after all. */
  forget(table: TableName, key: string): void {
    this.pending.delete(keyOf(table, key));
  }

  /** Resolves once every expected row is repaired, or after `timeoutMs` (the rest count as not repaired). */
  async settled(timeoutMs: number): Promise<void> {
    if (this.pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((r) => (this.done = r)),
      new Promise<void>((r) => (timer = setTimeout(r, timeoutMs))),
    ]);
    clearTimeout(timer);
  }

  private seen(changes: readonly RowChange[]): void {
    for (const c of changes) {
      const p = this.pending.get(keyOf(c.table, c.key));
      if (p === undefined) continue;
      if (!this.asWanted(c.table, c.key, c.row)) p.armed = true;
      else if (p.armed) this.repaired(p);
    }
  }

  private async checkAfterApply(): Promise<void> {
    const armed = [...this.pending.values()].filter((p) => p.armed);
    if (armed.length === 0) return;
    const keys = new Map<TableName, Set<string>>();
    for (const p of armed) keys.set(p.table, (keys.get(p.table) ?? new Set()).add(p.key));
    const rows = await this.inner.readRows(keys as RowKeys);
    for (const p of armed) if (this.asWanted(p.table, p.key, rows.get(p.table)?.get(p.key))) this.repaired(p);
  }

  private repaired(p: { table: TableName; key: string; at: number }): void {
    const k = keyOf(p.table, p.key);
    if (!this.pending.delete(k)) return;
    this.repairMs.set(k, this.now() - p.at);
    if (this.pending.size === 0) this.done?.();
  }

  asWanted(table: TableName, key: string, row: unknown): boolean {
    const want = this.wanted(table, key);
    if (want === undefined || row === undefined) return want === row;
    return rowsEqual(table, want as Tables[typeof table], row as Tables[typeof table]);
  }
}

/**
 * Drifts `rows` random rows of ours through `writer` and measures their
 * repair (see the file header).
 *
 * @example const m = await runDrift({ probe, writer, topology: await backend.read(), rows: 100, random, timeoutMs: 30_000 });
 */
export async function runDrift(o: {
  readonly probe: DriftProbe;
  readonly writer: ForeignWriter;
  readonly topology: Topology;
  readonly rows: number;
  readonly random: () => number;
  readonly timeoutMs: number;
  /** Waits until the controller has nothing left to do. */
  readonly idle: () => Promise<void>;
}): Promise<DriftMetrics> {
  await o.writer.addForeign?.(FOREIGN_ROWS);
  await o.idle();
  const before = await o.writer.foreign?.();
  const drifted = await tamperRandom(o);
  await o.probe.settled(o.timeoutMs);
  await o.idle();
  const now = await o.probe.backend.readRows(byTable(drifted));
  const repaired = drifted.filter(
    ([t, k]) => o.probe.repairMs.has(keyOf(t, k)) && o.probe.asWanted(t, k, now.get(t)?.get(k)),
  );
  const ms = repaired.map(([t, k]) => o.probe.repairMs.get(keyOf(t, k)) as number).sort((a, b) => a - b);
  const after = new Set(await o.writer.foreign?.());
  return {
    drift_repaired: repaired.length,
    drift_repair_p50_ms: round(percentile(ms, 50)),
    drift_repair_p99_ms: round(percentile(ms, 99)),
    foreign_touched: before === undefined ? null : before.filter((f) => !after.has(f)).length,
  };
}

async function tamperRandom(o: Parameters<typeof runDrift>[0]): Promise<[TableName, string][]> {
  const candidates: [TableName, string][] = [];
  for (const t of DRIFT_TABLES) for (const k of o.topology[t].keys()) candidates.push([t, k]);
  const drifted: [TableName, string][] = [];
  while (drifted.length < o.rows && candidates.length > 0) {
    const i = Math.floor(o.random() * candidates.length);
    const [t, k] = candidates[i] as [TableName, string];
    candidates[i] = candidates[candidates.length - 1] as [TableName, string];
    candidates.pop();
    o.probe.expect(t, k);
    if (await o.writer.tamper(t, k, o.random() < 0.5)) drifted.push([t, k]);
    else o.probe.forget(t, k);
  }
  return drifted;
}

function byTable(rows: readonly [TableName, string][]): RowKeys {
  const out = new Map<TableName, Set<string>>();
  for (const [t, k] of rows) out.set(t, (out.get(t) ?? new Set()).add(k));
  return out;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

const round = (x: number) => Math.round(x * 10) / 10;

/**
 * The simulator's foreign writer: `tamper` on its tables (reported to its
 * watchers). It creates no rows of its own: the simulator holds only kovn's.
 *
 * @example const writer = simForeignWriter(sim);
 */
export function simForeignWriter(sim: SimBackend): ForeignWriter {
  return {
    async tamper(table, key, change) {
      const row = (await sim.readRows(new Map([[table, new Set([key])]]))).get(table)?.get(key);
      if (row === undefined) return false;
      sim.tamper([
        change
          ? ({ op: 'update', table, key, changes: driftChange(table, row) } as Plan[number])
          : ({ op: 'delete', table, key } as Plan[number]),
      ]);
      return true;
    },
    async close() {},
  };
}

/** The change a foreign writer makes: a port's addresses, any other row's external ids. */
export function driftChange(table: TableName, row: unknown): Record<string, unknown> {
  if (table === 'switchPort') return { addresses: ['02:00:00:00:00:01 192.0.2.1'] };
  const ids = (row as { externalIds: Record<string, string> }).externalIds;
  return { externalIds: { ...ids, drift: 'foreign' } };
}

/**
 * The drift's seeded choices in [0, 1) (the same rows on every run of one size).
 *
 * @example const random = splitmix(18); random(); // in [0, 1)
 */
export function splitmix(seed: number): () => number {
  const next = splitmix32(seed);
  return () => next() / 2 ** 32;
}

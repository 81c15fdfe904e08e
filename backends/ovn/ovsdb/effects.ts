/**
 * Read-your-writes: what the cache must have seen before a transaction's
 * caller is told it is done.
 *
 * From the operations and their results we know some effects for certain:
 * an inserted row (of a root table, not deleted again later in the same
 * transaction) exists with the uuid the server returned, and a row deleted
 * by `_uuid ==` is gone. Updates and mutations are not checked: a no-op
 * update produces no monitor update, so waiting for one could wait forever;
 * they ride on the same ordering guarantee as the checked effects (the
 * server sends one transaction's updates together, before its reply).
 *
 * An {@link EffectWatch} is started before the transaction is sent and
 * records insertions and deletions as they are applied, so an effect counts
 * as seen even if another client's later transaction undid it before the
 * reply was processed.
 */
import type { OvsdbCache } from './cache.ts';
import type { Timers } from './timers.ts';
import { OvsNamedUuid, OvsUuid } from './wire/atom.ts';
import type { DeleteOp, InsertOp, Operation } from './wire/operation.ts';
import type { OperationResult } from './wire/result.ts';
import { isRootTable } from './wire/schema.ts';

export interface ExpectedEffects {
  /** [table, uuid] that must have been inserted. */
  readonly present: readonly (readonly [string, string])[];
  /** [table, uuid] that must have been deleted. */
  readonly absent: readonly (readonly [string, string])[];
}

/**
 * The effects of a successful transaction the cache must show, limited to
 * cached tables.
 *
 * @example
 * expectedEffects(cache, [b.insert('Logical_Switch', { name: 'a' })], [{ uuid: u }]) // {present: [['Logical_Switch',
 * u]], absent: []}
 */
export function expectedEffects(
  cache: OvsdbCache<object>,
  ops: readonly Operation[],
  results: readonly OperationResult[],
): ExpectedEffects {
  const cached = new Set(cache.cachedTables());
  const present: [string, string][] = [];
  const absent: [string, string][] = [];
  const deletes: { i: number; op: DeleteOp }[] = [];
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i] as Operation;
    if (op.op === 'delete') deletes.push({ i, op });
  }
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i] as Operation;
    if (op.op === 'insert') {
      const uuid = results[i]?.uuid;
      // Unreferenced rows of non-root tables are garbage-collected in the same commit, and a later
      // delete in the transaction may remove the row again: neither ever shows up.
      if (!cached.has(op.table) || uuid === undefined || !isRootTable(cache.schema, op.table)) continue;
      if (!deletes.some((d) => d.i > i && d.op.table === op.table && mayDelete(d.op, op, uuid)))
        present.push([op.table, uuid]);
    } else if (op.op === 'delete' && cached.has(op.table)) {
      const target = deletedUuid(op);
      if (target instanceof OvsUuid) absent.push([op.table, target.uuid]);
    }
  }
  return { present, absent };
}

/** The single row a delete names by `_uuid ==`, if it names one. */
function deletedUuid(op: DeleteOp): OvsUuid | OvsNamedUuid | undefined {
  const c = op.where.length === 1 ? op.where[0] : undefined;
  if (typeof c !== 'object' || c.column !== '_uuid' || c.function !== '==') return undefined;
  return c.value instanceof OvsUuid || c.value instanceof OvsNamedUuid ? c.value : undefined;
}

/** Whether `del` could delete the row `ins` inserted (as `uuid`). */
function mayDelete(del: DeleteOp, ins: InsertOp, uuid: string): boolean {
  const target = deletedUuid(del);
  if (target instanceof OvsUuid) return target.uuid === uuid;
  if (target instanceof OvsNamedUuid) return target.name === ins.uuidName;
  return true;
}

/**
 * The tables whose changes may matter for `ops`, and which kind: inserts
 * into root tables (rows of other tables are never expected present, see
 * expectedEffects) and deletes from any table.
 */
function watchedTables(cache: OvsdbCache<object>, ops: readonly Operation[]): Map<string, Watched> {
  const out = new Map<string, Watched>();
  for (const op of ops) {
    // A table the schema lacks: the server rejects the transaction, nothing to watch.
    const inserts =
      op.op === 'insert' && cache.schema.tables[op.table] !== undefined && isRootTable(cache.schema, op.table);
    if (!inserts && op.op !== 'delete') continue;
    let w = out.get(op.table);
    if (w === undefined)
      out.set(op.table, (w = { inserts: false, deletes: false, inserted: new Set(), deleted: new Set() }));
    if (inserts) w.inserts = true;
    else w.deletes = true;
  }
  return out;
}

interface Watched {
  inserts: boolean;
  deletes: boolean;
  /** Uuids inserted / deleted since the watch started. */
  readonly inserted: Set<string>;
  readonly deleted: Set<string>;
}

/**
 * Records, from before a transaction is sent, which rows of the tables it
 * touches the cache inserted or deleted.
 */
export class EffectWatch {
  private readonly watched: ReadonlyMap<string, Watched>;
  private readonly off: () => void;

  constructor(
    private readonly cache: OvsdbCache<object>,
    ops: readonly Operation[],
  ) {
    const watched = watchedTables(cache, ops);
    this.watched = watched;
    this.off =
      watched.size === 0
        ? () => {}
        : cache.onChange((changes) => {
            for (const c of changes) {
              const w = watched.get(c.table);
              if (w === undefined) continue;
              if (c.old === undefined) {
                if (w.inserts && c.new !== undefined) w.inserted.add(c.uuid);
              } else if (c.new === undefined && w.deletes) w.deleted.add(c.uuid);
            }
          });
  }

  /** Whether every expected effect has been applied to the cache. */
  seen(expected: ExpectedEffects): boolean {
    return (
      expected.present.every(([t, u]) => this.watched.get(t)?.inserted.has(u) === true || this.cache.has(t, u)) &&
      expected.absent.every(([t, u]) => this.watched.get(t)?.deleted.has(u) === true || !this.cache.has(t, u))
    );
  }

  /** Resolves once {@link seen}; rejects with code `cache-timeout` after `timeoutMs`. Always stops watching. */
  async wait(expected: ExpectedEffects, opts: { timeoutMs: number; timers?: Timers }): Promise<void> {
    try {
      await this.cache.waitFor(() => this.seen(expected), { ...opts, what: 'our transaction' });
    } finally {
      this.dispose();
    }
  }

  dispose(): void {
    this.off();
  }
}

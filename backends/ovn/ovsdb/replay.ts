/**
 * When may a transaction whose outcome is unknown be sent again?
 *
 * A transact written to a connection that then broke may or may not have
 * committed (raft commits are at-least-once from the client's view: the
 * leader can commit and die before replying). Replaying it is safe only if a
 * second application cannot change the result:
 * - update, delete, select, wait, comment, assert, commit, abort: idempotent;
 * - mutate with `insert`/`delete` (set and map membership): idempotent;
 *   arithmetic mutators (`+=`, ...) are not;
 * - insert: only when a second insert must fail: the table has a unique
 *   index whose columns the row sets (the replay gets "constraint violation"),
 *   or the insert is guarded by an earlier `wait` on the same table, with
 *   `until: "=="`, no rows and timeout 0, whose conditions the new row itself
 *   satisfies (the replay gets "timed out"); see `OpBuilder.guardedInsert`.
 */
import type { DatabaseSchema } from './wire/schema.ts';
import type { Condition } from './wire/condition.ts';
import { isIdempotentMutator } from './wire/mutation.ts';
import type { InsertOp, Operation, WaitOp } from './wire/operation.ts';
import { OvsMap, OvsSet, type Value } from './wire/datum.ts';
import { atomEquals, type Atom } from './wire/atom.ts';

export type ReplayVerdict =
  | { readonly safe: true }
  | { readonly safe: false; readonly opIndex: number; readonly reason: string };

/**
 * @example
 * replayVerdict(schema, b.guardedInsert('ACL', row, { unique: ['external_ids:kovn-key'] })) // {safe: true}
 * replayVerdict(schema, [b.insert('ACL', row)]) // {safe: false, opIndex: 0, reason: 'insert into ACL ...'}
 */
export function replayVerdict(schema: DatabaseSchema, ops: readonly Operation[]): ReplayVerdict {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i] as Operation;
    if (op.op === 'mutate') {
      const bad = op.mutations.find((m) => !isIdempotentMutator(m.mutator));
      if (bad !== undefined)
        return { safe: false, opIndex: i, reason: `mutate ${op.table}.${bad.column} ${bad.mutator} is not idempotent` };
    } else if (op.op === 'insert') {
      if (op.uuid !== undefined) continue; // a fixed uuid: a replay fails with "duplicate uuid"
      if (hasUniqueIndex(schema, op)) continue;
      if (ops.slice(0, i).some((w) => w.op === 'wait' && guards(w, op))) continue;
      return { safe: false, opIndex: i, reason: `insert into ${op.table} has no unique index or guarding wait` };
    }
  }
  return { safe: true };
}

function hasUniqueIndex(schema: DatabaseSchema, op: InsertOp): boolean {
  const indexes = schema.tables[op.table]?.indexes ?? [];
  return indexes.some((ix) => ix.length > 0 && ix.every((c) => op.row[c] !== undefined));
}

/** Whether `wait` fails when a row like `insert`'s exists. */
function guards(wait: WaitOp, insert: InsertOp): boolean {
  if (wait.table !== insert.table || wait.until !== '==' || wait.rows.length !== 0 || wait.timeout !== 0) return false;
  if (wait.where.length === 0) return false;
  return wait.where.every((c) => rowSatisfies(insert.row, c));
}

function rowSatisfies(row: InsertOp['row'], cond: Condition): boolean {
  if (typeof cond === 'boolean') return cond;
  const v = row[cond.column];
  if (v === undefined) return false;
  if (cond.function === '==') return valueEquals(v, cond.value);
  if (cond.function === 'includes') return includes(v, cond.value);
  return false;
}

function atomsOf(v: Value): readonly Atom[] | undefined {
  if (v instanceof OvsSet) return v.items;
  if (v instanceof OvsMap) return undefined;
  return [v];
}

function valueEquals(a: Value, b: Value): boolean {
  return includes(a, b) && includes(b, a);
}

/** Every element (pair) of `sub` is in `sup`. */
function includes(sup: Value, sub: Value): boolean {
  if (sup instanceof OvsMap || sub instanceof OvsMap) {
    if (!(sup instanceof OvsMap) || !(sub instanceof OvsMap)) return false;
    return sub.pairs.every(([k, v]) => sup.pairs.some(([k2, v2]) => atomEquals(k, k2) && atomEquals(v, v2)));
  }
  const a = atomsOf(sup) ?? [];
  return (atomsOf(sub) ?? []).every((x) => a.some((y) => atomEquals(x, y)));
}

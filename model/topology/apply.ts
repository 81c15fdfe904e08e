/**
 * Applying a plan to rows: all or nothing. {@link resolvePlan} works out the
 * end state of every row the plan touches without changing anything (it reads
 * the rows through a lookup), so a plan with a bad operation leaves no trace;
 * {@link applyPlan} builds a new topology from it, and a holder of mutable
 * tables (the simulator backend) writes the same end state in place, which
 * costs the size of the change, not of the tables.
 */
import { keyOf } from './keys.ts';
import { applyMembers, isMemberTable } from './members.ts';
import { type Operation, type Plan, PlanError } from './plan.ts';
import type { TableName, Topology } from './types.ts';

/** table → key → the row after the plan, or undefined when the plan deletes it. */
export type PlanOutcome = Map<TableName, Map<string, unknown>>;

/**
 * The end state of every row `p` touches, read through `rowOf` (the rows
 * before the plan). Throws {@link PlanError} on a create of an existing key
 * (`row-exists`), an update, mutate or delete of a missing one
 * (`missing-row`), a row whose key columns disagree with the operation's key
 * (`key-mismatch`), or a mutate of a column that is not a membership column
 * (`not-a-member-column`).
 *
 * @example resolvePlan(ops, (t, k) => topology[t].get(k))
 */
export function resolvePlan(p: Plan, rowOf: (table: TableName, key: string) => unknown): PlanOutcome {
  const out: PlanOutcome = new Map();
  p.forEach((op, index) => {
    let rows = out.get(op.table);
    if (rows === undefined) out.set(op.table, (rows = new Map()));
    const old = rows.has(op.key) ? rows.get(op.key) : rowOf(op.table, op.key);
    rows.set(op.key, nextRow(op, index, old));
  });
  return out;
}

function nextRow(op: Operation, index: number, old: unknown): unknown {
  if (op.op === 'create') {
    if (old !== undefined) throw new PlanError('row-exists', index, op, 'the row already exists');
    return checkedKey(op, index, op.row);
  }
  if (old === undefined) throw new PlanError('missing-row', index, op, `no such row to ${op.op}`);
  switch (op.op) {
    case 'delete':
      return undefined;
    case 'update':
      return checkedKey(op, index, mergeChanges(old as object, op.changes));
    case 'mutate': {
      if (!isMemberTable(op.table)) throw new PlanError('not-a-member-column', index, op, 'the table has none');
      const next = applyMembers(op.table, old as never, op.insert as never, op.delete as never);
      if ('badField' in next) {
        throw new PlanError('not-a-member-column', index, op, `${next.badField} is not a membership column`);
      }
      return next;
    }
  }
}

function checkedKey(op: Operation, index: number, row: unknown): unknown {
  const key = keyOf(op.table, row as never);
  if (key !== op.key)
    throw new PlanError('key-mismatch', index, op, `the row's key columns give ${JSON.stringify(key)}`);
  return row;
}

/** `old` with `changes` laid over it; a change to undefined removes the field. */
function mergeChanges(old: object, changes: object): object {
  const next: Record<string, unknown> = { ...old };
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) delete next[field];
    else next[field] = value;
  }
  return next;
}

/** Writes an outcome into mutable tables. */
export function writeOutcome(outcome: PlanOutcome, tableOf: (table: TableName) => Map<string, unknown>): void {
  for (const [table, rows] of outcome) {
    const t = tableOf(table);
    for (const [key, row] of rows) {
      if (row === undefined) t.delete(key);
      else t.set(key, row);
    }
  }
}

/**
 * Apply `p` to `t` and return the result; `t` is not modified (only the
 * tables the plan touches are copied). Throws as {@link resolvePlan} does.
 *
 * @example applyPlan(plan(a, b), a) // a topology equal to b
 */
export function applyPlan(p: Plan, t: Topology): Topology {
  const outcome = resolvePlan(p, (table, key) => t[table].get(key));
  const out = { ...t } as Record<TableName, ReadonlyMap<string, unknown>>;
  writeOutcome(outcome, (table) => {
    const copy = new Map<string, unknown>(t[table] as ReadonlyMap<string, unknown>);
    out[table] = copy;
    return copy;
  });
  return out as unknown as Topology;
}

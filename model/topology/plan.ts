/**
 * The diff of two topologies into an ordered plan of operations, and its
 * pure application. Building a plan is separate from sending it (the
 * libovsdb way): `plan` only computes, a backend applies.
 *
 * Ordering rule (what makes every prefix of a plan reference-valid):
 *
 *   1. every create, tables in {@link TABLE_ORDER};
 *   2. every update, tables in {@link TABLE_ORDER};
 *   3. every delete, tables in reverse {@link TABLE_ORDER};
 *
 * and within one table and kind, ascending key (plain string order), so a
 * plan does not depend on the maps' insertion order.
 *
 * Why this is enough: every cross-table reference (see `refs.ts`) points
 * from a later table to an earlier one in TABLE_ORDER, and references are by
 * name, which is the key of every referenced table. (1) A created row names
 * rows of `desired`; each either exists already and is not deleted until
 * step 3, or is created earlier in step 1. (2) After step 1 every row of
 * `desired` exists and nothing has been deleted, so an update may add any
 * reference `desired` holds (an LSP moving to a new switch, an LS gaining a
 * new load balancer) and may drop any. (3) A deleted row is not referenced
 * by any row of `desired` (desired is valid), the rows still pointing at it
 * were updated in step 2, and rows of later tables that pointed at it are
 * deleted before it (reverse order): a port group drops a port before the
 * port goes, an LS drops a load balancer before the LB goes.
 *
 * The one same-table reference, router port `peer`, is a plain string in NB
 * and symmetric, so two new peers cannot both be valid in between; it is
 * checked on whole topologies only.
 *
 * Atomicity: a backend may apply a plan in several atomic steps (the OVN
 * backend cuts it into transactions of `maxOpsPerTransaction` operations, at
 * operation boundaries; the simulator applies it whole). Because every prefix
 * is reference-valid, the database is consistent at every step boundary: no
 * row references a missing one, and each step is all or nothing. What a
 * boundary can show is a partial change: new ports before the port group
 * that lists them is updated, or (the one exception to per-step validity
 * beyond references) a port renamed from one table to the other existing
 * under both names until its delete arrives, since switch and router ports
 * share OVN's port namespace while NB checks names per table only. A plan
 * is the desired end state, not one transaction.
 *
 * A row's key never changes (see `keys.ts`): changing a key column is a
 * delete plus a create, and an update never touches key columns.
 */
import type { MemberDelete, MemberInsert, MemberTable } from './members.ts';
import { diffRow } from './row-diff.ts';
import { TABLE_ORDER } from './tables.ts';
import type { TableName, Tables, Topology } from './types.ts';
import { appendAll } from '../append.ts';

export { applyPlan } from './apply.ts';
export { rowsEqual } from './row-diff.ts';

export type Operation = {
  [T in TableName]:
    | { readonly op: 'create'; readonly table: T; readonly key: string; readonly row: Tables[T] }
    /** Only the changed fields; an optional field that became unset is present with value undefined. */
    | { readonly op: 'update'; readonly table: T; readonly key: string; readonly changes: Partial<Tables[T]> }
    | { readonly op: 'delete'; readonly table: T; readonly key: string }
    /** Members that come and go in membership columns (see members.ts); delete applies before insert. */
    | (T extends MemberTable
        ? {
            readonly op: 'mutate';
            readonly table: T;
            readonly key: string;
            readonly insert?: MemberInsert<T>;
            readonly delete?: MemberDelete<T>;
          }
        : never);
}[TableName];

export type OperationKind = Operation['op'];
export type Plan = readonly Operation[];

export type PlanErrorCode = 'missing-row' | 'row-exists' | 'key-mismatch' | 'not-a-member-column';

/** An operation that does not fit the topology it is applied to. */
export class PlanError extends Error {
  override readonly name = 'PlanError';
  constructor(
    readonly code: PlanErrorCode,
    /** Index of the operation in the plan. */
    readonly index: number,
    readonly operation: Operation,
    detail: string,
  ) {
    super(`plan operation ${index} (${operation.op} ${operation.table} ${JSON.stringify(operation.key)}): ${detail}`);
  }
}

/**
 * The operations that turn `current` into `desired`: one per row that is
 * new, gone or different, nothing for equal rows (set columns compare as
 * sets, so reordering is not a change). Ordered as the file header says.
 * Cost: one pass over both topologies; the plan's size is the number of
 * differing rows.
 *
 * @example
 * const ops = plan(await backend.read(), desired);
 * await backend.apply(ops, { label: 'pod web-0.default' });
 */
export function plan(current: Topology, desired: Topology): Plan {
  const creates: Operation[] = [];
  const updates: Operation[] = [];
  const deletesByTable: Operation[][] = [];
  for (const table of TABLE_ORDER) {
    const d = diffTable(table, current[table], desired[table]);
    appendAll(creates, d.creates);
    appendAll(updates, d.updates);
    deletesByTable.push(d.deletes);
  }
  const deletes = deletesByTable.reverse().flat();
  return [...creates, ...updates, ...deletes];
}

interface TableDiff {
  creates: Operation[];
  updates: Operation[];
  deletes: Operation[];
}

function diffTable<T extends TableName>(
  table: T,
  current: ReadonlyMap<string, Tables[T]>,
  desired: ReadonlyMap<string, Tables[T]>,
): TableDiff {
  const creates: string[] = [];
  const updates: [string, Partial<Tables[T]>][] = [];
  const deletes: string[] = [];
  for (const [key, row] of desired) {
    const old = current.get(key);
    if (old === undefined) {
      creates.push(key);
      continue;
    }
    const changes = diffRow(table, old, row);
    if (changes !== undefined) updates.push([key, changes]);
  }
  for (const key of current.keys()) if (!desired.has(key)) deletes.push(key);
  creates.sort(compareKeys);
  updates.sort((a, b) => compareKeys(a[0], b[0]));
  deletes.sort(compareKeys);
  const mk = (o: unknown) => o as Operation;
  return {
    creates: creates.map((key) => mk({ op: 'create', table, key, row: desired.get(key) })),
    updates: updates.map(([key, changes]) => mk({ op: 'update', table, key, changes })),
    deletes: deletes.map((key) => mk({ op: 'delete', table, key })),
  };
}

const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export type PlanSummary = { readonly [T in TableName]?: Readonly<Record<OperationKind, number>> };

/**
 * Operation counts per table and kind (tables without operations omitted).
 *
 * @example planSummary(ops) // { switchPort: { create: 1, update: 0, mutate: 0, delete: 0 }, ... }
 */
export function planSummary(p: Plan): PlanSummary {
  const out: { [T in TableName]?: Record<OperationKind, number> } = {};
  for (const op of p) {
    const counts = (out[op.table] ??= { create: 0, update: 0, mutate: 0, delete: 0 });
    counts[op.op]++;
  }
  return out;
}

/**
 * The plan for the rows that changed: what the backend holds (the committed
 * shadow) against what the store wants, for the dirty keys only. Ordered as
 * model/topology/plan.ts orders a full plan (creates in table order, then
 * updates and mutates, then deletes in reverse table order), so every prefix
 * stays reference-valid.
 *
 * Membership columns (a port group's ports, an address set's addresses, a
 * load balancer's VIPs, the load balancers of a switch or router) change by
 * `mutate`: one pod joining a port group of 10,000 sends one member, not the
 * group. Every other column changes by `update`.
 */
import {
  type Attrs,
  COLUMNS,
  diffRow,
  isMemberTable,
  MEMBER_FIELDS,
  type Operation,
  type Plan,
  TABLE_ORDER,
  type TableName,
  type Tables,
} from '../../model/topology/index.ts';
import type { DesiredState } from './store.ts';
import { appendAll } from '../../model/append.ts';

/** What the backend holds, as far as the controller knows: table → key → row. */
export type Shadow = Map<TableName, Map<string, unknown>>;

export function emptyShadow(): Shadow {
  return new Map(TABLE_ORDER.map((t) => [t, new Map<string, unknown>()]));
}

export interface DirtyPlan {
  readonly plan: Plan;
  /** The rows to record in the shadow once the plan is committed (undefined: gone). */
  readonly after: ReadonlyMap<TableName, ReadonlyMap<string, unknown>>;
}

/**
 * @example
 * const { plan, after } = planDirty(store, shadow, store.takeDirty());
 * await backend.apply(plan); applyToShadow(shadow, after);
 */
export function planDirty(
  store: DesiredState,
  shadow: Shadow,
  dirty: ReadonlyMap<TableName, ReadonlySet<string>>,
): DirtyPlan {
  const creates: Operation[] = [];
  const changes: Operation[] = [];
  const deletesByTable: Operation[][] = [];
  const after = new Map<TableName, Map<string, unknown>>();
  for (const table of TABLE_ORDER) {
    const keys = dirty.get(table);
    const deletes: Operation[] = [];
    deletesByTable.push(deletes);
    if (!keys || keys.size === 0) continue;
    const held = shadow.get(table)!;
    const out = new Map<string, unknown>();
    after.set(table, out);
    for (const key of [...keys].sort(compareKeys)) {
      const old = held.get(key) as Tables[typeof table] | undefined;
      const row = store.row(table, key);
      out.set(key, row);
      if (old === undefined && row === undefined) continue;
      if (old === undefined) creates.push({ op: 'create', table, key, row } as Operation);
      else if (row === undefined) deletes.push({ op: 'delete', table, key } as Operation);
      else appendAll(changes, changeOps(table, key, old, row));
    }
  }
  const deletes = deletesByTable.reverse().flat();
  const plan: Operation[] = creates;
  for (const op of changes) plan.push(op);
  for (const op of deletes) plan.push(op);
  return { plan, after };
}

/**
 * Record a committed plan's rows in the shadow, but for the rows in `newer`
 * (the backend reported them while the plan was in flight: the report is
 * what the backend holds, the plan's row may have been overtaken).
 */
export function applyToShadow(
  shadow: Shadow,
  after: DirtyPlan['after'],
  newer?: ReadonlyMap<TableName, ReadonlySet<string>>,
): void {
  for (const [table, rows] of after) {
    const held = shadow.get(table)!;
    const skip = newer?.get(table);
    for (const [key, row] of rows) {
      if (skip?.has(key)) continue;
      if (row === undefined) held.delete(key);
      else held.set(key, row);
    }
  }
}

function changeOps<T extends TableName>(table: T, key: string, old: Tables[T], row: Tables[T]): Operation[] {
  const changed = diffRow(table, old, row);
  if (!changed) return [];
  const members: readonly string[] = isMemberTable(table) ? MEMBER_FIELDS[table] : [];
  const update: Record<string, unknown> = {};
  const insert: Record<string, unknown> = {};
  const del: Record<string, unknown> = {};
  let hasUpdate = false;
  let hasMutate = false;
  const cols = COLUMNS[table] as Readonly<Record<string, string>>;
  for (const [column, value] of Object.entries(changed)) {
    if (!members.includes(column)) {
      update[column] = value;
      hasUpdate = true;
      continue;
    }
    const was = (old as unknown as Record<string, unknown>)[column];
    const d = cols[column] === 'set' ? setDelta(was, value) : mapDelta(was, value);
    if (d.insert !== undefined) insert[column] = d.insert;
    if (d.delete !== undefined) del[column] = d.delete;
    hasMutate ||= d.insert !== undefined || d.delete !== undefined;
  }
  const ops: Operation[] = [];
  if (hasUpdate) ops.push({ op: 'update', table, key, changes: update } as Operation);
  if (hasMutate) {
    const m: Record<string, unknown> = { op: 'mutate', table, key };
    if (Object.keys(insert).length > 0) m.insert = insert;
    if (Object.keys(del).length > 0) m.delete = del;
    ops.push(m as Operation);
  }
  return ops;
}

function setDelta(was: unknown, now: unknown): { insert?: string[]; delete?: string[] } {
  const a = new Set((was ?? []) as readonly string[]);
  const b = new Set((now ?? []) as readonly string[]);
  const insert = [...b].filter((m) => !a.has(m));
  const del = [...a].filter((m) => !b.has(m));
  return { ...(insert.length ? { insert } : {}), ...(del.length ? { delete: del } : {}) };
}

/** Map changes: a changed value is deleted and inserted again (OVSDB insert keeps an existing key's value). */
function mapDelta(was: unknown, now: unknown): { insert?: Attrs; delete?: string[] } {
  const a = (was ?? {}) as Attrs;
  const b = (now ?? {}) as Attrs;
  const added: [string, string][] = [];
  const del: string[] = [];
  for (const [k, v] of Object.entries(a)) if (!Object.hasOwn(b, k) || b[k] !== v) del.push(k);
  for (const [k, v] of Object.entries(b)) if (!Object.hasOwn(a, k) || a[k] !== v) added.push([k, v]);
  return {
    // fromEntries keeps a "__proto__" key as an own key.
    ...(added.length ? { insert: Object.fromEntries(added) } : {}),
    ...(del.length ? { delete: del } : {}),
  };
}

const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

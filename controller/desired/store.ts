/**
 * The controller's own desired state of the logical network, kept by owner.
 *
 * Every reconciler (one Kubernetes object, or a piece of start-up state such
 * as the default VPC) hands the store its whole *fragment*: the rows it owns
 * outright, and the members it adds to set and map columns of rows that may be
 * owned by someone else (a Service's VIPs on the shared
 * `cluster-tcp-loadbalancer`, say). The store diffs the new fragment against
 * the owner's previous one and marks only the rows that changed as dirty, so
 * the cost of a change follows the change, not the cluster. The committer
 * (commit.ts) turns dirty rows into a plan against what the backend holds.
 *
 * Rules:
 * - A row has one owner. A second owner naming the same row gets a
 *   `row-owned` issue back and the row stays with the first.
 * - A set member contributed by several owners (or by the owner and others)
 *   is counted; it leaves the row when the last contributor drops it.
 * - A map key contributed by several owners takes the value of the first
 *   contributor (in contribution order); a different value from a later one
 *   is a `map-key-conflict` issue for that owner, and takes over only when the
 *   first one drops the key.
 * - Contributions to a row nobody owns are kept and appear as soon as the row
 *   does (a Service's VIP can be recorded before the VPC's load balancer row).
 *
 * Values are immutable; rows handed in are kept as they are (not copied).
 */
import {
  type Attrs,
  COLUMNS,
  emptyTopology,
  keyOf,
  TABLE_ORDER,
  type TableName,
  type Tables,
  type Topology,
} from '../../model/topology/index.ts';
import { appendAll } from '../../model/append.ts';
import { formatKey, type ObjectRef } from '../../kube/cluster/types.ts';

/**
 * Who contributed: one Kubernetes object, as a value. The store indexes
 * owners by `formatOwner`, never parsed back: issues and `ownerOf` hand back the value.
 */
export type OwnerKey = ObjectRef;

/**
 * The owner as text: `Kind/ns/name` or `Kind/name` (the store's index, and messages).
 *
 * @example formatOwner({ kind: 'Pod', namespace: 'prod', name: 'web.v2' }) // 'Pod/prod/web.v2'
 */
export const formatOwner = (o: OwnerKey): string => `${o.kind}/${formatKey(o)}`;

/** One row of one table. */
export type TableRow = { [T in TableName]: { readonly table: T; readonly row: Tables[T] } }[TableName];

/** Columns of `T` whose values are NB sets of strings. */
export type SetColumn<T extends TableName> = {
  [K in keyof Tables[T]]-?: (typeof COLUMNS)[T][K] extends 'set' ? K : never;
}[keyof Tables[T]] &
  string;

/** A member (or map entry) contributed to a column of a row, possibly owned by another. */
export type Contribution = {
  [T in TableName]:
    | { readonly table: T; readonly key: string; readonly column: string; readonly members: readonly string[] }
    | { readonly table: T; readonly key: string; readonly column: string; readonly entries: Attrs };
}[TableName];

export interface Fragment {
  readonly rows?: readonly TableRow[];
  readonly contributions?: readonly Contribution[];
}

export type StoreIssueCode = 'row-owned' | 'map-key-conflict' | 'not-a-member-column';

/** Something in a fragment the store could not take as given (data, not an exception). */
export interface StoreIssue {
  readonly code: StoreIssueCode;
  readonly table: TableName;
  readonly key: string;
  readonly column?: string;
  /** The owner that holds the row or the map key. */
  readonly heldBy?: OwnerKey;
  readonly message: string;
}

/** One column of one row that owners contribute to: its identity, kept in its cell beside the cell's index. */
interface CellRef {
  readonly table: TableName;
  readonly key: string;
  readonly column: string;
}

interface OwnerState {
  readonly owner: OwnerKey;
  /** table → key → row, for the rows this owner holds. */
  readonly rows: Map<TableName, Map<string, unknown>>;
  /** cell id → contributed members (set) or entries (map). */
  readonly contributions: Map<string, readonly string[] | Attrs>;
}

/** Contributions to one column of one row. */
type Cell =
  | { readonly kind: 'set'; readonly ref: CellRef; readonly members: Map<string, number> }
  | { readonly kind: 'map'; readonly ref: CellRef; readonly entries: Map<string, { owner: string; value: string }[]> };

const SEP = '\u0000';
const cellId = (table: TableName, key: string, column: string): string => table + SEP + key + SEP + column;

/**
 * @example
 * const s = new DesiredState();
 * s.set({ kind: 'Subnet', name: 'ovn-default' }, { rows: [{ table: 'switch', row: ls }] });
 * s.set({ kind: 'Service', namespace: 'default', name: 'web' }, { contributions: [{ table: 'loadBalancer', key: 'cluster-tcp-loadbalancer',
 *   column: 'vips', entries: { '10.96.0.10:80': '10.16.0.5:8080' } }] });
 * s.takeDirty(); // { switch: Set{'ovn-default'}, loadBalancer: Set{'cluster-tcp-loadbalancer'} }
 */
export class DesiredState {
  /** By `formatOwner`. */
  private readonly owners = new Map<string, OwnerState>();
  /** table → key → the owner's index. */
  private readonly rowOwner = new Map<TableName, Map<string, string>>();
  /** table → key → the owner's row as given. */
  private readonly base = new Map<TableName, Map<string, unknown>>();
  /** table → key → column → cell. */
  private readonly cells = new Map<string, Cell>();
  /** table → keys of rows that have any contributed cell (to materialize them). */
  private readonly contributed = new Map<TableName, Map<string, Set<string>>>();
  /** Materialized rows with contributions, until the row changes again. */
  private readonly merged = new Map<TableName, Map<string, unknown>>();
  private dirty = new Map<TableName, Set<string>>();

  constructor() {
    for (const t of TABLE_ORDER) {
      this.rowOwner.set(t, new Map());
      this.base.set(t, new Map());
      this.contributed.set(t, new Map());
      this.merged.set(t, new Map());
    }
  }

  /** Replace `owner`'s fragment. Returns what could not be taken as given. */
  set(owner: OwnerKey, fragment: Fragment): StoreIssue[] {
    const issues: StoreIssue[] = [];
    const id = formatOwner(owner);
    const prev = this.owners.get(id);
    const next: OwnerState = { owner, rows: new Map(), contributions: new Map() };
    /** The cells this fragment names (a cell it drops is known from the store's own). */
    const refs = new Map<string, CellRef>();
    for (const { table, row } of fragment.rows ?? []) {
      const key = keyOf(table, row as never);
      const holder = this.rowOwner.get(table)!.get(key);
      if (holder !== undefined && holder !== id) {
        issues.push({
          code: 'row-owned',
          table,
          key,
          heldBy: this.owners.get(holder)!.owner,
          message: `${table} ${JSON.stringify(key)} already belongs to ${holder}`,
        });
        continue;
      }
      let m = next.rows.get(table);
      if (!m) next.rows.set(table, (m = new Map()));
      m.set(key, row);
    }
    for (const c of fragment.contributions ?? []) {
      const kind = (COLUMNS[c.table] as Readonly<Record<string, string>>)[c.column];
      const isSet = 'members' in c;
      if (kind !== (isSet ? 'set' : 'map')) {
        issues.push({
          code: 'not-a-member-column',
          table: c.table,
          key: c.key,
          column: c.column,
          message: `${c.table}.${c.column} is not a ${isSet ? 'set' : 'map'} column`,
        });
        continue;
      }
      const cid = cellId(c.table, c.key, c.column);
      const old = next.contributions.get(cid);
      // Only a cell the store does not have yet needs its identity from here (most pods add to existing cells).
      if (old === undefined && !this.cells.has(cid)) refs.set(cid, { table: c.table, key: c.key, column: c.column });
      if (isSet) {
        next.contributions.set(cid, old ? [...(old as readonly string[]), ...c.members] : c.members);
      } else {
        next.contributions.set(cid, old ? { ...(old as Attrs), ...c.entries } : c.entries);
      }
    }
    this.replaceRows(id, prev, next);
    appendAll(issues, this.replaceContributions(id, prev, next, refs));
    if (next.rows.size === 0 && next.contributions.size === 0) this.owners.delete(id);
    else this.owners.set(id, next);
    return issues;
  }

  /** Drop everything `owner` contributed. */
  delete(owner: OwnerKey): void {
    this.set(owner, {});
  }

  has(owner: OwnerKey): boolean {
    return this.owners.has(formatOwner(owner));
  }

  /** The row as it should be in NB (base row plus contributions), or undefined. */
  row<T extends TableName>(table: T, key: string): Tables[T] | undefined {
    const b = this.base.get(table)!.get(key) as Tables[T] | undefined;
    if (b === undefined) return undefined;
    const cols = this.contributed.get(table)!.get(key);
    if (!cols || cols.size === 0) return b;
    const cache = this.merged.get(table)!;
    const hit = cache.get(key) as Tables[T] | undefined;
    if (hit) return hit;
    const out: Record<string, unknown> = { ...(b as object) };
    for (const column of cols) {
      const cell = this.cells.get(cellId(table, key, column))!;
      out[column] = mergeCell(cell, out[column]);
    }
    const row = out as unknown as Tables[T];
    cache.set(key, row);
    return row;
  }

  ownerOf(table: TableName, key: string): OwnerKey | undefined {
    const id = this.rowOwner.get(table)!.get(key);
    return id === undefined ? undefined : this.owners.get(id)?.owner;
  }

  /** Every desired row, materialized (start-up and drift checks). */
  topology(): Topology {
    const t = emptyTopology() as unknown as Record<TableName, Map<string, unknown>>;
    for (const table of TABLE_ORDER) {
      const out = t[table];
      for (const key of this.base.get(table)!.keys()) out.set(key, this.row(table, key));
    }
    return t as unknown as Topology;
  }

  /** Number of rows (base rows) per table. */
  counts(): Record<TableName, number> {
    const out = {} as Record<TableName, number>;
    for (const table of TABLE_ORDER) out[table] = this.base.get(table)!.size;
    return out;
  }

  /** Keys changed since the last call, by table; the store is clean afterwards. */
  takeDirty(): Map<TableName, Set<string>> {
    const d = this.dirty;
    this.dirty = new Map();
    return d;
  }

  /** Mark keys dirty again (a failed commit, a resync). */
  markDirty(table: TableName, keys: Iterable<string>): void {
    for (const k of keys) this.touch(table, k);
  }

  get dirtyCount(): number {
    let n = 0;
    for (const s of this.dirty.values()) n += s.size;
    return n;
  }

  private touch(table: TableName, key: string): void {
    let s = this.dirty.get(table);
    if (!s) this.dirty.set(table, (s = new Set()));
    s.add(key);
    this.merged.get(table)!.delete(key);
  }

  private replaceRows(owner: string, prev: OwnerState | undefined, next: OwnerState): void {
    for (const [table, rows] of prev?.rows ?? []) {
      const keep = next.rows.get(table);
      for (const key of rows.keys()) {
        if (keep?.has(key)) continue;
        this.rowOwner.get(table)!.delete(key);
        this.base.get(table)!.delete(key);
        this.touch(table, key);
      }
    }
    for (const [table, rows] of next.rows) {
      const old = prev?.rows.get(table);
      const base = this.base.get(table)!;
      for (const [key, row] of rows) {
        if (old?.get(key) === row) continue;
        this.rowOwner.get(table)!.set(key, owner);
        base.set(key, row);
        this.touch(table, key);
      }
    }
  }

  private replaceContributions(
    owner: string,
    prev: OwnerState | undefined,
    next: OwnerState,
    refs: ReadonlyMap<string, CellRef>,
  ): StoreIssue[] {
    const issues: StoreIssue[] = [];
    // The cells of the new fragment, then those only the previous one had (no merged Set of both: this runs per pod).
    for (const [id, after] of next.contributions)
      this.replaceCell(owner, id, prev?.contributions.get(id), after, refs, issues);
    for (const [id, before] of prev?.contributions ?? [])
      if (!next.contributions.has(id)) this.replaceCell(owner, id, before, undefined, refs, issues);
    return issues;
  }

  /** One cell: the owner's contribution goes from `before` to `after` (either undefined: none). */
  private replaceCell(
    owner: string,
    id: string,
    before: readonly string[] | Attrs | undefined,
    after: readonly string[] | Attrs | undefined,
    refs: ReadonlyMap<string, CellRef>,
    issues: StoreIssue[],
  ): void {
    if (before === after) return;
    // A cell in the store, or one the fragment names; neither: an empty contribution dropped, nothing to undo.
    const ref = this.cells.get(id)?.ref ?? refs.get(id);
    if (ref === undefined) return;
    const isSet = Array.isArray(before ?? after);
    const changed = isSet
      ? this.diffSetCell(id, ref, (before ?? []) as readonly string[], (after ?? []) as readonly string[])
      : this.diffMapCell(owner, id, ref, [(before ?? {}) as Attrs, (after ?? {}) as Attrs], issues);
    if (changed) this.touch(ref.table, ref.key);
    this.trackContributed(ref, id);
  }

  private diffSetCell(id: string, ref: CellRef, before: readonly string[], after: readonly string[]): boolean {
    let cell = this.cells.get(id) as Extract<Cell, { kind: 'set' }> | undefined;
    if (!cell) this.cells.set(id, (cell = { kind: 'set', ref, members: new Map() }));
    // One member or none on either side (a pod's own address, its port): no Sets to build. A Set also makes a
    // member listed twice by one owner count once. Sets and arrays get loops of their own (one shape each), and
    // no closures: tsx names every closure it creates (esbuild's keepNames), a defineProperty per call.
    const b = before.length > 1 ? new Set(before) : undefined;
    const a = after.length > 1 ? new Set(after) : undefined;
    const beforeOne = lone(before);
    const afterOne = lone(after);
    let changed = false;
    if (b !== undefined) {
      for (const m of b) if (a !== undefined ? !a.has(m) : afterOne !== m) changed = leave(cell, m) || changed;
    } else if (beforeOne !== undefined && (a !== undefined ? !a.has(beforeOne) : afterOne !== beforeOne))
      changed = leave(cell, beforeOne);
    if (a !== undefined) {
      for (const m of a) if (b !== undefined ? !b.has(m) : beforeOne !== m) changed = join(cell, m) || changed;
    } else if (afterOne !== undefined && (b !== undefined ? !b.has(afterOne) : beforeOne !== afterOne))
      changed = join(cell, afterOne) || changed;
    return changed;
  }

  private diffMapCell(
    owner: string,
    id: string,
    ref: CellRef,
    [before, after]: readonly [Attrs, Attrs],
    issues: StoreIssue[],
  ): boolean {
    let cell = this.cells.get(id) as Extract<Cell, { kind: 'map' }> | undefined;
    if (!cell) this.cells.set(id, (cell = { kind: 'map', ref, entries: new Map() }));
    let changed = false;
    for (const k of Object.keys(before)) {
      if (Object.hasOwn(after, k) && after[k] === before[k]) continue;
      const list = cell.entries.get(k);
      if (!list) continue;
      const i = list.findIndex((e) => e.owner === owner);
      if (i < 0) continue;
      if (i === 0) changed = true;
      list.splice(i, 1);
      if (list.length === 0) cell.entries.delete(k);
    }
    for (const [k, value] of Object.entries(after)) {
      if (Object.hasOwn(before, k) && before[k] === value) continue;
      let list = cell.entries.get(k);
      if (!list) cell.entries.set(k, (list = []));
      list.push({ owner, value });
      if (list.length === 1) changed = true;
      else if (list[0]!.value !== value) {
        const { table, key, column } = ref;
        issues.push({
          code: 'map-key-conflict',
          table,
          key,
          column,
          heldBy: this.owners.get(list[0]!.owner)?.owner,
          message: `${table} ${JSON.stringify(key)} ${column}[${JSON.stringify(k)}] is already set by ${list[0]!.owner}`,
        });
      }
    }
    return changed;
  }

  private trackContributed(ref: CellRef, id: string): void {
    const { table, key, column } = ref;
    const cell = this.cells.get(id)!;
    const empty = cell.kind === 'set' ? cell.members.size === 0 : cell.entries.size === 0;
    const byKey = this.contributed.get(table)!;
    let cols = byKey.get(key);
    if (empty) {
      this.cells.delete(id);
      cols?.delete(column);
      if (cols && cols.size === 0) byKey.delete(key);
      return;
    }
    if (!cols) byKey.set(key, (cols = new Set()));
    cols.add(column);
  }
}

/** The only member of a one-member list. */
function lone(xs: readonly string[]): string | undefined {
  return xs.length === 1 ? xs[0] : undefined;
}

/** One contributor fewer for `m`; whether it left the cell. */
function leave(cell: Extract<Cell, { kind: 'set' }>, m: string): boolean {
  const n = (cell.members.get(m) ?? 1) - 1;
  if (n > 0) {
    cell.members.set(m, n);
    return false;
  }
  cell.members.delete(m);
  return true;
}

/** One contributor more for `m`; whether it is new to the cell. */
function join(cell: Extract<Cell, { kind: 'set' }>, m: string): boolean {
  const n = cell.members.get(m) ?? 0;
  cell.members.set(m, n + 1);
  return n === 0;
}

/** The base column value with the cell's members or entries added. */
function mergeCell(cell: Cell, baseValue: unknown): unknown {
  if (cell.kind === 'set') {
    const base = (baseValue ?? []) as readonly string[];
    // Contributions only (a policy's address set filled by its pods): the members as they are, no copy into a Set.
    if (base.length === 0) return [...cell.members.keys()];
    const out = new Set(base);
    for (const m of cell.members.keys()) out.add(m);
    return [...out];
  }
  const out: Record<string, string> = { ...((baseValue ?? {}) as Attrs) };
  for (const [k, list] of cell.entries) if (!Object.hasOwn(out, k)) out[k] = list[0]!.value;
  return out;
}

/**
 * One transaction being assembled from plan operations.
 *
 * - Every row kovn inserts gets its uuid from us (the `uuid` member of
 *   insert, OVSDB 2.13+), recorded in a map shared by all batches of one
 *   apply: later operations refer to the row by that uuid, in the same
 *   transaction or in a later one, even while the transaction that inserts
 *   it is still in flight (which is what lets the backend send the next
 *   batch before the previous one is answered). A replay of such an insert
 *   fails with "duplicate uuid" instead of inserting twice.
 * - Parent mutations (`Logical_Switch.ports` insert/delete, `acls`, `nat`,
 *   ...) are coalesced per parent row and column and emitted after every
 *   insert, so a batch with 500 ports on 5 switches sends 5 mutates, and each
 *   non-root insert is referenced in the transaction that inserts it (OVN
 *   garbage-collects unreferenced rows at commit). A plan operation's insert
 *   and its parent mutation always land in the same batch: a batch is closed
 *   only between plan operations.
 * - Every operation remembers which plan operation it came from, so a server
 *   error can name it.
 */
import type { TableName } from '../../../model/topology/index.ts';
import type { NativeCondition, OpBuilder, Operation } from '../ovsdb/index.ts';
import { type ErrorSite, OvnBackendError, describeSite } from './errors.ts';
import { NB_TABLE, type NbTable, VENDOR, VENDOR_KEY } from './tables.ts';
import type { NbView } from './view.ts';
import { appendAll } from '../../../model/append.ts';

interface ParentMutation {
  readonly table: NbTable;
  readonly uuid: string;
  readonly owners: number[];
  readonly columns: Map<string, { insert: string[]; delete: string[] }>;
}

/** A row this batch creates, for checking a replay that tripped its guard. */
export interface CreatedRow {
  readonly table: TableName;
  readonly key: string;
  readonly planIndex: number;
  readonly uuid: string;
}

/** Rows inserted by one apply: table → key → uuid. */
export type InsertedRows = Map<TableName, Map<string, string>>;

const OWNED = Object.freeze({ [VENDOR_KEY]: VENDOR });

export class Batch {
  /** Plan operations added. */
  planOps = 0;
  readonly created: CreatedRow[] = [];
  private readonly body: Operation[] = [];
  private readonly owners: number[] = [];
  /** Plan operation index → its site, built only when an error needs it. */
  private readonly sites = new Map<number, () => ErrorSite>();
  private readonly parents = new Map<string, ParentMutation>();
  private readonly deleted = new Set<string>();
  /**
   * Row uuid → the plan operation that inserts, updates or deletes it (commit-time errors name rows, not operations).
   */
  private readonly rowOwners = new Map<string, number>();

  constructor(
    readonly b: OpBuilder,
    readonly view: NbView,
    /** Rows inserted by this apply so far (this batch and earlier ones): table → key → uuid. */
    private readonly inserts: InsertedRows,
    /** Makes the uuid of a new row. */
    readonly newUuid: () => string,
  ) {}

  /** Records plan operation `index` and how to describe it (for error messages). */
  begin(index: number, site: () => ErrorSite): void {
    this.sites.set(index, site);
    this.planOps++;
  }

  site(index: number): ErrorSite {
    return { ...this.sites.get(index)?.(), planIndex: index };
  }

  /** Appends operations on behalf of plan operation `owner`. */
  push(owner: number, ...ops: Operation[]): void {
    for (const op of ops) {
      this.body.push(op);
      this.owners.push(owner);
    }
  }

  /** Notes that plan operation `owner` changes the row `uuid`. */
  touches(uuid: string, owner: number): void {
    if (!this.rowOwners.has(uuid)) this.rowOwners.set(uuid, owner);
  }

  /** The plan operation behind the first row uuid that `text` (a server error's details) names. */
  ownerNamedIn(text: string | undefined): number | undefined {
    // Inserted rows are not in rowOwners (a Map entry per insert, for an error path): their insert touched them first.
    const inserted = new Map(this.created.map((c) => [c.uuid, c.planIndex]));
    for (const m of (text ?? '').matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)) {
      const owner = inserted.get(m[0]) ?? this.rowOwners.get(m[0]);
      if (owner !== undefined) return owner;
    }
    return undefined;
  }

  /** Notes that this batch inserts model row `key` with `uuid`. */
  inserted(table: TableName, key: string, uuid: string, owner: number): void {
    let t = this.inserts.get(table);
    if (t === undefined) this.inserts.set(table, (t = new Map()));
    t.set(key, uuid);
    this.created.push({ table, key, planIndex: owner, uuid });
  }

  /** The uuid of kovn's row `name` (inserted by this apply, or in NB); throws `missing-row`. */
  ref(table: TableName, name: string, owner: number): string {
    const mine = this.inserts.get(table)?.get(name);
    if (mine !== undefined) return mine;
    const row = this.view.find(table, name);
    if (row === undefined) {
      const site = this.site(owner);
      throw new OvnBackendError(
        'missing-row',
        `${describeSite(site)}: references ${table} ${JSON.stringify(name)}, which kovn does not have in NB`,
        site,
      );
    }
    return row._uuid;
  }

  /** The uuid of kovn's row `name` (inserted by this apply, or in NB), or undefined. */
  refIfAny(table: TableName, name: string): string | undefined {
    return this.inserts.get(table)?.get(name) ?? this.view.find(table, name)?._uuid;
  }

  /** Adds (or removes) `child` to a parent's uuid-set column, coalesced per parent row. */
  parentRef(
    parent: { table: TableName; uuid: string },
    column: string,
    child: string,
    how: 'insert' | 'delete',
    owner: number,
  ): void {
    // Keyed by uuid alone: uuids are unique across tables.
    if (this.deleted.has(parent.uuid)) return;
    let m = this.parents.get(parent.uuid);
    if (m === undefined)
      this.parents.set(
        parent.uuid,
        (m = { table: NB_TABLE[parent.table], uuid: parent.uuid, owners: [], columns: new Map() }),
      );
    if (m.owners[m.owners.length - 1] !== owner) m.owners.push(owner);
    let col = m.columns.get(column);
    if (col === undefined) m.columns.set(column, (col = { insert: [], delete: [] }));
    col[how].push(child);
  }

  /** A root row deleted in this batch: mutations of it would match nothing (its children go with it). */
  deletedRow(uuid: string): void {
    this.deleted.add(uuid);
    this.parents.delete(uuid);
  }

  /** `_uuid == u` and owned by kovn: every update, mutate and delete kovn sends is limited to its own rows. */
  whereOwned(uuid: string): NativeCondition[] {
    return [
      ['_uuid', '==', uuid],
      ['external_ids', 'includes', OWNED],
    ];
  }

  /**
   * The transaction: an optional comment, the body, then the coalesced parent
   * mutations. `owners[i]` is the plan operation behind operation i
   * (undefined for the comment); `counted[i]` whether its result must count
   * exactly one row (updates, mutates and deletes of kovn's rows).
   */
  finish(label: string | undefined): { ops: Operation[]; owners: (number | undefined)[]; counted: boolean[] } {
    const ops: Operation[] = [];
    const owners: (number | undefined)[] = [];
    if (label !== undefined) {
      ops.push(this.b.comment(label));
      owners.push(undefined);
    }
    appendAll(ops, this.body);
    appendAll(owners, this.owners);
    for (const m of this.parents.values()) {
      const mutations: [string, 'insert' | 'delete', string[]][] = [];
      for (const [column, c] of m.columns) {
        if (c.delete.length > 0) mutations.push([column, 'delete', c.delete]);
        if (c.insert.length > 0) mutations.push([column, 'insert', c.insert]);
      }
      ops.push(this.b.mutate(m.table, this.whereOwned(m.uuid), mutations));
      owners.push(m.owners[0]);
    }
    const counted = ops.map((op) => op.op === 'update' || op.op === 'mutate' || op.op === 'delete');
    return { ops, owners, counted };
  }

  /** OVSDB operations so far (parent mutations counted once per parent row). */
  get size(): number {
    return this.body.length + this.parents.size;
  }
}

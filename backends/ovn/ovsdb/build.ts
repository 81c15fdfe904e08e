/**
 * Building operations: pure functions from native rows (as the generated
 * schema types describe them) to wire operations, checked against the
 * schema. Nothing here sends anything: `OvsdbClient.transact` does.
 *
 * In uuid columns a UUID-shaped string refers to an existing row and any
 * other string is the uuid-name of a row inserted earlier in the same
 * transaction (see datum.ts).
 */
import { type ColumnType, type DatabaseSchema, columnType } from './wire/schema.ts';
import { type Value, fromNative, nativeEncoder } from './wire/datum.ts';
import type { Condition, ConditionFunction } from './wire/condition.ts';
import type { Mutation, Mutator } from './wire/mutation.ts';
import type {
  AbortOp,
  AssertOp,
  CommentOp,
  CommitOp,
  DeleteOp,
  InsertOp,
  MutateOp,
  Row,
  SelectOp,
  UpdateOp,
  WaitOp,
} from './wire/operation.ts';
import { OvsdbValueError } from './wire/errors.ts';

/** A row of an untyped table. */
export type GenericRow = { readonly _uuid: string } & { readonly [column: string]: unknown };

/** Table name → row type for untyped use; the generated `*.gen.ts` files export a typed `Tables` per database. */
export type GenericTables = Record<string, GenericRow>;

/** The columns a row may set on insert/update (everything but `_uuid`/`_version`), all optional. */
export type RowInput<R> = { -readonly [K in Exclude<keyof R, '_uuid' | '_version'>]?: R[K] };

export type ColumnOf<R> = Extract<keyof R, string>;

/** `[column, function, value]` with a native value, or a constant. */
export type NativeCondition<R = Record<string, unknown>> =
  | boolean
  | readonly [column: ColumnOf<R> | '_uuid', fn: ConditionFunction, value: unknown];

/** `[column, mutator, value]` with a native value. */
export type NativeMutation<R = Record<string, unknown>> = readonly [
  column: ColumnOf<R>,
  mutator: Mutator,
  value: unknown,
];

export interface WaitOptions<R> {
  readonly until: '==' | '!=';
  readonly rows: readonly RowInput<R>[];
  readonly columns?: readonly (ColumnOf<R> | '_uuid')[];
  readonly timeout?: number;
}

/**
 * What makes a guarded insert unique: columns of the row (`name`) or keys of
 * its map columns (`external_ids:kovn-key`), compared with the row's own values.
 */
export type UniqueSpec = readonly string[];

/**
 * Operation builder for one database schema.
 *
 * @example
 * const b = new OpBuilder<OvnNorthboundTables>(schema);
 * const ops = [
 *   b.insert('Logical_Switch_Port', { name: 'p1', addresses: ['00:00:00:00:00:01'] }, { uuidName: 'p1' }),
 *   b.mutate('Logical_Switch', [b.whereUuid(lsUuid)], [['ports', 'insert', ['p1']]]),
 * ];
 * await client.transact(schema.name, ops);
 */
export class OpBuilder<Tables extends object = GenericTables> {
  /** table → column → its compiled encoder (datum.ts `nativeEncoder`). */
  private readonly encoders = new Map<string, Map<string, (native: unknown) => Value | undefined>>();

  constructor(readonly schema: DatabaseSchema) {}

  /** Converts a native row to a wire row for `table`. */
  row<T extends ColumnOf<Tables>>(table: T, row: RowInput<Tables[T]>): Row {
    const out: Record<string, Value> = {};
    const r = row as Record<string, unknown>;
    let encoders = this.encoders.get(table);
    if (encoders === undefined) this.encoders.set(table, (encoders = new Map()));
    for (const c in r) {
      let encode = encoders.get(c);
      if (encode === undefined) encoders.set(c, (encode = nativeEncoder(this.type(table, c), `${table}.${c}`)));
      const v = encode(r[c]);
      if (v !== undefined) out[c] = v; // undefined: a required column left out, the server uses the default
    }
    return out;
  }

  insert<T extends ColumnOf<Tables>>(
    table: T,
    row: RowInput<Tables[T]>,
    opts: { uuidName?: string; uuid?: string } = {},
  ): InsertOp {
    // Built member by member rather than spread: this runs for every row kovn writes.
    const op: { -readonly [K in keyof InsertOp]: InsertOp[K] } = { op: 'insert', table, row: this.row(table, row) };
    if (opts.uuidName !== undefined) op.uuidName = opts.uuidName;
    if (opts.uuid !== undefined) op.uuid = opts.uuid;
    return op;
  }

  select<T extends ColumnOf<Tables>>(
    table: T,
    where: readonly NativeCondition<Tables[T]>[] = [],
    columns?: readonly (ColumnOf<Tables[T]> | '_uuid' | '_version')[],
  ): SelectOp {
    return { op: 'select', table, where: this.where(table, where), ...(columns === undefined ? {} : { columns }) };
  }

  update<T extends ColumnOf<Tables>>(
    table: T,
    where: readonly NativeCondition<Tables[T]>[],
    row: RowInput<Tables[T]>,
  ): UpdateOp {
    return { op: 'update', table, where: this.where(table, where), row: this.row(table, row) };
  }

  mutate<T extends ColumnOf<Tables>>(
    table: T,
    where: readonly NativeCondition<Tables[T]>[],
    mutations: readonly NativeMutation<Tables[T]>[],
  ): MutateOp {
    return {
      op: 'mutate',
      table,
      where: this.where(table, where),
      mutations: mutations.map((m) => this.mutation(table, m)),
    };
  }

  delete<T extends ColumnOf<Tables>>(table: T, where: readonly NativeCondition<Tables[T]>[]): DeleteOp {
    return { op: 'delete', table, where: this.where(table, where) };
  }

  wait<T extends ColumnOf<Tables>>(
    table: T,
    where: readonly NativeCondition<Tables[T]>[],
    opts: WaitOptions<Tables[T]>,
  ): WaitOp {
    return {
      op: 'wait',
      table,
      where: this.where(table, where),
      ...(opts.columns === undefined ? {} : { columns: opts.columns }),
      until: opts.until,
      rows: opts.rows.map((r) => this.row(table, r)),
      ...(opts.timeout === undefined ? {} : { timeout: opts.timeout }),
    };
  }

  commit(durable = false): CommitOp {
    return { op: 'commit', durable };
  }

  abort(): AbortOp {
    return { op: 'abort' };
  }

  comment(comment: string): CommentOp {
    return { op: 'comment', comment };
  }

  assert(lock: string): AssertOp {
    return { op: 'assert', lock };
  }

  /** `["_uuid", "==", ["uuid", uuid]]`. */
  whereUuid(uuid: string): readonly ['_uuid', '==', string] {
    return ['_uuid', '==', uuid];
  }

  /**
   * An insert that cannot create a duplicate when replayed: a `wait` (timeout
   * 0) that fails with "timed out" if a row with the same unique values
   * already exists, then the insert. Raft commits are at-least-once, so a
   * transaction whose reply was lost may be applied twice; with the guard the
   * second run fails instead of inserting again.
   *
   * @example
   * b.guardedInsert('ACL', { priority: 2000, ..., external_ids: { 'kovn-key': 'np/x/0' } }, { unique:
   * ['external_ids:kovn-key'] })
   * // [wait ACL where external_ids includes {kovn-key: np/x/0} until == [] timeout 0, insert ACL]
   */
  guardedInsert<T extends ColumnOf<Tables>>(
    table: T,
    row: RowInput<Tables[T]>,
    opts: { unique: UniqueSpec; uuidName?: string },
  ): [WaitOp, InsertOp] {
    const guard = this.uniqueWhere(table, row as Record<string, unknown>, opts.unique);
    const wait: WaitOp = { op: 'wait', table, where: guard, columns: ['_uuid'], until: '==', rows: [], timeout: 0 };
    return [wait, this.insert(table, row, opts.uuidName === undefined ? {} : { uuidName: opts.uuidName })];
  }

  /** Conditions matching rows whose unique values equal `row`'s. */
  uniqueWhere(table: string, row: Record<string, unknown>, unique: UniqueSpec): Condition[] {
    if (unique.length === 0) throw new OvsdbValueError(table, 'a guarded insert needs at least one unique column');
    return unique.map((spec) => {
      const colon = spec.indexOf(':');
      const column = colon < 0 ? spec : spec.slice(0, colon);
      const value = row[column];
      if (colon < 0) {
        if (value === undefined)
          throw new OvsdbValueError(`${table}.${column}`, 'the row has no value for a unique column');
        return this.condition(table, [column, '==', value]);
      }
      const key = spec.slice(colon + 1);
      const v = (value as Record<string, unknown> | undefined)?.[key];
      if (v === undefined) throw new OvsdbValueError(`${table}.${spec}`, 'the row has no value for a unique map key');
      return this.condition(table, [column, 'includes', Object.fromEntries([[key, v]])]);
    });
  }

  where(table: string, conds: readonly NativeCondition[]): Condition[] {
    return conds.map((c) => this.condition(table, c));
  }

  condition(table: string, cond: NativeCondition): Condition {
    if (typeof cond === 'boolean') return cond;
    const [column, fn, native] = cond;
    const type = this.type(table, column);
    const path = `${table}.${column}`;
    const ordered = fn === '<' || fn === '<=' || fn === '>' || fn === '>=';
    const value = ordered
      ? fromNative(scalarOf(type), native, path)
      : fromNative(type, native, path, { relaxSize: fn === 'includes' || fn === 'excludes' });
    return { column, function: fn, value };
  }

  mutation(table: string, m: NativeMutation): Mutation {
    const [column, mutator, native] = m;
    const type = this.type(table, column);
    const path = `${table}.${column}`;
    let value: Value;
    if (mutator !== 'insert' && mutator !== 'delete') value = fromNative(scalarOf(type), native, path);
    else if (type.value !== undefined && mutator === 'delete' && Array.isArray(native)) {
      // delete map keys, whatever their values
      value = fromNative({ key: type.key, min: 0, max: Infinity }, native, path);
    } else if (type.value !== undefined) value = fromNative(type, native, path, { relaxSize: true });
    else value = fromNative({ key: type.key, min: 0, max: Infinity }, Array.isArray(native) ? native : [native], path);
    return { column, mutator, value };
  }

  private type(table: string, column: string): ColumnType {
    return columnType(this.schema, table, column);
  }
}

function scalarOf(type: ColumnType): ColumnType {
  return { key: type.key, min: 1, max: 1 };
}

/**
 * fast-check arbitraries for the wire types, shared by the round-trip
 * property tests of this folder and the client's tests. Test-only code.
 */
import fc from 'fast-check';
import { type Atom, type AtomType, OvsNamedUuid, OvsUuid } from '../wire/atom.ts';
import { OvsMap, OvsSet, type Value } from '../wire/datum.ts';
import type { BaseType, ColumnType, DatabaseSchema, TableSchema } from '../wire/schema.ts';
import { CONDITION_FUNCTIONS, type Condition } from '../wire/condition.ts';
import { MUTATORS, type Mutation } from '../wire/mutation.ts';
import type { Operation, Row } from '../wire/operation.ts';
import type { ReplyEntry } from '../wire/result.ts';
import type { RowUpdate2, TableUpdates2 } from '../wire/update.ts';
import type { MonitorCondRequest, MonitorCondRequests } from '../wire/monitor.ts';

export const idArb = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,11}$/);
export const uuidArb = fc.uuid().map((u) => u.toLowerCase());
/** Finite doubles except -0 (JSON has no negative zero). */
export const realArb = fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? 0 : d));
export const intArb = fc.maxSafeInteger();

export const atomArb: fc.Arbitrary<Atom> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  intArb,
  realArb,
  fc.boolean(),
  uuidArb.map((u) => new OvsUuid(u)),
  idArb.map((n) => new OvsNamedUuid(n)),
);

export const valueArb: fc.Arbitrary<Value> = fc.oneof(
  atomArb,
  fc.array(atomArb, { maxLength: 5 }).map((a) => new OvsSet(a)),
  fc.array(fc.tuple(atomArb, atomArb), { maxLength: 5 }).map((p) => new OvsMap(p)),
);

export const rowArb: fc.Arbitrary<Row> = fc.dictionary(idArb, valueArb, { maxKeys: 4 });
export const whereArb: fc.Arbitrary<Condition[]> = fc.array(
  fc.oneof(
    fc.boolean(),
    fc.record({ column: idArb, function: fc.constantFrom(...CONDITION_FUNCTIONS), value: valueArb }),
  ),
  { maxLength: 3 },
);
export const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  column: idArb,
  mutator: fc.constantFrom(...MUTATORS),
  value: valueArb,
});
const columnsArb = fc.option(fc.array(idArb, { maxLength: 3 }), { nil: undefined });

function withOptional<T extends object>(base: T, extra: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) out[k] = v;
  return out as T;
}

export const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  fc
    .record({
      table: idArb,
      row: rowArb,
      uuidName: fc.option(idArb, { nil: undefined }),
      uuid: fc.option(uuidArb, { nil: undefined }),
    })
    .map(({ table, row, uuidName, uuid }) => withOptional({ op: 'insert' as const, table, row }, { uuidName, uuid })),
  fc
    .record({ table: idArb, where: whereArb, columns: columnsArb })
    .map(({ table, where, columns }) => withOptional({ op: 'select' as const, table, where }, { columns })),
  fc.record({ table: idArb, where: whereArb, row: rowArb }).map((r) => ({ op: 'update' as const, ...r })),
  fc
    .record({ table: idArb, where: whereArb, mutations: fc.array(mutationArb, { maxLength: 3 }) })
    .map((r) => ({ op: 'mutate' as const, ...r })),
  fc.record({ table: idArb, where: whereArb }).map((r) => ({ op: 'delete' as const, ...r })),
  fc
    .record({
      table: idArb,
      where: whereArb,
      columns: columnsArb,
      until: fc.constantFrom('==' as const, '!=' as const),
      rows: fc.array(rowArb, { maxLength: 2 }),
      timeout: fc.option(fc.nat(), { nil: undefined }),
    })
    .map(({ table, where, columns, until, rows, timeout }) =>
      withOptional({ op: 'wait' as const, table, where, until, rows }, { columns, timeout }),
    ),
  fc.boolean().map((durable) => ({ op: 'commit' as const, durable })),
  fc.constant({ op: 'abort' as const }),
  fc.string({ maxLength: 20 }).map((comment) => ({ op: 'comment' as const, comment })),
  idArb.map((lock) => ({ op: 'assert' as const, lock })),
);

export const replyEntryArb: fc.Arbitrary<ReplyEntry> = fc.oneof(
  fc.constant(null),
  fc.constant({}),
  uuidArb.map((uuid) => ({ uuid })),
  fc.array(rowArb, { maxLength: 3 }).map((rows) => ({ rows })),
  fc.nat().map((count) => ({ count })),
  fc
    .record({
      error: fc.string({ minLength: 1, maxLength: 20 }),
      details: fc.option(fc.string(), { nil: undefined }),
      syntax: fc.option(fc.string(), { nil: undefined }),
    })
    .map(({ error, details, syntax }) => withOptional({ error }, { details, syntax })),
);

const rowUpdateArb: fc.Arbitrary<RowUpdate2> = fc.oneof(
  fc.record({ kind: fc.constantFrom('initial' as const, 'insert' as const, 'modify' as const), row: rowArb }),
  fc.constant({ kind: 'delete' as const }),
);
export const tableUpdatesArb: fc.Arbitrary<TableUpdates2> = fc.dictionary(
  idArb,
  fc.dictionary(uuidArb, rowUpdateArb, { maxKeys: 3 }),
  { maxKeys: 3 },
);

const monitorRequestArb: fc.Arbitrary<MonitorCondRequest> = fc
  .record({
    columns: columnsArb,
    where: fc.option(whereArb, { nil: undefined }),
    select: fc.option(
      fc.record(
        { initial: fc.boolean(), insert: fc.boolean(), delete: fc.boolean(), modify: fc.boolean() },
        { requiredKeys: [] },
      ),
      { nil: undefined },
    ),
  })
  .map(({ columns, where, select }) => withOptional({}, { columns, where, select }));
export const monitorRequestsArb: fc.Arbitrary<MonitorCondRequests> = fc.dictionary(
  idArb,
  fc.array(monitorRequestArb, { minLength: 1, maxLength: 2 }),
  { maxKeys: 3 },
);

// ---- schema-typed values --------------------------------------------------

const atomTypeArb = fc.constantFrom<AtomType>('integer', 'real', 'boolean', 'string', 'uuid');
export const baseTypeArb: fc.Arbitrary<BaseType> = atomTypeArb.chain((type): fc.Arbitrary<BaseType> => {
  switch (type) {
    case 'integer':
      return fc.record({ type: fc.constant(type), minInteger: fc.integer({ max: 0 }) }, { requiredKeys: ['type'] });
    case 'string':
      return fc.oneof(
        fc.constant({ type }),
        fc
          .uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 3 })
          .map((e) => ({ type, enum: e })),
      );
    case 'uuid':
      return fc.oneof(
        fc.constant({ type }),
        idArb.chain((refTable) =>
          fc.constantFrom('strong' as const, 'weak' as const).map((refType) => ({ type, refTable, refType })),
        ),
      );
    default:
      return fc.constant({ type });
  }
});

export const columnTypeArb: fc.Arbitrary<ColumnType> = fc
  .record({
    key: baseTypeArb,
    value: fc.option(baseTypeArb, { nil: undefined }),
    min: fc.constantFrom(0, 1),
    max: fc.constantFrom(1, 2, 5, Infinity),
  })
  .map(({ key, value, min, max }) => (value === undefined ? { key, min, max } : { key, value, min, max }));

const tableArb: fc.Arbitrary<TableSchema> = fc
  .record({
    columns: fc.dictionary(idArb, fc.record({ type: columnTypeArb, ephemeral: fc.boolean(), mutable: fc.boolean() }), {
      minKeys: 1,
      maxKeys: 4,
    }),
    maxRows: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
    isRoot: fc.boolean(),
  })
  .chain(({ columns, maxRows, isRoot }) =>
    fc
      .array(fc.subarray(Object.keys(columns), { minLength: 1 }), { maxLength: 2 })
      .map((indexes) => withOptional({ columns, isRoot, indexes }, { maxRows })),
  );

export const schemaArb: fc.Arbitrary<DatabaseSchema> = fc
  .record({
    name: idArb,
    version: fc.constantFrom('1.0.0', '7.0.0'),
    cksum: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
    tables: fc.dictionary(idArb, tableArb, { minKeys: 1, maxKeys: 3 }),
  })
  .map(({ name, version, cksum, tables }) => withOptional({ name, version, tables }, { cksum }));

/** A native atom of a base type (uuids as UUID-shaped strings). */
export function nativeAtomArb(base: BaseType): fc.Arbitrary<string | number | boolean> {
  if (base.enum !== undefined && base.enum.length > 0)
    return fc.constantFrom(...(base.enum as (string | number | boolean)[]));
  switch (base.type) {
    case 'integer':
      return fc.integer({ min: base.minInteger ?? -1e6, max: 1e6 });
    case 'real':
      return realArb;
    case 'boolean':
      return fc.boolean();
    case 'string':
      return fc.string({ unit: 'grapheme', maxLength: 8 });
    case 'uuid':
      return uuidArb;
  }
}

/** A native value fitting a column type (respecting min/max, unique set elements and map keys). */
export function nativeValueArb(type: ColumnType): fc.Arbitrary<unknown> {
  const max = type.max === Infinity ? 6 : type.max;
  if (type.value !== undefined) {
    const valueArb = nativeAtomArb(type.value);
    return fc
      .uniqueArray(nativeAtomArb(type.key), { minLength: type.min, maxLength: max, selector: (k) => String(k) })
      .chain((keys) =>
        fc
          .tuple(...keys.map(() => valueArb))
          .map((vals) => Object.fromEntries(keys.map((k, i) => [String(k), vals[i]]))),
      );
  }
  if (type.max === 1)
    return type.min === 1 ? nativeAtomArb(type.key) : fc.option(nativeAtomArb(type.key), { nil: undefined });
  return fc.uniqueArray(nativeAtomArb(type.key), { minLength: type.min, maxLength: max, selector: (k) => String(k) });
}

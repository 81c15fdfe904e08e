/**
 * Transaction operations (RFC 7047 §5.2): insert (with `uuid-name`, and the
 * OVS 2.13 `uuid` extension), select, update, mutate, delete, wait, commit,
 * abort, comment, assert. Wire values only; build.ts makes them from native rows.
 */
import { ID_RE, isUuid } from './atom.ts';
import { expectArray as arr, expectObject as obj, expectString as str, preview, dict } from './json.ts';
import { OvsdbProtocolError } from './errors.ts';
import { type Condition, emitWhere, parseWhere } from './condition.ts';
import { type Mutation, emitMutation, parseMutation } from './mutation.ts';
import { type Value, emitValue, parseValue } from './datum.ts';

/** `<row>`: column name → value. */
export type Row = Readonly<Record<string, Value>>;

export interface InsertOp {
  readonly op: 'insert';
  readonly table: string;
  readonly row: Row;
  /** Lets later operations refer to the new row as `["named-uuid", uuidName]`. */
  readonly uuidName?: string;
  /** OVS ≥ 2.13: the UUID the new row must get. */
  readonly uuid?: string;
}
export interface SelectOp {
  readonly op: 'select';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly columns?: readonly string[];
}
export interface UpdateOp {
  readonly op: 'update';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly row: Row;
}
export interface MutateOp {
  readonly op: 'mutate';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly mutations: readonly Mutation[];
}
export interface DeleteOp {
  readonly op: 'delete';
  readonly table: string;
  readonly where: readonly Condition[];
}
export interface WaitOp {
  readonly op: 'wait';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly columns?: readonly string[];
  /** `==`: wait until the selected rows equal `rows`; `!=`: until they differ. */
  readonly until: '==' | '!=';
  readonly rows: readonly Row[];
  /** Milliseconds; 0 fails at once ("timed out") when the test does not hold. */
  readonly timeout?: number;
}
export interface CommitOp {
  readonly op: 'commit';
  readonly durable: boolean;
}
export interface AbortOp {
  readonly op: 'abort';
}
export interface CommentOp {
  readonly op: 'comment';
  readonly comment: string;
}
export interface AssertOp {
  readonly op: 'assert';
  readonly lock: string;
}

export type Operation =
  | InsertOp
  | SelectOp
  | UpdateOp
  | MutateOp
  | DeleteOp
  | WaitOp
  | CommitOp
  | AbortOp
  | CommentOp
  | AssertOp;

export type OperationName = Operation['op'];

export function parseRow(json: unknown, path = 'row'): Row {
  const o = obj(json, path);
  const row = dict<Value>();
  for (const [c, v] of Object.entries(o)) row[c] = parseValue(v, `${path}.${c}`);
  return row;
}

export function emitRow(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Keys and an index loop, not entries(): one array per row instead of one per column (every row kovn writes).
  const columns = Object.keys(row);
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i] as string;
    out[c] = emitValue(row[c] as Value);
  }
  return out;
}

/**
 * Parses one `<operation>` object.
 *
 * @example parseOperation({op: 'delete', table: 'ACL', where: [['_uuid', '==', ['uuid', u]]]})
 */
export function parseOperation(json: unknown, path = 'operation'): Operation {
  const o = obj(json, path);
  const table = (): string => str(o.table, `${path}.table`);
  const where = (): Condition[] => parseWhere(o.where, `${path}.where`);
  switch (o.op) {
    case 'insert': {
      const uuidName = o['uuid-name'] === undefined ? undefined : str(o['uuid-name'], `${path}.uuid-name`);
      if (uuidName !== undefined && !ID_RE.test(uuidName))
        throw new OvsdbProtocolError(`${path}.uuid-name: not an <id>: ${uuidName}`);
      const uuid = o.uuid === undefined ? undefined : str(o.uuid, `${path}.uuid`);
      if (uuid !== undefined && !isUuid(uuid)) throw new OvsdbProtocolError(`${path}.uuid: not a uuid: ${uuid}`);
      return {
        op: 'insert',
        table: table(),
        row: parseRow(o.row ?? {}, `${path}.row`),
        ...(uuidName === undefined ? {} : { uuidName }),
        ...(uuid === undefined ? {} : { uuid }),
      };
    }
    case 'select':
      return { op: 'select', table: table(), where: where(), ...optColumns(o.columns, path) };
    case 'update':
      return { op: 'update', table: table(), where: where(), row: parseRow(o.row, `${path}.row`) };
    case 'mutate':
      return {
        op: 'mutate',
        table: table(),
        where: where(),
        mutations: arr(o.mutations, `${path}.mutations`).map((m, i) => parseMutation(m, `${path}.mutations[${i}]`)),
      };
    case 'delete':
      return { op: 'delete', table: table(), where: where() };
    case 'wait':
      return parseWait(o, path);
    case 'commit':
      if (typeof o.durable !== 'boolean') throw new OvsdbProtocolError(`${path}.durable: expected a boolean`);
      return { op: 'commit', durable: o.durable };
    case 'abort':
      return { op: 'abort' };
    case 'comment':
      return { op: 'comment', comment: str(o.comment, `${path}.comment`) };
    case 'assert':
      return { op: 'assert', lock: str(o.lock, `${path}.lock`) };
    default:
      throw new OvsdbProtocolError(`${path}.op: unknown operation ${preview(o.op)}`);
  }
}

function parseWait(o: Record<string, unknown>, path: string): WaitOp {
  if (o.until !== '==' && o.until !== '!=')
    throw new OvsdbProtocolError(`${path}.until: expected "==" or "!=", got ${preview(o.until)}`);
  const timeout = o.timeout === undefined ? undefined : o.timeout;
  if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 0)) {
    throw new OvsdbProtocolError(`${path}.timeout: expected a non-negative integer`);
  }
  return {
    op: 'wait',
    table: str(o.table, `${path}.table`),
    where: parseWhere(o.where, `${path}.where`),
    ...optColumns(o.columns, path),
    until: o.until,
    rows: arr(o.rows, `${path}.rows`).map((r, i) => parseRow(r, `${path}.rows[${i}]`)),
    ...(timeout === undefined ? {} : { timeout }),
  };
}

/** Emits an operation as the JSON object ovsdb-server expects. Inverse of {@link parseOperation}. */
export function emitOperation(op: Operation): Record<string, unknown> {
  switch (op.op) {
    case 'insert':
      return {
        op: 'insert',
        table: op.table,
        row: emitRow(op.row),
        ...(op.uuidName === undefined ? {} : { 'uuid-name': op.uuidName }),
        ...(op.uuid === undefined ? {} : { uuid: op.uuid }),
      };
    case 'select':
      return {
        op: 'select',
        table: op.table,
        where: emitWhere(op.where),
        ...(op.columns === undefined ? {} : { columns: [...op.columns] }),
      };
    case 'update':
      return { op: 'update', table: op.table, where: emitWhere(op.where), row: emitRow(op.row) };
    case 'mutate':
      return { op: 'mutate', table: op.table, where: emitWhere(op.where), mutations: op.mutations.map(emitMutation) };
    case 'delete':
      return { op: 'delete', table: op.table, where: emitWhere(op.where) };
    case 'wait':
      return {
        op: 'wait',
        table: op.table,
        where: emitWhere(op.where),
        ...(op.columns === undefined ? {} : { columns: [...op.columns] }),
        until: op.until,
        rows: op.rows.map(emitRow),
        ...(op.timeout === undefined ? {} : { timeout: op.timeout }),
      };
    case 'commit':
      return { op: 'commit', durable: op.durable };
    case 'abort':
      return { op: 'abort' };
    case 'comment':
      return { op: 'comment', comment: op.comment };
    case 'assert':
      return { op: 'assert', lock: op.lock };
  }
}

/** The table an operation touches, if any (for error reports). */
export function operationTable(op: Operation): string | undefined {
  return 'table' in op ? op.table : undefined;
}

function optColumns(json: unknown, path: string): { columns?: string[] } {
  if (json === undefined) return {};
  return { columns: arr(json, `${path}.columns`).map((c, i) => str(c, `${path}.columns[${i}]`)) };
}

/**
 * Transact replies (RFC 7047 §4.1.3, §5.2): one result object per operation
 * (`{uuid}` for insert, `{rows}` for select, `{count}` for update/mutate/delete,
 * `{}` for the rest, as ovsdb-server(7) §5.2.6 says), an `<error>` at the
 * failing operation, and possibly one extra `<error>` after the last operation
 * when the commit itself failed (constraint or referential integrity checks).
 */
import { OvsUuid, emitAtom, isUuid, parseAtom } from './atom.ts';
import { OvsdbProtocolError, type OvsdbServerError, type WireError, serverError } from './errors.ts';
import { expectArray, expectObject, expectString, preview } from './json.ts';
import {
  type DeleteOp,
  type InsertOp,
  type MutateOp,
  type Operation,
  type Row,
  type SelectOp,
  type UpdateOp,
  emitRow,
  operationTable,
  parseRow,
} from './operation.ts';

export interface InsertResult {
  readonly uuid: string;
}
export interface SelectResult {
  readonly rows: readonly Row[];
}
export interface CountResult {
  readonly count: number;
}
export type EmptyResult = Readonly<Record<string, never>>;

/** Any successful operation's result, as parsed without knowing the operation. */
export interface OperationResult {
  readonly uuid?: string;
  readonly rows?: readonly Row[];
  readonly count?: number;
}

/** One element of a transact reply: a result, an error, or null (not executed). */
export type ReplyEntry = OperationResult | WireError | null;

/** The result type of an operation type. */
export type ResultOf<O extends Operation> = O extends InsertOp
  ? InsertResult
  : O extends SelectOp
    ? SelectResult
    : O extends UpdateOp | MutateOp | DeleteOp
      ? CountResult
      : EmptyResult;

/** Results of a tuple of operations, element by element. */
export type ResultsOf<Ops extends readonly Operation[]> = {
  -readonly [K in keyof Ops]: Ops[K] extends Operation ? ResultOf<Ops[K]> : never;
};

export function isWireError(entry: ReplyEntry): entry is WireError {
  return entry !== null && typeof (entry as WireError).error === 'string';
}

/**
 * Parses the `result` array of a transact reply.
 *
 * @example parseTransactReply([{uuid: ['uuid', u]}, {error: 'aborted', details: 'aborted by request'}])
 */
export function parseTransactReply(json: unknown, path = 'result'): ReplyEntry[] {
  return expectArray(json, path).map((e, i) => parseReplyEntry(e, `${path}[${i}]`));
}

function parseReplyEntry(json: unknown, path: string): ReplyEntry {
  if (json === null) return null;
  const o = expectObject(json, path);
  if (o.error !== undefined && o.error !== null) {
    return {
      error: expectString(o.error, `${path}.error`),
      ...(typeof o.details === 'string' ? { details: o.details } : {}),
      ...(typeof o.syntax === 'string' ? { syntax: o.syntax } : {}),
    };
  }
  const out: { uuid?: string; rows?: Row[]; count?: number } = {};
  if (o.uuid !== undefined) {
    const a = parseAtom(o.uuid, `${path}.uuid`);
    if (!(a instanceof OvsUuid))
      throw new OvsdbProtocolError(`${path}.uuid: expected ["uuid", ...], got ${preview(o.uuid)}`);
    out.uuid = a.uuid;
  }
  if (o.rows !== undefined)
    out.rows = expectArray(o.rows, `${path}.rows`).map((r, i) => parseRow(r, `${path}.rows[${i}]`));
  if (o.count !== undefined) {
    if (typeof o.count !== 'number' || !Number.isInteger(o.count) || o.count < 0)
      throw new OvsdbProtocolError(`${path}.count: expected a count, got ${preview(o.count)}`);
    out.count = o.count;
  }
  return out;
}

/** Inverse of {@link parseTransactReply}. */
export function emitTransactReply(entries: readonly ReplyEntry[]): unknown[] {
  return entries.map((e) => {
    if (e === null) return null;
    if (isWireError(e)) return { ...e };
    return {
      ...(e.uuid === undefined ? {} : { uuid: emitAtom(new OvsUuid(e.uuid)) }),
      ...(e.rows === undefined ? {} : { rows: e.rows.map(emitRow) }),
      ...(e.count === undefined ? {} : { count: e.count }),
    };
  });
}

/**
 * The typed error of the first failed operation (or of the commit), naming
 * the operation index and table; undefined when every operation succeeded.
 */
export function firstError(
  ops: readonly Operation[],
  entries: readonly ReplyEntry[],
  replayed = false,
): OvsdbServerError | undefined {
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] ?? null;
    if (!isWireError(e)) continue;
    const op = ops[i];
    if (op === undefined) return serverError(e, { replayed });
    const table = operationTable(op);
    return serverError(e, { opIndex: i, ...(table === undefined ? {} : { table }), replayed });
  }
  return undefined;
}

/**
 * Checks a successful reply against the operations that produced it and
 * returns the results typed per operation. Throws the first server error, or
 * {@link OvsdbProtocolError} when a result is missing or of the wrong shape.
 *
 * @example
 * const [ins] = interpretTransactReply([insertOp], reply) // ins.uuid
 */
export function interpretTransactReply<const Ops extends readonly Operation[]>(
  ops: Ops,
  entries: readonly ReplyEntry[],
  replayed = false,
): ResultsOf<Ops> {
  const err = firstError(ops, entries, replayed);
  if (err !== undefined) throw err;
  if (entries.length < ops.length)
    throw new OvsdbProtocolError(`transact reply has ${entries.length} results for ${ops.length} operations`);
  const out = new Array<OperationResult>(ops.length);
  for (let i = 0; i < ops.length; i++)
    out[i] = checkShape(ops[i] as Operation, entries[i] as OperationResult | null, i);
  return out as ResultsOf<Ops>;
}

function checkShape(op: Operation, r: OperationResult | null, i: number): OperationResult {
  if (r === null) return badShape(op, i, 'missing');
  switch (op.op) {
    case 'insert':
      return r.uuid !== undefined && isUuid(r.uuid) ? { uuid: r.uuid } : badShape(op, i, 'no uuid');
    case 'select':
      return r.rows !== undefined ? { rows: r.rows } : badShape(op, i, 'no rows');
    case 'update':
    case 'mutate':
    case 'delete':
      return r.count !== undefined ? { count: r.count } : badShape(op, i, 'no count');
    default:
      return {};
  }
}

// A function of its own, not a closure in checkShape: that runs for every operation of every reply.
function badShape(op: Operation, i: number, what: string): never {
  throw new OvsdbProtocolError(`result[${i}] of ${op.op}: ${what}`);
}

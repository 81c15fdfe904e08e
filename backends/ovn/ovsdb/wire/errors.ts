/**
 * OVSDB errors: one class per error string the server sends (RFC 7047 §4.1.3
 * and §5.2, plus the strings ovsdb-server(7) §3.1 adds), and the client-side
 * failures (malformed replies, closed sockets, probes, bad values).
 *
 * A server error found in a transact reply carries the index of the operation
 * that failed and that operation's table; commit-time errors (the extra element
 * after the last operation's result) carry no index, only the table when the
 * server's `details` names one.
 */

/** Where a server error happened inside a transaction. */
export interface ErrorSite {
  /** Index of the failed operation in the request; undefined for commit-time errors. */
  readonly opIndex?: number;
  /** The failed operation's table, or the table named in `details` for commit-time errors. */
  readonly table?: string;
  /** True when the error came from a retried (replayed) transaction. */
  readonly replayed?: boolean;
}

/** The `<error>` object of RFC 7047: `{"error": ..., "details": ..., "syntax": ...}`. */
export interface WireError {
  readonly error: string;
  readonly details?: string;
  readonly syntax?: string;
}

/**
 * Base class of every error the server reports. `error` is the server's string
 * verbatim; `code` is the same in kebab-case (`constraint violation` →
 * `constraint-violation`).
 *
 * @example
 * try { await client.transact('OVN_Northbound', ops) }
 * catch (e) { if (e instanceof OvsdbConstraintViolationError) console.log(e.table, e.opIndex) }
 */
export class OvsdbServerError extends Error {
  override readonly name: string = 'OvsdbServerError';
  readonly code: string;
  readonly error: string;
  readonly details: string | undefined;
  readonly syntax: string | undefined;
  readonly opIndex: number | undefined;
  readonly table: string | undefined;
  readonly replayed: boolean;

  constructor(wire: WireError, site: ErrorSite = {}) {
    super(describeServerError(wire, site));
    this.error = wire.error;
    this.code = wire.error
      .trim()
      .replace(/[\s_/]+/g, '-')
      .toLowerCase();
    this.details = wire.details;
    this.syntax = wire.syntax;
    this.opIndex = site.opIndex;
    this.table = site.table;
    this.replayed = site.replayed ?? false;
  }
}

function describeServerError(wire: WireError, site: ErrorSite): string {
  const where: string[] = [];
  if (site.opIndex !== undefined) where.push(`operation ${site.opIndex}`);
  if (site.table !== undefined) where.push(`table ${site.table}`);
  const prefix = where.length > 0 ? `${where.join(', ')}: ` : '';
  const details = wire.details !== undefined ? `: ${wire.details}` : '';
  return `ovsdb: ${prefix}${wire.error}${details}`;
}

/** Declares one subclass per server error string, so `instanceof` works and each has its own name. */
function serverErrorClass<N extends string>(name: N) {
  return class extends OvsdbServerError {
    override readonly name: string = name;
  };
}

// RFC 7047 §4.1.3 / §5.2 error strings.
export class OvsdbConstraintViolationError extends serverErrorClass('OvsdbConstraintViolationError') {}
export class OvsdbReferentialIntegrityError extends serverErrorClass('OvsdbReferentialIntegrityError') {}
export class OvsdbResourcesExhaustedError extends serverErrorClass('OvsdbResourcesExhaustedError') {}
export class OvsdbIoError extends serverErrorClass('OvsdbIoError') {}
export class OvsdbDuplicateUuidNameError extends serverErrorClass('OvsdbDuplicateUuidNameError') {}
export class OvsdbDomainError extends serverErrorClass('OvsdbDomainError') {}
export class OvsdbRangeError extends serverErrorClass('OvsdbRangeError') {}
export class OvsdbTimedOutError extends serverErrorClass('OvsdbTimedOutError') {}
export class OvsdbNotSupportedError extends serverErrorClass('OvsdbNotSupportedError') {}
export class OvsdbAbortedError extends serverErrorClass('OvsdbAbortedError') {}
export class OvsdbNotOwnerError extends serverErrorClass('OvsdbNotOwnerError') {}
export class OvsdbUnknownDatabaseError extends serverErrorClass('OvsdbUnknownDatabaseError') {}
// ovsdb-server extensions (ovsdb-server(7) §3.1, §5.2.1, and the source).
export class OvsdbSyntaxError extends serverErrorClass('OvsdbSyntaxError') {}
/** A `syntax error` whose details say the table does not exist. */
export class OvsdbUnknownTableError extends OvsdbSyntaxError {
  override readonly name: string = 'OvsdbUnknownTableError';
}
export class OvsdbUnknownColumnError extends serverErrorClass('OvsdbUnknownColumnError') {}
export class OvsdbDuplicateUuidError extends serverErrorClass('OvsdbDuplicateUuidError') {}
export class OvsdbInternalError extends serverErrorClass('OvsdbInternalError') {}
/** ovsdb-server's `ovsdb error`: a set or map with a duplicate key. */
export class OvsdbDataError extends serverErrorClass('OvsdbDataError') {}
export class OvsdbPermissionError extends serverErrorClass('OvsdbPermissionError') {}
/** `canceled`: the server gave up on a transaction (it may still commit). */
export class OvsdbCanceledError extends serverErrorClass('OvsdbCanceledError') {}
export class OvsdbNotLeaderError extends serverErrorClass('OvsdbNotLeaderError') {}
export class OvsdbDatabaseNotAvailableError extends serverErrorClass('OvsdbDatabaseNotAvailableError') {}
export class OvsdbUnknownMethodError extends serverErrorClass('OvsdbUnknownMethodError') {}
export class OvsdbUnknownMonitorError extends serverErrorClass('OvsdbUnknownMonitorError') {}

type ServerErrorClass = new (wire: WireError, site?: ErrorSite) => OvsdbServerError;

const BY_STRING: ReadonlyMap<string, ServerErrorClass> = new Map<string, ServerErrorClass>([
  ['constraint violation', OvsdbConstraintViolationError],
  ['referential integrity violation', OvsdbReferentialIntegrityError],
  ['resources exhausted', OvsdbResourcesExhaustedError],
  ['I/O error', OvsdbIoError],
  ['duplicate uuid-name', OvsdbDuplicateUuidNameError],
  ['duplicate uuid name', OvsdbDuplicateUuidNameError],
  ['domain error', OvsdbDomainError],
  ['range error', OvsdbRangeError],
  ['timed out', OvsdbTimedOutError],
  ['not supported', OvsdbNotSupportedError],
  ['aborted', OvsdbAbortedError],
  ['not owner', OvsdbNotOwnerError],
  ['unknown database', OvsdbUnknownDatabaseError],
  ['syntax error', OvsdbSyntaxError],
  ['unknown column', OvsdbUnknownColumnError],
  ['syntax error or unknown column', OvsdbSyntaxError],
  ['duplicate uuid', OvsdbDuplicateUuidError],
  ['internal error', OvsdbInternalError],
  ['ovsdb error', OvsdbDataError],
  ['permission error', OvsdbPermissionError],
  ['canceled', OvsdbCanceledError],
  ['not leader', OvsdbNotLeaderError],
  ['database not available', OvsdbDatabaseNotAvailableError],
  ['unknown method', OvsdbUnknownMethodError],
  ['unknown monitor', OvsdbUnknownMonitorError],
  ['unknown monitor session', OvsdbUnknownMonitorError],
]);

/**
 * The typed error for a server `<error>`; unknown strings give a plain
 * {@link OvsdbServerError}. For commit-time errors without a table, the table
 * is taken from `details` ("Table Logical_Switch column ports ...").
 *
 * @example
 * serverError({ error: 'not owner', details: 'Asserted lock foo not held.' }, { opIndex: 0 })
 * // OvsdbNotOwnerError, opIndex 0
 */
export function serverError(wire: WireError, site: ErrorSite = {}): OvsdbServerError {
  const table = site.table ?? tableFromDetails(wire.details);
  const full: ErrorSite = table === undefined ? site : { ...site, table };
  if (wire.error === 'syntax error' && /No table named /.test(wire.details ?? '')) {
    return new OvsdbUnknownTableError(wire, full);
  }
  const cls = BY_STRING.get(wire.error) ?? OvsdbServerError;
  return new cls(wire, full);
}

function tableFromDetails(details: string | undefined): string | undefined {
  if (details === undefined) return undefined;
  // "Table Logical_Switch column ports row ...", "rows in \"Logical_Switch_Port\" table", "No table named X."
  const m =
    /"([A-Za-z_][A-Za-z0-9_]*)" table/.exec(details) ??
    /\bTable ([A-Za-z_][A-Za-z0-9_]*)/.exec(details) ??
    /No table named ([A-Za-z_][A-Za-z0-9_]*)/.exec(details);
  return m?.[1];
}

/** Client-side failure codes (not server error strings). */
export type OvsdbClientErrorCode =
  | 'protocol'
  | 'connection-closed'
  | 'probe-timeout'
  | 'request-timeout'
  | 'invalid-value'
  | 'invalid-schema'
  | 'invalid-remote'
  | 'cache-timeout'
  | 'not-connected'
  | 'deadline';

/** Base of the client-side errors; `code` says which. */
export class OvsdbClientError extends Error {
  override readonly name: string = 'OvsdbClientError';
  constructor(
    readonly code: OvsdbClientErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The peer sent something that is not valid JSON, not a JSON-RPC 1.0 message,
 * or not the OVSDB notation its method promises.
 *
 * @example new OvsdbProtocolError('reply to transact: result is not an array')
 */
export class OvsdbProtocolError extends OvsdbClientError {
  override readonly name: string = 'OvsdbProtocolError';
  /**
   * True for a transaction whose reply was malformed (or never came because a
   * malformed message closed the connection): the server may have committed it.
   */
  readonly maybeCommitted: boolean;
  constructor(message: string, options?: { cause?: unknown; maybeCommitted?: boolean }) {
    super('protocol', `ovsdb protocol: ${message}`, options);
    this.maybeCommitted = options?.maybeCommitted ?? false;
  }
}

/**
 * The connection closed (or was closed) while a request was waiting for its
 * reply. `maybeCommitted` is true for a transact that was written to the
 * socket: the server may have committed it.
 */
export class OvsdbConnectionClosedError extends OvsdbClientError {
  override readonly name: string = 'OvsdbConnectionClosedError';
  constructor(
    message: string,
    readonly maybeCommitted = false,
    options?: { cause?: unknown },
  ) {
    super('connection-closed', `ovsdb connection closed: ${message}`, options);
  }
}

/**
 * The caller's deadline (an aborted `AbortSignal`) passed before the
 * transaction was answered. `maybeCommitted` is false when it was never
 * written to a server (it is dropped from the queue), true when it was: the
 * server may still commit it.
 */
export class OvsdbDeadlineError extends OvsdbClientError {
  override readonly name: string = 'OvsdbDeadlineError';
  constructor(
    message: string,
    readonly maybeCommitted: boolean,
    options?: { cause?: unknown },
  ) {
    super('deadline', `ovsdb deadline: ${message}`, options);
  }
}

/** Our inactivity probe (an `echo` after an idle period) went unanswered. */
export class OvsdbProbeTimeoutError extends OvsdbClientError {
  override readonly name: string = 'OvsdbProbeTimeoutError';
  constructor(idleMs: number) {
    super('probe-timeout', `ovsdb inactivity probe: no reply to echo within ${idleMs} ms`);
  }
}

/** A native value does not fit its column type (names the column). */
export class OvsdbValueError extends OvsdbClientError {
  override readonly name: string = 'OvsdbValueError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super('invalid-value', `ovsdb value ${path}: ${message}`);
  }
}

/** An .ovsschema document (or get_schema reply) that does not parse. */
export class OvsdbSchemaError extends OvsdbClientError {
  override readonly name: string = 'OvsdbSchemaError';
  constructor(
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('invalid-schema', `ovsdb schema ${path}: ${message}`, options);
  }
}

/** A remote string (`unix:`, `tcp:`, `ssl:`) that does not parse; names the remote. */
export class OvsdbRemoteError extends OvsdbClientError {
  override readonly name: string = 'OvsdbRemoteError';
  constructor(
    readonly remote: string,
    message: string,
  ) {
    super('invalid-remote', `ovsdb remote ${JSON.stringify(remote)}: ${message}`);
  }
}

/**
 * Structured logs for the controller and daemon processes: one JSON object
 * per line with `ts`, `level`, `component`, `msg`, and the object the line
 * is about as `kind`, `namespace`, `name` (so a log search for one pod finds
 * every line about it), then any other fields. Errors are written as their
 * message (and `code`, `reason` when they carry one).
 *
 * The writer and the clock are injected: the process's stderr and wall
 * time in the CLI, an array and a fixed clock in tests.
 */
import type { ObjectRef } from '../cluster/types.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Fields of a line besides its message: `object` is flattened to kind/namespace/name, `err` to its message. */
export interface LogFields {
  readonly object?: ObjectRef;
  readonly err?: unknown;
  readonly [field: string]: unknown;
}

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger adding `fields` to every line (the node name of a daemon, say). */
  with(fields: Readonly<Record<string, unknown>>): Logger;
}

export interface JsonLoggerOptions {
  /** Receives one line, newline included. */
  readonly write: (line: string) => void;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /** `controller`, `daemon`. */
  readonly component: string;
  /** Lines below this level are dropped (default info). */
  readonly level?: LogLevel;
}

/**
 * Is `s` a log level name?
 *
 * @example isLogLevel('warn') // true
 */
export const isLogLevel = (s: string): s is LogLevel => Object.hasOwn(RANK, s);

/** What a line says about an error: its message, and the code or reason typed errors carry. */
function errorFields(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { error: String(err) };
  const e = err as Error & { code?: unknown; reason?: unknown };
  return {
    error: e.message,
    ...(typeof e.code === 'string' || typeof e.code === 'number' ? { errorCode: e.code } : {}),
    ...(typeof e.reason === 'string' ? { errorReason: e.reason } : {}),
  };
}

/**
 * @example
 * const log = jsonLogger({ write: (l) => process.stderr.write(l), now: Date.now, component: 'controller' });
 * log.info('reconciled', { object: { kind: 'Pod', namespace: 'prod', name: 'web-0' } });
 * // {"ts":"2026-11-28T11:38:23.000Z","level":"info","component":"controller","msg":"reconciled","kind":"Pod","namespace":"prod","name":"web-0"}
 */
export function jsonLogger(opts: JsonLoggerOptions, base: Readonly<Record<string, unknown>> = {}): Logger {
  const min = RANK[opts.level ?? 'info'];
  const line = (level: LogLevel, msg: string, fields: LogFields = {}): void => {
    if (RANK[level] < min) return;
    const { object, err, ...rest } = fields;
    const out: Record<string, unknown> = {
      ts: new Date(opts.now()).toISOString(),
      level,
      component: opts.component,
      msg,
      ...(object !== undefined
        ? {
            kind: object.kind,
            ...(object.namespace !== undefined ? { namespace: object.namespace } : {}),
            name: object.name,
          }
        : {}),
      ...base,
      ...rest,
      ...(err !== undefined ? errorFields(err) : {}),
    };
    opts.write(`${JSON.stringify(out, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}\n`);
  };
  return {
    debug: (msg, f) => line('debug', msg, f),
    info: (msg, f) => line('info', msg, f),
    warn: (msg, f) => line('warn', msg, f),
    error: (msg, f) => line('error', msg, f),
    with: (fields) => jsonLogger(opts, { ...base, ...fields }),
  };
}

/**
 * The plugin's side of node/cni/protocol.ts: one connection to the daemon's
 * unix socket per request, the request as one JSON line out, one JSON line
 * back. Failures are a DaemonCallError whose code says whether the daemon was
 * never reached (nothing happened) or went away mid-request (something may
 * have), which DEL and STATUS answer differently.
 */
import { createConnection } from 'node:net';
import type { DaemonRequest, DaemonResponse } from './protocol.ts';

export type DaemonCallErrorCode =
  /** No daemon listens: the socket is missing, refused, or not reachable (ENOENT, ECONNREFUSED, EACCES...). */
  | 'UNREACHABLE'
  /** Connected, then the connection ended or broke before a whole response line. */
  | 'CLOSED'
  /** The response line is not a DaemonResponse. */
  | 'BAD_RESPONSE'
  /** The caller's signal ended the wait. */
  | 'ABORTED';

/**
 * @example
 * try { await callDaemon('/run/kovn/daemon.sock', req); }
 * catch (e) { if (e instanceof DaemonCallError && e.code === 'UNREACHABLE') ... }
 */
export class DaemonCallError extends Error {
  override readonly name = 'DaemonCallError';
  constructor(
    readonly code: DaemonCallErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** How the plugin reaches the daemon; tests pass their own. */
export type DaemonCall = (socketPath: string, request: DaemonRequest) => Promise<DaemonResponse>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks that a parsed line is a DaemonResponse.
 *
 * @example
 * parseResponse('{"ok":true}') // {ok: true}
 * parseResponse('{"ok":false}') // undefined (an error needs {code, msg})
 */
export function parseResponse(line: string): DaemonResponse | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(v) || typeof v.ok !== 'boolean') return undefined;
  if (v.ok) return v.result === undefined || isObject(v.result) ? (v as DaemonResponse) : undefined;
  const e = v.error;
  if (!isObject(e) || typeof e.code !== 'number' || typeof e.msg !== 'string') return undefined;
  if (e.details !== undefined && typeof e.details !== 'string') return undefined;
  return v as DaemonResponse;
}

/**
 * Sends one request and reads the one-line answer.
 *
 * @example
 * const r = await callDaemon('/run/kovn/daemon.sock', {command: 'STATUS', ...}, {signal: AbortSignal.timeout(5000)});
 */
export function callDaemon(
  socketPath: string,
  request: DaemonRequest,
  options: { signal?: AbortSignal } = {},
): Promise<DaemonResponse> {
  return new Promise((resolve, reject) => {
    const { signal } = options;
    let connected = false;
    let buffered = '';
    let settled = false;
    const sock = createConnection({ path: socketPath });
    const finish = (err: DaemonCallError | undefined, res?: DaemonResponse) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      sock.destroy();
      if (err) reject(err);
      else resolve(res as DaemonResponse);
    };
    const onAbort = () =>
      finish(
        new DaemonCallError('ABORTED', `no answer from the daemon at ${socketPath} in time`, { cause: signal?.reason }),
      );
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    sock.setEncoding('utf8');
    sock.on('connect', () => {
      connected = true;
      sock.write(`${JSON.stringify(request)}\n`);
    });
    sock.on('data', (chunk: string) => {
      buffered += chunk;
      const nl = buffered.indexOf('\n');
      if (nl < 0) return;
      const line = buffered.slice(0, nl);
      const res = parseResponse(line);
      if (res) finish(undefined, res);
      else finish(new DaemonCallError('BAD_RESPONSE', `the daemon at ${socketPath} answered ${clip(line)}`));
    });
    sock.on('error', (e: NodeJS.ErrnoException) => {
      const code = connected ? 'CLOSED' : 'UNREACHABLE';
      const what = connected ? 'connection to the kovn daemon broke' : 'cannot connect to the kovn daemon';
      finish(new DaemonCallError(code, `${what} at ${socketPath}: ${e.code ?? e.message}`, { cause: e }));
    });
    // A daemon that ends its one line with the connection instead of a newline is still understood.
    sock.on('end', () => {
      if (buffered.trim() === '') return;
      const res = parseResponse(buffered);
      if (res) finish(undefined, res);
      else finish(new DaemonCallError('BAD_RESPONSE', `the daemon at ${socketPath} answered ${clip(buffered)}`));
    });
    sock.on('close', () =>
      finish(new DaemonCallError('CLOSED', `the daemon at ${socketPath} closed the connection without an answer`)),
    );
  });
}

const clip = (s: string) => JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}...` : s);

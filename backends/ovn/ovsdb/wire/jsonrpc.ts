/**
 * JSON-RPC 1.0 messages as OVSDB uses them (RFC 7047 §4): requests
 * `{method, params, id}`, notifications (the same with `id: null`) and
 * responses `{result, error, id}`. ovsdb-server omits `result` on errors and
 * sends `error: null` on success; both forms parse.
 */
import { OvsdbProtocolError } from './errors.ts';
import { expectObject, MAX_JSON_DEPTH, preview } from './json.ts';

/** Request ids: any non-null JSON value; ours are integers, the server's echo ids are strings. */
export type RpcId = string | number | readonly unknown[] | Readonly<Record<string, unknown>> | boolean;

export interface RpcRequest {
  readonly kind: 'request';
  readonly id: RpcId;
  readonly method: string;
  readonly params: unknown;
}
export interface RpcNotification {
  readonly kind: 'notification';
  readonly method: string;
  readonly params: unknown;
}
export interface RpcResponse {
  readonly kind: 'response';
  readonly id: RpcId;
  readonly result: unknown;
  /** null on success; a string or an `<error>` object on failure. */
  readonly error: unknown;
}
export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

/**
 * @example parseRpcMessage({id: null, method: 'update2', params: ['m', {}]}) // notification
 */
export function parseRpcMessage(json: unknown): RpcMessage {
  const o = expectObject(json, 'message');
  const id = o.id;
  const problem = id === null || id === undefined ? undefined : idProblem(id);
  if (problem !== undefined) throw new OvsdbProtocolError(`message id ${preview(id)} ${problem}`);
  if (o.method !== undefined) {
    if (typeof o.method !== 'string')
      throw new OvsdbProtocolError(`message.method: expected a string, got ${preview(o.method)}`);
    const params = o.params === undefined ? [] : o.params;
    if (id === null || id === undefined) return { kind: 'notification', method: o.method, params };
    return { kind: 'request', id: id as RpcId, method: o.method, params };
  }
  if (id === undefined || id === null) throw new OvsdbProtocolError(`message without method or id: ${preview(json)}`);
  if (!('result' in o) && !('error' in o))
    throw new OvsdbProtocolError(`response ${preview(id)} has neither result nor error`);
  const error = o.error === undefined ? null : o.error;
  return { kind: 'response', id: id as RpcId, result: error === null ? (o.result ?? null) : null, error };
}

/**
 * Why an id cannot be used, if it cannot: a number that does not survive a
 * JSON round trip (1e400 parses as Infinity and prints as null: a reply could
 * never be matched to it, or would match another), or nesting deeper than any
 * message may have. Walked without recursion: the message may not have come
 * through the framing that refuses deep input.
 */
function idProblem(id: unknown): string | undefined {
  const stack: [unknown, number][] = [[id, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [v, depth] = top;
    if (typeof v === 'number' && !Number.isFinite(v)) return 'does not survive a JSON round trip';
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_JSON_DEPTH) return `is nested deeper than ${MAX_JSON_DEPTH} levels`;
    for (const x of Array.isArray(v) ? v : Object.values(v)) stack.push([x, depth + 1]);
  }
  return undefined;
}

/** Inverse of {@link parseRpcMessage}. */
export function emitRpcMessage(msg: RpcMessage): Record<string, unknown> {
  switch (msg.kind) {
    case 'request':
      return { id: msg.id, method: msg.method, params: msg.params };
    case 'notification':
      return { id: null, method: msg.method, params: msg.params };
    case 'response':
      return { id: msg.id, result: msg.error === null ? msg.result : null, error: msg.error };
  }
}

/** The key under which a request id is matched to its response. */
export function rpcIdKey(id: RpcId): string {
  return JSON.stringify(id);
}

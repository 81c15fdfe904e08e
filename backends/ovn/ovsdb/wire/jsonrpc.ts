/**
 * JSON-RPC 1.0 messages as OVSDB uses them (RFC 7047 §4): requests
 * `{method, params, id}`, notifications (the same with `id: null`) and
 * responses `{result, error, id}`. ovsdb-server omits `result` on errors and
 * sends `error: null` on success; both forms parse.
 */
import { OvsdbProtocolError } from './errors.ts';
import { expectObject, preview } from './json.ts';

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
  if (id !== null && id !== undefined && !survivesRoundTrip(id)) {
    // 1e400 parses as Infinity and prints as null: a reply could never be matched to it, or would match another.
    throw new OvsdbProtocolError(`message id ${preview(id)} does not survive a JSON round trip`);
  }
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

/** Whether JSON.stringify gives back what was parsed: every number in it finite (depth bounded by framing). */
function survivesRoundTrip(v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v !== 'object' || v === null) return true;
  return (Array.isArray(v) ? v : Object.values(v)).every(survivesRoundTrip);
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

/**
 * Shape checks for JSON received from the peer. Each throws
 * {@link OvsdbProtocolError} naming the path inside the message.
 */
import { OvsdbProtocolError } from './errors.ts';

/** Short JSON text of a value for error messages. */
export function preview(json: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(json) ?? String(json);
  } catch {
    text = String(json);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export function expectObject(json: unknown, path: string): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new OvsdbProtocolError(`${path}: expected an object, got ${preview(json)}`);
  }
  return json as Record<string, unknown>;
}

export function expectArray(json: unknown, path: string): unknown[] {
  if (!Array.isArray(json)) throw new OvsdbProtocolError(`${path}: expected an array, got ${preview(json)}`);
  return json;
}

export function expectString(json: unknown, path: string): string {
  if (typeof json !== 'string') throw new OvsdbProtocolError(`${path}: expected a string, got ${preview(json)}`);
  return json;
}

export function expectBoolean(json: unknown, path: string): boolean {
  if (typeof json !== 'boolean') throw new OvsdbProtocolError(`${path}: expected a boolean, got ${preview(json)}`);
  return json;
}

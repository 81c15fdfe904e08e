/**
 * What the handler reads from a request besides its path: the JSON body
 * (bounded, as the API server bounds it), the query parameters it acts on,
 * and what the client accepts (JSON, or a Table for `kubectl get`). Every
 * parameter the front does not implement and that would change the answer
 * (dryRun) is refused, never ignored.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from './status.ts';

/** The API server's default limit on a request body (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * The request body parsed as JSON; undefined when it is empty.
 *
 * @example const body = await readJsonBody(req); // { kind: 'Pod', ... }
 */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ApiError('RequestEntityTooLarge', `the request body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError('BadRequest', `the request body is not JSON: ${(err as Error).message}`, undefined, {
      cause: err,
    });
  }
}

/** The media type of a Content-Type header, without parameters, lower case. */
export const mediaType = (header: string | undefined): string => (header ?? '').split(';')[0]!.trim().toLowerCase();

/** What the client asked the answer to be: a Table (`kubectl get`), with or without the objects inside. */
export interface AcceptInfo {
  readonly table: boolean;
  readonly includeObject: 'None' | 'Metadata' | 'Object';
}

/**
 * The answer an Accept header and query ask for. A Table is answered when
 * any accepted type asks `as=Table` (kubectl lists it first, plain JSON
 * after); a header that accepts only types the front does not write
 * (protobuf alone) is refused with 406.
 *
 * @example acceptOf('application/json;as=Table;v=v1;g=meta.k8s.io,application/json', new URLSearchParams()).table // true
 */
export function acceptOf(header: string | undefined, query: URLSearchParams): AcceptInfo {
  const types = (header ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  const table = types.some((t) => /;\s*as=Table/.test(t) && /^application\/json/i.test(t));
  const json = types.length === 0 || types.some((t) => /^(application\/json|application\/\*|\*\/\*)/i.test(t));
  if (!json && !table)
    throw new ApiError('NotAcceptable', `only application/json is served; the request accepts ${header}`);
  const io = query.get('includeObject') ?? 'Metadata';
  if (io !== 'None' && io !== 'Metadata' && io !== 'Object')
    throw new ApiError('BadRequest', `includeObject: expected None, Metadata or Object, got ${JSON.stringify(io)}`);
  return { table, includeObject: io };
}

/** `true`, `1` (and any other value but `false`, `0` and empty) as the API server's boolean parameters. */
export const truthy = (v: string | null): boolean => v !== null && v !== '' && v !== 'false' && v !== '0';

/** A parameter that takes a whole number of seconds; absent → undefined. */
export function seconds(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw new ApiError('BadRequest', `${name}: expected a whole number of seconds, got ${v}`);
  return Number(v);
}

/** dryRun would answer without writing; the front does not implement it, so asking for it is refused. */
export function refuseDryRun(query: URLSearchParams): void {
  if (query.getAll('dryRun').some((v) => v !== ''))
    throw new ApiError('BadRequest', 'dryRun is not supported by kovn sim serve');
}

/** `fieldValidation`: Warn (default: unknown fields pruned with a Warning), Ignore, or Strict (refused). */
export type FieldValidation = 'Warn' | 'Ignore' | 'Strict';

/**
 * @example fieldValidationOf(new URLSearchParams('fieldValidation=Strict')) // 'Strict'
 */
export function fieldValidationOf(query: URLSearchParams): FieldValidation {
  const v = query.get('fieldValidation') ?? 'Warn';
  if (v === 'Warn' || v === 'Ignore' || v === 'Strict') return v;
  throw new ApiError('BadRequest', `fieldValidation: expected Warn, Ignore or Strict, got ${JSON.stringify(v)}`);
}

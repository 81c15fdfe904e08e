/**
 * The API's error answers (a `Status` body and its HTTP code) as the
 * cluster source's typed errors, so everything above the source handles a
 * real API server's refusals as it handles the in-memory cluster's.
 */
import { ClusterError, type ClusterErrorReason, formatKey, type ObjectRef } from '../types.ts';

type Rec = Readonly<Record<string, unknown>>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

const KNOWN: ReadonlySet<string> = new Set<ClusterErrorReason>([
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Invalid',
  'Gone',
  'ServiceUnavailable',
  'Forbidden',
]);

/**
 * The reason of an answer: the Status's own when it is one of ours, else by
 * the HTTP code (400 and 422 Invalid; 401 and 403 Forbidden; 429, 5xx and
 * anything else ServiceUnavailable, worth a retry).
 *
 * @example reasonOf(409, { kind: 'Status', reason: 'AlreadyExists' }) // 'AlreadyExists'
 * @example reasonOf(504, '') // 'ServiceUnavailable'
 */
export function reasonOf(code: number, body: unknown): ClusterErrorReason {
  const given = rec(body)['reason'];
  if (typeof given === 'string' && KNOWN.has(given)) return given as ClusterErrorReason;
  if (given === 'Expired') return 'Gone';
  if (given === 'Unauthorized') return 'Forbidden';
  switch (code) {
    case 404:
      return 'NotFound';
    case 409:
      return 'Conflict';
    case 410:
      return 'Gone';
    case 400:
    case 422:
      return 'Invalid';
    case 401:
    case 403:
      return 'Forbidden';
    default:
      return 'ServiceUnavailable';
  }
}

/**
 * @example
 * throw clusterErrorOf(404, body, { kind: 'Pod', namespace: 'shop', name: 'web' }, 'get');
 * // ClusterError NotFound: "get Pod shop/web: 404 pods \"web\" not found"
 */
export function clusterErrorOf(code: number, body: unknown, ref: ObjectRef, verb: string): ClusterError {
  const b = rec(body);
  const message = typeof b['message'] === 'string' ? b['message'] : typeof body === 'string' ? body.slice(0, 200) : '';
  const cause = rec((Array.isArray(rec(b['details'])['causes']) ? (rec(b['details'])['causes'] as unknown[]) : [])[0]);
  const field = typeof cause['field'] === 'string' ? cause['field'] : undefined;
  const what = ref.name === '' ? ref.kind : `${ref.kind} ${formatKey(ref)}`;
  return new ClusterError(reasonOf(code, body), ref, `${verb} ${what}: ${code} ${message}`.trimEnd(), field);
}

/**
 * The API's error body, `Status` (meta/v1), for every refusal the front
 * makes: what a client reads (`reason`, `code`, `details.causes`) is what
 * the real API server sends for the same failure, so kubectl prints its own
 * messages (`Error from server (NotFound): pods "x" not found`) and
 * client libraries map the reason as they would. `ApiError` carries one
 * through the handler; `statusOfClusterError` maps the cluster's reasons.
 */
import type { ClusterError } from '../../cluster/types.ts';
import type { FieldCause, ServedResource } from '../types.ts';

/** A `Status` reason (metav1.StatusReason) the front answers with. */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'Invalid'
  | 'InternalError'
  | 'ServiceUnavailable';

const CODES: Readonly<Record<StatusReason, number>> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Expired: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  InternalError: 500,
  ServiceUnavailable: 503,
};

/** What a Status names: the object (`name`), its group and resource (`kind` holds the plural, as the server's). */
export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly causes?: readonly FieldCause[];
}

export interface StatusBody {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never>;
  readonly status: 'Failure';
  readonly message: string;
  readonly reason: StatusReason;
  readonly details?: StatusDetails;
  readonly code: number;
}

/**
 * A refusal on its way to the client: thrown inside the handler, written
 * once as a Status with its HTTP code.
 *
 * @example throw new ApiError('MethodNotAllowed', 'the server does not allow this method on the requested resource');
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: StatusReason,
    message: string,
    readonly details?: StatusDetails,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }

  get httpStatus(): number {
    return CODES[this.code];
  }

  body(): StatusBody {
    return statusBody(this.code, this.message, this.details);
  }
}

/**
 * @example statusBody('NotFound', 'pods "web" not found', { name: 'web', kind: 'pods' }).code // 404
 */
export function statusBody(reason: StatusReason, message: string, details?: StatusDetails): StatusBody {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details !== undefined ? { details } : {}),
    code: CODES[reason],
  };
}

/** The success Status a deletecollection or a delete without an object answers with. */
export const SUCCESS_STATUS = Object.freeze({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Success',
  code: 200,
});

/** `pods "web"`, or `pods` for a collection: how the server names what a message is about. */
export const qualified = (r: ServedResource, name?: string): string => {
  const what = r.group === '' ? r.plural : `${r.plural}.${r.group}`;
  return name === undefined ? what : `${what} "${name}"`;
};

/**
 * The Status of a cluster refusal on `resource`: NotFound 404, AlreadyExists
 * and Conflict 409, Invalid 422 (its field as the one cause; a selector the
 * cluster cannot apply is a 400, as the server answers a bad selector), Gone
 * 410, ServiceUnavailable 503, Forbidden 403.
 *
 * @example apiErrorOf(new ClusterError('NotFound', ref, 'get Pod default/web: not found'), pods, 'web').httpStatus // 404
 */
export function apiErrorOf(err: ClusterError, resource: ServedResource, name?: string): ApiError {
  const details = { ...(name !== undefined ? { name } : {}), group: resource.group, kind: resource.plural };
  const what = qualified(resource, name);
  switch (err.reason) {
    case 'NotFound':
      return new ApiError('NotFound', `${what} not found`, details, { cause: err });
    case 'AlreadyExists':
      return new ApiError('AlreadyExists', `${what} already exists`, details, { cause: err });
    case 'Conflict':
      return new ApiError(
        'Conflict',
        `Operation cannot be fulfilled on ${what}: the object has been modified; please apply your changes to the latest version and try again`,
        details,
        { cause: err },
      );
    case 'Gone':
      return new ApiError('Expired', err.message, details, { cause: err });
    case 'ServiceUnavailable':
      return new ApiError('ServiceUnavailable', err.message, details, { cause: err });
    case 'Forbidden':
      return new ApiError('Forbidden', err.message, details, { cause: err });
    case 'Invalid': {
      if (err.field === 'labelSelector' || err.field === 'fieldSelector' || err.field === 'resourceVersion')
        return new ApiError('BadRequest', err.message, undefined, { cause: err });
      const causes: FieldCause[] =
        err.field !== undefined ? [{ reason: 'FieldValueInvalid', field: err.field, message: err.message }] : [];
      return new ApiError('Invalid', `${what} is invalid: ${err.message}`, { ...details, causes }, { cause: err });
    }
  }
}

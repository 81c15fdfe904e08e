/**
 * IPAM problems. Bad configuration and bad restore input are data
 * ({@link IpamIssue}: all collected, nothing applied silently); a refused
 * allocation is an {@link IpamError} value returned in the result (never
 * thrown), with {@link Conflict} for "someone else holds it".
 */

export type IssuePath = readonly (string | number)[];

export type IpamIssueCode =
  // Subnet and IPPool specs
  | 'invalid-name'
  | 'invalid-cidr'
  | 'invalid-gateway'
  | 'gateway-outside-cidr'
  | 'gateway-in-use'
  | 'invalid-exclude'
  | 'exclude-outside-cidr'
  | 'cidr-overlap'
  | 'unknown-subnet'
  | 'invalid-pool-ip'
  | 'pool-ip-outside-cidr'
  | 'pool-overlap'
  // Restore records
  | 'duplicate-owner'
  | 'duplicate-ip'
  | 'duplicate-mac'
  | 'invalid-ip'
  | 'invalid-mac'
  | 'ip-outside-subnet'
  | 'ip-reserved'
  | 'family-mismatch'
  | 'family-missing';

/**
 * One problem, as data. `path` locates the field (`['subnets', 'ovn-default',
 * 'excludeIps', 2]`, `['records', 17, 'ips', 0]`); the message names the
 * object and field too, so it reads alone in a log.
 */
export type IpamIssue = {
  readonly code: IpamIssueCode;
  readonly path: IssuePath;
  readonly message: string;
  readonly subnet?: string;
  /** For duplicates: every owner involved, the one that kept the address first. */
  readonly owners?: readonly string[];
  readonly address?: string;
};

export type IpamErrorCode =
  | 'unknown-subnet'
  | 'unknown-pool'
  | 'conflict'
  | 'exhausted'
  | 'out-of-range'
  | 'reserved'
  | 'invalid-ip'
  | 'invalid-mac'
  | 'invalid-ip-pool'
  | 'family-mismatch'
  | 'owner-in-other-subnet';

/**
 * Why an allocation was refused.
 *
 * @example
 * const r = ipam.allocate({ subnet: 'nope', owner: 'web-0.default' });
 * if (!r.ok) r.error.code; // 'unknown-subnet'
 */
export class IpamError extends Error {
  override readonly name: string = 'IpamError';
  constructor(
    readonly code: IpamErrorCode,
    readonly subnet: string,
    message: string,
    readonly path: IssuePath = [],
  ) {
    super(message);
  }
}

/**
 * The requested address or MAC is held by another owner.
 *
 * @example
 * const r = ipam.allocate({ subnet: 'ovn-default', owner: 'b.default', ips: '10.16.0.2' });
 * if (!r.ok && r.error instanceof Conflict) r.error.owner; // 'a.default'
 */
export class Conflict extends IpamError {
  override readonly name = 'Conflict';
  declare readonly code: 'conflict';
  constructor(
    subnet: string,
    /** The current holder. */
    readonly owner: string,
    /** The address (or MAC) as text. */
    readonly address: string,
    /** Who asked for it. */
    readonly requester: string,
    path: IssuePath = [],
  ) {
    super(
      'conflict',
      subnet,
      `subnet ${JSON.stringify(subnet)}: ${address} requested by ${JSON.stringify(requester)} is held by ${JSON.stringify(owner)}`,
      path,
    );
  }
}

export function issue(
  code: IpamIssueCode,
  path: IssuePath,
  message: string,
  extra: Omit<IpamIssue, 'code' | 'path' | 'message'> = {},
): IpamIssue {
  return { code, path, message, ...extra };
}

/** Quotes a value for a message. */
export const q = (v: unknown): string => JSON.stringify(v);

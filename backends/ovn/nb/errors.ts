/**
 * The OVN backend's one error class. `code` says what went wrong; the
 * message and `site` name the plan operation (index, kind, model table and
 * key) and the NB table, so a failed apply points at the row that caused it.
 * Server errors keep the client's typed error as `cause`.
 */

export type OvnBackendErrorCode =
  /** A row kovn does not own already has the name (or a kovn row has it and kovn's view missed it). */
  | 'name-clash'
  /** An update or delete names a row kovn does not have, or a reference names a missing row. */
  | 'missing-row'
  /** A kovn row changed under us between planning and commit (an update matched nothing). */
  | 'row-vanished'
  /** A model row uses an external_ids key kovn reserves. */
  | 'reserved-key'
  /** A kovn row in NB that does not map back to the model (e.g. an unparsable match). */
  | 'unreadable-row'
  /** The server rejected a transaction (cause: the client's typed error). */
  | 'server-error'
  /** A replayed transaction tripped its guard, but its rows are not there. */
  | 'replay-mismatch'
  /** northd did not catch up with nb_cfg in time. */
  | 'northd-timeout'
  /** The caller's deadline passed (see `maybeCommitted` and `committedTransactions`). */
  | 'deadline'
  /** A mutate names a column that is not a membership column of the table. */
  | 'not-a-member-column'
  | 'closed';

/** Where an error happened: the plan operation and the NB table. */
export interface ErrorSite {
  /** Index of the plan operation. */
  readonly planIndex?: number;
  readonly op?: 'create' | 'update' | 'mutate' | 'delete';
  readonly modelTable?: string;
  readonly key?: string;
  readonly nbTable?: string;
}

/**
 * @example
 * try { await backend.apply(ops) } catch (e) {
 *   if (e instanceof OvnBackendError && e.code === 'name-clash') console.error(e.site.nbTable, e.site.key);
 * }
 */
export class OvnBackendError extends Error {
  override readonly name = 'OvnBackendError';
  /** For `deadline`: whether a transaction in flight when it passed may have committed. */
  readonly maybeCommitted: boolean;
  /** For `deadline`: transactions of the apply known to be committed. */
  readonly committedTransactions: number | undefined;
  constructor(
    readonly code: OvnBackendErrorCode,
    message: string,
    readonly site: ErrorSite = {},
    options?: { cause?: unknown; maybeCommitted?: boolean; committedTransactions?: number },
  ) {
    super(message, options);
    this.maybeCommitted = options?.maybeCommitted ?? false;
    this.committedTransactions = options?.committedTransactions;
  }
}

/** "plan operation 3 (create acl "k") on NB ACL" — the prefix of every message about one operation. */
export function describeSite(site: ErrorSite): string {
  const parts: string[] = [];
  if (site.planIndex !== undefined) parts.push(`plan operation ${site.planIndex}`);
  if (site.op !== undefined || site.modelTable !== undefined) {
    parts.push(
      `(${[site.op, site.modelTable, site.key === undefined ? undefined : JSON.stringify(site.key)].filter((x) => x !== undefined).join(' ')})`,
    );
  }
  if (site.nbTable !== undefined) parts.push(`on NB ${site.nbTable}`);
  return parts.join(' ');
}

/**
 * Problems as data (the Zod v4 way): a machine-readable `code`, the `path` to
 * the offending object and field, and a message naming both. Validators
 * collect every issue rather than stopping at the first.
 */
export interface Issue {
  /** kebab-case, stable: scripts and tests match on it. */
  readonly code: string;
  /** e.g. ['switchPort', 'web-0.default', 'addresses', 0]. */
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** One line per issue: `path: message`. */
export function formatIssues(issues: readonly Issue[]): string {
  return issues.map((i) => `${i.path.join('.')}: ${i.message} [${i.code}]`).join('\n');
}

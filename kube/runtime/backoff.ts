/**
 * The runtime's one exponential backoff: the work queue's per-key retries,
 * the informer's relists and the committer's applies each wait
 * `initialMs` doubled per consecutive failure, up to `maxMs` (client-go's
 * ItemExponentialFailureRateLimiter and reflector backoff have this shape).
 * Only the delay is computed here; each caller counts its own failures and
 * schedules on its own injected clock.
 */

/**
 * The delay before the retry after `attempt` consecutive failures (1 for the first).
 *
 * @example backoffMs(1, 5, 60_000) // 5
 * @example backoffMs(3, 5, 60_000) // 20
 * @example backoffMs(40, 800, 30_000) // 30_000
 */
export function backoffMs(attempt: number, initialMs: number, maxMs: number): number {
  // The exponent is bounded so that a long run of failures stays a finite number (and 0 × 2^n stays 0).
  return Math.min(maxMs, initialMs * 2 ** Math.min(40, attempt - 1));
}

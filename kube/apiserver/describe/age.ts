/**
 * Ages as `kubectl get` prints them (the API server's printers fill the AGE
 * cells): Kubernetes' HumanDuration, `<unknown>` for an object without a
 * creationTimestamp or a server without a clock.
 */

/**
 * A duration as Kubernetes prints it: `45s`, `3m20s`, `2h5m`, `3d4h`, `2y10d`.
 *
 * @example humanDuration(200_000) // '3m20s'
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/**
 * The time since an RFC 3339 timestamp, as an AGE cell.
 *
 * @example ageOf('2020-01-01T00:00:00Z', () => Date.parse('2020-01-01T00:05:00Z')) // '5m'
 */
export function ageOf(timestamp: unknown, now: (() => number) | undefined): string {
  if (typeof timestamp !== 'string' || now === undefined) return '<unknown>';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now() - t);
}

/**
 * Times as the Kubernetes API writes them: metav1.Time is RFC 3339 in whole
 * seconds (`creationTimestamp`, `deletionTimestamp`, an Event's
 * `lastTimestamp`, a condition's `lastTransitionTime`); only MicroTime fields
 * (a Lease's `renewTime`) carry fractions.
 *
 * @example apiTime(1_999) // '1970-01-01T00:00:01Z'
 */
export const apiTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * `target.push(...source)` passes every element as a call argument, and V8
 * throws `RangeError: Maximum call stack size exceeded` somewhere past about
 * 120k of them (the exact limit depends on the stack). Anything whose size
 * follows the cluster (rows of a table, addresses of a set, VIPs of a load
 * balancer) is appended with this loop instead.
 *
 * @example appendAll(creates, diff.creates)
 */
export function appendAll<T>(target: T[], source: Iterable<T>): T[] {
  for (const x of source) target.push(x);
  return target;
}

/**
 * How OVN reads a load balancer's options, where more than one layer needs
 * the same reading: the simulator compiles affinity flows from it, and the
 * verification harness decides from it whether a case needs affinity-aware
 * comparison.
 */
import type { LoadBalancer } from './types.ts';

/**
 * options:affinity_timeout as northd reads it (smap_get_int: an integer,
 * else 0); not 0 means affinity flows.
 *
 * @example
 * affinityTimeout({ ...lb, options: { affinity_timeout: '60' } }) // 60
 */
export function affinityTimeout(lb: LoadBalancer): number {
  const text = lb.options['affinity_timeout'];
  return text !== undefined && /^\s*[-+]?\d+$/.test(text) ? Number.parseInt(text, 10) : 0;
}

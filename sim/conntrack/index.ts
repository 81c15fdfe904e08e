/**
 * sim/conntrack: connection tracking as an explicit, immutable value (zones,
 * entries with NAT, ct_mark/ct_label), read and written through a per-run
 * transaction.
 */
export * from './tuple.ts';
export * from './state.ts';

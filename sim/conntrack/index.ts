/**
 * sim/conntrack: connection tracking as an explicit, immutable value (zones,
 * entries with NAT, ct_mark/ct_label; state.ts), read and written through a
 * per-run transaction that copies no table (tx.ts).
 */
export * from './tuple.ts';
export * from './state.ts';
export * from './tx.ts';

/**
 * model/topology: the logical network as readonly values (one interface per
 * OVN Northbound table kovn writes), row keys, validation as data, and the
 * diff of two topologies into an ordered plan of operations.
 */
export * from './types.ts';
export * from './keys.ts';
export * from './build.ts';

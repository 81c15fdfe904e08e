/**
 * model/topology: the logical network as readonly values (one interface per
 * OVN Northbound table kovn writes), row keys, validation as data, the diff
 * of two topologies into an ordered plan of operations, and TopoBuilder for
 * writing small topologies by hand (tests, scenarios, benchmarks).
 */
export * from './types.ts';
export * from './keys.ts';
export * from './build.ts';
export { MAC, TopoBuilder, TopoBuilderError, twoSubnets, type VifOptions } from './builder.ts';
export * from './refs.ts';
export { affinityTimeout } from './lb-options.ts';
export { validateTopology } from './validate.ts';
export { matchEnvOf } from './validate-matches.ts';
export { ACL_NAME_MAX } from './validate-rules.ts';
export * from './plan.ts';
export { type PlanOutcome, resolvePlan, writeOutcome } from './apply.ts';
export * from './members.ts';
export { diffRow } from './row-diff.ts';
export * from './tables.ts';

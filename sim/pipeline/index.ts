/**
 * sim/pipeline: the logical switch and router pipelines, one function per
 * OVN stage (keyed by the stage names of northd 23.03), and the run state a
 * simulation carries through them.
 */
export { SWITCH_INGRESS, SWITCH_EGRESS } from './switch.ts';
export { ROUTER_INGRESS, ROUTER_EGRESS } from './router.ts';
export type { Choice, Selector, SimOutput, SimDrop, CtLookupRecord, GeneratedKind } from './run.ts';

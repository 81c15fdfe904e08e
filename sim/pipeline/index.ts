/**
 * sim/pipeline: the logical switch and router pipelines, one function per
 * OVN stage (keyed by the stage names of northd 23.03), and the run state a
 * simulation carries through them. An untraced pass walks only the stages
 * that can act on its datapath (each stage says when it is `needed`); a
 * traced pass walks them all, so the trace shows every stage that speaks.
 */
export { SWITCH_INGRESS, SWITCH_EGRESS } from './switch.ts';
export { ROUTER_INGRESS, ROUTER_EGRESS } from './router.ts';
export type { Choice, Selector, SimOutput, SimDrop, CtLookupRecord, GeneratedKind } from './run.ts';

/**
 * The logical router pipelines, stage by stage, named as northd 23.03 names
 * them. Stages without effect on the packets modelled here (neighbour
 * learning, ND RA, LB affinity, ECMP symmetric reply, packet-length checks)
 * are left out.
 */
import type { RouterDp } from '../compile/types.ts';
import { admission, ipInput } from './router-input.ts';
import { chkDnatLocal, defrag, dnat, postUndnat, undnat, unsnat } from './router-nat.ts';
import { arpRequest, arpResolve, gwRedirect, policy, routing, routingPre } from './router-routing.ts';
import { delivery, egressLoop, snat } from './router-snat.ts';
import { type Plan, planOf, runPipeline, type RouterStage, type StageRun } from './run.ts';

// `needed` may read only isGateway, nats, hasLbVip, policies and dgps (plansFor keys on them).
const nat = (dp: RouterDp): boolean => dp.nats.length > 0;
/** A gateway router NATs (and commits) in its DNAT zone whenever it has NAT rules or VIPs. */
const gwZones = (dp: RouterDp): boolean => dp.isGateway && (dp.nats.length > 0 || dp.hasLbVip);
const distributed = (dp: RouterDp): boolean => !dp.isGateway && dp.dgps.length > 0;
const ALWAYS = (): boolean => true;

export const ROUTER_INGRESS: readonly RouterStage[] = [
  { name: 'lr_in_admission', run: admission, needed: ALWAYS },
  { name: 'lr_in_ip_input', run: ipInput, needed: ALWAYS },
  { name: 'lr_in_unsnat', run: unsnat, needed: (dp) => dp.isGateway || nat(dp) },
  { name: 'lr_in_defrag', run: defrag, needed: (dp) => dp.hasLbVip },
  { name: 'lr_in_dnat', run: dnat, needed: (dp) => dp.hasLbVip || nat(dp) },
  { name: 'lr_in_ip_routing_pre', run: routingPre, needed: ALWAYS },
  { name: 'lr_in_ip_routing', run: routing, needed: ALWAYS },
  { name: 'lr_in_policy', run: policy, needed: (dp) => dp.policies.length > 0 },
  { name: 'lr_in_arp_resolve', run: arpResolve, needed: ALWAYS },
  { name: 'lr_in_gw_redirect', run: gwRedirect, needed: distributed },
  { name: 'lr_in_arp_request', run: arpRequest, needed: ALWAYS },
];

export const ROUTER_EGRESS: readonly RouterStage[] = [
  { name: 'lr_out_chk_dnat_local', run: chkDnatLocal, needed: nat },
  { name: 'lr_out_undnat', run: undnat, needed: (dp) => gwZones(dp) || distributed(dp) },
  { name: 'lr_out_post_undnat', run: postUndnat, needed: gwZones },
  { name: 'lr_out_snat', run: snat, needed: (dp) => dp.isGateway || dp.dgps.length > 0 },
  { name: 'lr_out_egr_loop', run: egressLoop, needed: distributed },
  { name: 'lr_out_delivery', run: delivery, needed: ALWAYS },
];

interface RouterPlans {
  readonly ingress: Plan<RouterDp>;
  readonly egress: Plan<RouterDp>;
}

/** Traced passes walk every stage, so the trace shows each one that speaks. */
const TRACED: RouterPlans = { ingress: planOf(ROUTER_INGRESS), egress: planOf(ROUTER_EGRESS) };
/** Untraced plans by the features `needed` reads (routers alike in these have the same plan). */
const untraced: (RouterPlans | undefined)[] = [];

function plansFor(dp: RouterDp): RouterPlans {
  const features =
    (dp.isGateway ? 1 : 0) |
    (dp.nats.length > 0 ? 2 : 0) |
    (dp.hasLbVip ? 4 : 0) |
    (dp.policies.length > 0 ? 8 : 0) |
    (dp.dgps.length > 0 ? 16 : 0);
  let p = untraced[features];
  if (p === undefined) {
    p = { ingress: planOf(ROUTER_INGRESS, dp), egress: planOf(ROUTER_EGRESS, dp) };
    untraced[features] = p;
  }
  return p;
}

export function runRouter(s: StageRun<RouterDp>): void {
  const plans = s.tracing ? TRACED : plansFor(s.dp);
  runPipeline(s.job.pipeline === 'ingress' ? plans.ingress : plans.egress, s);
}

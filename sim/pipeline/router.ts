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
import { runPipeline, type RouterStage, type StageRun } from './run.ts';

export const ROUTER_INGRESS: readonly RouterStage[] = [
  { name: 'lr_in_admission', run: admission },
  { name: 'lr_in_ip_input', run: ipInput },
  { name: 'lr_in_unsnat', run: unsnat },
  { name: 'lr_in_defrag', run: defrag },
  { name: 'lr_in_dnat', run: dnat },
  { name: 'lr_in_ip_routing_pre', run: routingPre },
  { name: 'lr_in_ip_routing', run: routing },
  { name: 'lr_in_policy', run: policy },
  { name: 'lr_in_arp_resolve', run: arpResolve },
  { name: 'lr_in_gw_redirect', run: gwRedirect },
  { name: 'lr_in_arp_request', run: arpRequest },
];

export const ROUTER_EGRESS: readonly RouterStage[] = [
  { name: 'lr_out_chk_dnat_local', run: chkDnatLocal },
  { name: 'lr_out_undnat', run: undnat },
  { name: 'lr_out_post_undnat', run: postUndnat },
  { name: 'lr_out_snat', run: snat },
  { name: 'lr_out_egr_loop', run: egressLoop },
  { name: 'lr_out_delivery', run: delivery },
];

export function runRouter(s: StageRun<RouterDp>): void {
  runPipeline(s.job.pipeline === 'ingress' ? ROUTER_INGRESS : ROUTER_EGRESS, s);
}

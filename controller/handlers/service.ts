/**
 * Service + its EndpointSlices → VIPs on its VPC's load balancers
 * (translate/service.ts; Kube-OVN's pkg/controller/service.go and
 * endpoint_slice.go). The VPC is the Service's `ovn.kubernetes.io/vpc`
 * annotation, else the default VPC. Endpoint slices come from the cluster
 * (kube-controller-manager's job; the scenario runner derives them), and
 * carry target ports already resolved per endpoint.
 */
import { formatKey, type KubeObject, type ObjectKey } from '../../kube/cluster/types.ts';
import {
  decodeEndpointSlice,
  decodeService,
  type EndpointSliceView,
  type ServiceView,
} from '../../kube/objects/objects.ts';
import { SWITCH_LB_VIP_ANNOTATION } from '../translate/switch-lb-rule.ts';
import { vpcLoadBalancers } from '../translate/names.ts';
import { serviceVips } from '../translate/service.ts';
import { containsIP, tryParseCIDR, tryParseIP } from '../../model/addr/index.ts';
import { isBlocking } from '../../kube/objects/decode.ts';
import type { Handler } from './handler.ts';
import { type Ctx, describeIssues, NAMESPACE_INDEX } from './context.ts';
import { subnetVpc } from './vpc.ts';

export async function reconcileService(ctx: Ctx, key: ObjectKey): Promise<void> {
  const owner = { kind: 'Service', ...key };
  const o = ctx.cache('Service').get(formatKey(key));
  if (o === undefined || !ctx.settings.enableLb) {
    ctx.committer.delete(owner);
    return;
  }
  const d = ctx.decode(o, decodeService);
  const svc = d.value;
  const ref = { kind: 'Service', namespace: svc.namespace, name: svc.name, uid: svc.uid };
  const invalid = d.issues.filter(isBlocking);
  if (invalid.length > 0) await ctx.event(ref, 'Warning', 'InvalidService', describeIssues(invalid));
  const slices = ctx
    .cache('EndpointSlice')
    .list()
    .map((s) => ctx.decode(s, decodeEndpointSlice).value)
    .filter((s) => s.namespace === svc.namespace && s.service === svc.name);
  // A SwitchLBRule's Service (translate/switch-lb-rule.ts): its VIPs are the annotation's, its VPC Kube-OVN's choice.
  const slrVips = svc.annotations[SWITCH_LB_VIP_ANNOTATION];
  const vpc = slrVips
    ? switchLBVpc(ctx, svc, slices)
    : svc.annotations['ovn.kubernetes.io/vpc'] || ctx.settings.clusterRouter;
  const refused = slrVips ? [] : clusterIPProblems(ctx, svc.clusterIPs, vpc);
  ctx.report(
    ref,
    'reconcile',
    refused.map((message) => ({
      code: 'InvalidService',
      field: 'spec.clusterIP',
      message: `${message}: its load balancer VIPs are not written`,
      scope: [{ kind: 'service', namespace: svc.namespace, name: svc.name }],
    })),
  );
  if (refused.length > 0) {
    await ctx.event(ref, 'Warning', 'InvalidService', refused.join('; '));
    ctx.committer.delete(owner);
    return;
  }
  const lbs = vpcLoadBalancers(vpc, ctx.settings.clusterRouter, ctx.clusterLbs);
  const contributions = serviceVips(
    {
      clusterIPs: slrVips ? slrVips.split(',').map((v) => v.trim()) : svc.clusterIPs,
      externalIPs: slrVips ? [] : svc.externalIPs,
      ports: svc.ports,
      sessionAffinity: svc.sessionAffinity,
    },
    slices,
    lbs,
  );
  ctx.committer.set(owner, { contributions });
}

/**
 * The VPC of a SwitchLBRule's Service, as Kube-OVN's
 * getVpcAndSubnetForEndpoints chooses it: the Service's `logical_router`
 * (with `logical_switch`), else the VPC of the first endpoint's pod (by its
 * targetRef, or for endpoints without one, the namespace's pod holding the
 * address), else `ovn.kubernetes.io/vpc`, else the default VPC.
 */
function switchLBVpc(ctx: Ctx, svc: ServiceView, slices: readonly EndpointSliceView[]): string {
  const router = svc.annotations['ovn.kubernetes.io/logical_router'];
  if (router && svc.annotations['ovn.kubernetes.io/logical_switch']) return router;
  const pods = [...ctx.cache('Pod').byIndex(NAMESPACE_INDEX, svc.namespace)];
  for (const sl of slices) {
    for (const e of sl.endpoints) {
      const pod =
        e.targetPod !== undefined
          ? pods.find((p) => p.metadata.name === e.targetPod)
          : pods.find((p) => e.addresses.some((a) => podAddresses(p).includes(a)));
      const vpc = pod?.metadata.annotations?.['ovn.kubernetes.io/logical_router'];
      if (vpc) return vpc;
    }
  }
  return svc.annotations['ovn.kubernetes.io/vpc'] || ctx.settings.clusterRouter;
}

const podAddresses = (p: KubeObject): string[] =>
  (p.metadata.annotations?.['ovn.kubernetes.io/ip_address'] ?? '').split(',').filter((a) => a !== '');

/**
 * Cluster IPs the API server would refuse (not an address, outside the
 * service CIDR) or that a pod of the Service's VPC holds (its VIP would take
 * the pod's traffic): the Service is refused, never half-written.
 */
function clusterIPProblems(ctx: Ctx, clusterIPs: readonly string[], vpc: string): string[] {
  const out: string[] = [];
  const ranges = ctx.settings.serviceClusterIPRange.split(',').flatMap((c) => tryParseCIDR(c.trim()) ?? []);
  for (const ip of clusterIPs) {
    const a = tryParseIP(ip);
    if (a === undefined) {
      out.push(`spec.clusterIP ${JSON.stringify(ip)} is not an IP address`);
      continue;
    }
    if (!ranges.some((r) => containsIP(r, a))) {
      out.push(`spec.clusterIP ${ip} is not inside the service CIDR ${ctx.settings.serviceClusterIPRange}`);
      continue;
    }
    for (const s of ctx.cache('Subnet').list()) {
      if (subnetVpc(ctx, s) !== vpc) continue;
      const holder = ctx.ipam.ownerOf(s.metadata.name, ip);
      if (holder !== undefined) out.push(`spec.clusterIP ${ip} is ${holder}'s address in subnet ${s.metadata.name}`);
    }
  }
  return out;
}

export const serviceHandler: Handler = {
  kind: 'Service',
  after: ['Vpc'],
  watches: [
    { kind: 'Service' },
    // A slice names its Service by the kubernetes.io/service-name label.
    {
      kind: 'EndpointSlice',
      map: (ctx, e) => {
        const svc = ctx.decode(e.object, decodeEndpointSlice).value.service;
        return svc ? [{ namespace: e.object.metadata.namespace ?? 'default', name: svc }] : [];
      },
    },
  ],
  reconcile: reconcileService,
};

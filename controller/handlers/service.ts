/**
 * Service + its EndpointSlices → VIPs on its VPC's load balancers
 * (translate/service.ts; Kube-OVN's pkg/controller/service.go and
 * endpoint_slice.go). The VPC is the Service's `ovn.kubernetes.io/vpc`
 * annotation, else the default VPC. Endpoint slices come from the cluster
 * (kube-controller-manager's job; the scenario runner derives them), and
 * carry target ports already resolved per endpoint.
 */
import { formatKey, type ObjectKey } from '../../kube/cluster/types.ts';
import { decodeEndpointSlice, decodeService } from '../../kube/objects/objects.ts';
import { vpcLoadBalancers } from '../translate/names.ts';
import { serviceVips } from '../translate/service.ts';
import { containsIP, tryParseCIDR, tryParseIP } from '../../model/addr/index.ts';
import { isBlocking } from '../../kube/objects/decode.ts';
import type { Handler } from './handler.ts';
import { type Ctx, describeIssues } from './context.ts';
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
  const vpc = svc.annotations['ovn.kubernetes.io/vpc'] || ctx.settings.clusterRouter;
  const refused = clusterIPProblems(ctx, svc.clusterIPs, vpc);
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
  const slices = ctx
    .cache('EndpointSlice')
    .list()
    .map((s) => ctx.decode(s, decodeEndpointSlice).value)
    .filter((s) => s.namespace === svc.namespace && s.service === svc.name);
  const lbs = vpcLoadBalancers(vpc, ctx.settings.clusterRouter, ctx.clusterLbs);
  const contributions = serviceVips(
    {
      clusterIPs: svc.clusterIPs,
      externalIPs: svc.externalIPs,
      ports: svc.ports,
      sessionAffinity: svc.sessionAffinity,
    },
    slices,
    lbs,
  );
  ctx.committer.set(owner, { contributions });
}

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

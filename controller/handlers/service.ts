/**
 * Service + its EndpointSlices → VIPs on its VPC's load balancers
 * (translate/service.ts; Kube-OVN's pkg/controller/service.go and
 * endpoint_slice.go). The VPC is the Service's `ovn.kubernetes.io/vpc`
 * annotation, else the default VPC. Endpoint slices come from the cluster
 * (kube-controller-manager's job; the scenario runner derives them), and
 * carry target ports already resolved per endpoint.
 */
import { formatKey, type ObjectKey } from '../cluster/types.ts';
import { decodeEndpointSlice, decodeService } from '../kube/objects.ts';
import { vpcLoadBalancers } from '../translate/names.ts';
import { serviceVips } from '../translate/service.ts';
import { type Ctx, describeIssues } from './context.ts';

export async function reconcileService(ctx: Ctx, key: ObjectKey): Promise<void> {
  const owner = { kind: 'Service', ...key };
  const o = ctx.cache('Service').get(formatKey(key));
  if (o === undefined || !ctx.settings.enableLb) {
    ctx.committer.delete(owner);
    return;
  }
  const d = ctx.decode(o, decodeService);
  const svc = d.value;
  if (d.issues.length > 0) {
    const ref = { kind: 'Service', namespace: svc.namespace, name: svc.name, uid: svc.uid };
    await ctx.event(ref, 'Warning', 'InvalidService', describeIssues(d.issues));
  }
  const slices = ctx
    .cache('EndpointSlice')
    .list()
    .map((s) => ctx.decode(s, decodeEndpointSlice).value)
    .filter((s) => s.namespace === svc.namespace && s.service === svc.name);
  const vpc = svc.annotations['ovn.kubernetes.io/vpc'] || ctx.settings.clusterRouter;
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

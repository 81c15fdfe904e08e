/**
 * Vpc → its router, routes, policies and six load balancers; status as
 * Kube-OVN writes it (pkg/controller/vpc.go handleAddOrUpdateVpc): `default`,
 * `router`, the load balancer names, the subnets attached, `standby`. The
 * default VPC (`--cluster-router`) routes everything else to the join
 * subnet's gateway, from where the node policies (30000, 29000) take it.
 * VPC peerings become static routes to the peer's `localConnectIP`; the
 * peering's own router ports come with the interconnection issue.
 */
import { formatIPv4, formatIPv6 } from '../../model/addr/index.ts';
import type { KubeObject } from '../cluster/types.ts';
import { decodeSubnet, decodeVpc } from '../kube/objects.ts';
import { vpcLoadBalancerRows } from '../translate/service.ts';
import { vpcLoadBalancers } from '../translate/names.ts';
import { vpcRows } from '../translate/vpc.ts';
import type { TableRow } from '../desired/store.ts';
import { blocking, type Ctx, describeIssues, sameJson } from './context.ts';

/** The VPC a subnet belongs to (`spec.vpc`, default the cluster router). */
export function subnetVpc(ctx: Ctx, subnet: KubeObject): string {
  return ctx.decode(subnet, decodeSubnet).value.vpc || ctx.settings.clusterRouter;
}

/** The join subnet's gateways (the default VPC's default route). */
export function joinGateways(ctx: Ctx): string[] {
  const join = ctx.ipam.subnet(ctx.settings.nodeSwitch);
  if (join === undefined) return [];
  const out: string[] = [];
  if (join.config.v4) out.push(formatIPv4(join.config.v4.gateway));
  if (join.config.v6) out.push(formatIPv6(join.config.v6.gateway));
  return out;
}

export async function reconcileVpc(ctx: Ctx, name: string): Promise<void> {
  const owner = `Vpc/${name}`;
  const o = ctx.cache('Vpc').get(name);
  if (o === undefined) {
    ctx.committer.delete(owner);
    return;
  }
  const d = ctx.decode(o, decodeVpc);
  const isDefault = name === ctx.settings.clusterRouter;
  const bad = blocking(d.issues);
  if (bad.length > 0) {
    await ctx.event(
      { kind: 'Vpc', name, uid: d.value.uid },
      'Warning',
      'ValidateLogicalRouterFailed',
      describeIssues(bad),
    );
  }
  const staticRoutes = [...d.value.staticRoutes];
  if (isDefault) {
    for (const gw of joinGateways(ctx))
      staticRoutes.push({ cidr: gw.includes(':') ? '::/0' : '0.0.0.0/0', nextHopIP: gw });
  }
  for (const p of d.value.vpcPeerings) {
    const peer = ctx.cache('Vpc').get(p.remoteVpc);
    if (peer === undefined) continue;
    // The peer's subnets are reached through the peering address the peer announces for us.
    const back = ctx.decode(peer, decodeVpc).value.vpcPeerings.find((x) => x.remoteVpc === name);
    if (back === undefined) continue;
    for (const s of ctx.cache('Subnet').list()) {
      if (subnetVpc(ctx, s) !== p.remoteVpc) continue;
      for (const cidr of ctx.decode(s, decodeSubnet).value.cidrBlock.split(','))
        staticRoutes.push({ cidr: cidr.trim(), nextHopIP: back.localConnectIP.split('/')[0]! });
    }
  }
  const t = vpcRows({ name, staticRoutes, policyRoutes: d.value.policyRoutes });
  if (t.issues.length > 0) {
    await ctx.event({ kind: 'Vpc', name, uid: d.value.uid }, 'Warning', 'InvalidVpcRoute', describeIssues(t.issues));
  }
  const lbs = vpcLoadBalancers(name, ctx.settings.clusterRouter, ctx.clusterLbs);
  const rows: TableRow[] = [
    { table: 'router', row: t.value.router },
    ...t.value.staticRoutes.map((row): TableRow => ({ table: 'staticRoute', row })),
    ...t.value.policies.map((row): TableRow => ({ table: 'routerPolicy', row })),
    ...(ctx.settings.enableLb ? vpcLoadBalancerRows(lbs).map((row): TableRow => ({ table: 'loadBalancer', row })) : []),
  ];
  ctx.committer.set(owner, { rows });
  const subnets = ctx
    .cache('Subnet')
    .list()
    .filter((s) => subnetVpc(ctx, s) === name)
    .map((s) => s.metadata.name)
    .sort();
  const status = {
    default: isDefault,
    defaultLogicalSwitch: isDefault ? ctx.settings.defaultLogicalSwitch : '',
    router: name,
    standby: true,
    subnets,
    tcpLoadBalancer: lbs.tcp,
    udpLoadBalancer: lbs.udp,
    sctpLoadBalancer: lbs.sctp,
    tcpSessionLoadBalancer: lbs.tcpSession,
    udpSessionLoadBalancer: lbs.udpSession,
    sctpSessionLoadBalancer: lbs.sctpSession,
  };
  if (!sameJson(pick(o.status, Object.keys(status)), status)) {
    await ctx.afterCommit(() =>
      ctx.cluster.patch({ kind: 'Vpc', name }, { status }, { subresource: 'status' }).then(() => {}),
    );
  }
}

function pick(v: unknown, keys: readonly string[]): Record<string, unknown> {
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}

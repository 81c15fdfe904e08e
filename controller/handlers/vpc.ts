/**
 * Vpc → its router, routes, policies and six load balancers; status as
 * Kube-OVN writes it (pkg/controller/vpc.go handleAddOrUpdateVpc): `default`,
 * `router`, the load balancer names, the subnets attached, `standby`. The
 * default VPC (`--cluster-router`) routes everything else to the join
 * subnet's gateway, from where the node policies (30000, 29000) take it.
 * A VPC peering is the router port `<vpc>-<remoteVpc>` with the
 * `localConnectIP`, peered with the remote's `<remoteVpc>-<vpc>` (Kube-OVN's
 * CreatePeerRouterPort); as in Kube-OVN, routes over it are the user's
 * `staticRoutes` (to the remote subnets, next hop the remote's connect IP).
 */
import { formatMAC, tryParseCIDR } from '../../model/addr/index.ts';
import { subnetGateways } from '../translate/subnet.ts';
import { hashString } from '../../model/ipam/lease-store.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { decodeSubnet, decodeVpc } from '../../kube/objects/objects.ts';
import { vpcLoadBalancerRows } from '../translate/service.ts';
import { vpcLoadBalancers } from '../translate/names.ts';
import { vpcRows } from '../translate/vpc.ts';
import type { TableRow } from '../desired/store.ts';
import { specLabelsOrDeletion } from '../../kube/runtime/changes.ts';
import { ALL, type Handler } from './handler.ts';
import { blocking, type Ctx, describeIssues, sameJson } from './context.ts';
import { createLrpEips, externalRows, releaseExternal } from './vpc-external.ts';

/** The VPC a subnet belongs to (`spec.vpc`, default the cluster router). */
export function subnetVpc(ctx: Ctx, subnet: KubeObject): string {
  return ctx.decode(subnet, decodeSubnet).value.vpc || ctx.settings.clusterRouter;
}

/** The join subnet's gateways (the default VPC's default route). */
export function joinGateways(ctx: Ctx): string[] {
  const join = ctx.ipam.subnet(ctx.settings.nodeSwitch);
  return join === undefined ? [] : subnetGateways(join.config);
}

export async function reconcileVpc(ctx: Ctx, name: string): Promise<void> {
  const owner = { kind: 'Vpc', name };
  const o = ctx.cache('Vpc').get(name);
  if (o === undefined) {
    ctx.committer.delete(owner);
    releaseExternal(ctx, name);
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
  const t = vpcRows({ name, staticRoutes, policyRoutes: d.value.policyRoutes });
  ctx.report(
    { kind: 'Vpc', name },
    'reconcile',
    t.issues.map((i) => ({
      code: 'InvalidVpcRoute',
      field: i.field,
      message: `${i.message}: left out`,
      scope: [{ kind: 'vpc', name }],
    })),
  );
  if (t.issues.length > 0) {
    await ctx.event({ kind: 'Vpc', name, uid: d.value.uid }, 'Warning', 'InvalidVpcRoute', describeIssues(t.issues));
  }
  const external = externalRows(ctx, d.value);
  ctx.report({ kind: 'Vpc', name }, 'external', external.problems);
  if (external.problems.length > 0)
    await ctx.event(
      { kind: 'Vpc', name, uid: d.value.uid },
      'Warning',
      'InvalidVpcExternal',
      describeIssues(external.problems),
    );
  const lbs = vpcLoadBalancers(name, ctx.settings.clusterRouter, ctx.clusterLbs);
  const rows: TableRow[] = [
    { table: 'router', row: t.value.router },
    ...t.value.staticRoutes.map((row): TableRow => ({ table: 'staticRoute', row })),
    ...t.value.policies.map((row): TableRow => ({ table: 'routerPolicy', row })),
    ...(ctx.settings.enableLb ? vpcLoadBalancerRows(lbs).map((row): TableRow => ({ table: 'loadBalancer', row })) : []),
    ...peeringPorts(name, d.value.vpcPeerings),
    ...external.rows,
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
    defaultLogicalSwitch: isDefault ? ctx.settings.defaultLogicalSwitch : d.value.defaultSubnet,
    router: name,
    standby: true,
    subnets,
    tcpLoadBalancer: lbs.tcp,
    udpLoadBalancer: lbs.udp,
    sctpLoadBalancer: lbs.sctp,
    tcpSessionLoadBalancer: lbs.tcpSession,
    udpSessionLoadBalancer: lbs.udpSession,
    sctpSessionLoadBalancer: lbs.sctpSession,
    enableExternal: d.value.enableExternal,
    enableBfd: d.value.enableBfd,
    extraExternalSubnets: d.value.enableExternal ? [...d.value.extraExternalSubnets].sort() : [],
  };
  if (external.eips.length > 0) await ctx.afterCommit('Vpc', { name }, () => createLrpEips(ctx, external.eips));
  if (!sameJson(pick(o.status, Object.keys(status)), status)) {
    await ctx.afterCommit('Vpc', { name }, () =>
      ctx.cluster.patch({ kind: 'Vpc', name }, { status }, { subresource: 'status' }).then(() => {}),
    );
  }
}

function pick(v: unknown, keys: readonly string[]): Record<string, unknown> {
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}

/** The router ports of a VPC's peerings; the remote side comes from the remote Vpc's own spec. */
function peeringPorts(vpc: string, peerings: readonly { remoteVpc: string; localConnectIP: string }[]): TableRow[] {
  return peerings
    .filter((p) => p.remoteVpc !== '' && tryParseCIDR(p.localConnectIP) !== undefined)
    .map(
      (p): TableRow => ({
        table: 'routerPort',
        row: {
          name: `${vpc}-${p.remoteVpc}`,
          router: vpc,
          mac: peeringMac(vpc, p.remoteVpc),
          networks: [p.localConnectIP],
          peer: `${p.remoteVpc}-${vpc}`,
          gatewayChassis: [],
          options: {},
          externalIds: { vpc, 'peer-vpc': p.remoteVpc },
        },
      }),
    );
}

/** A stable locally administered MAC per peering port (Kube-OVN draws a random one). */
function peeringMac(vpc: string, remote: string): string {
  return formatMAC(0x0a5a00000000 + (hashString(`${vpc}/${remote}`) >>> 0));
}

export const vpcHandler: Handler = {
  kind: 'Vpc',
  after: ['Subnet'],
  watches: [
    // Its own key too: a deleted Vpc is no longer among ALL, which the cache lists.
    { kind: 'Vpc', when: specLabelsOrDeletion },
    // Peerings and routes name other VPCs: a change of one may change any.
    { kind: 'Vpc', when: specLabelsOrDeletion, map: () => ALL },
    // Its subnets' switches and routes.
    { kind: 'Subnet', when: specLabelsOrDeletion, map: () => ALL },
    // The external gateway nodes (label ovn.kubernetes.io/external-gw) host its gateway ports.
    { kind: 'Node', when: specLabelsOrDeletion, map: () => ALL },
    // Its lrp EIPs: one deleted while still connected is created again.
    { kind: 'OvnEip', when: specLabelsOrDeletion, map: () => ALL },
  ],
  reconcile: (ctx, key) => reconcileVpc(ctx, key.name),
};

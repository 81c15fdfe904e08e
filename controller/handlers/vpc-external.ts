/**
 * The Vpc handler's external part (Kube-OVN's handleUpdateVpcExternal and
 * handleAddVpcExternalSubnet, pkg/controller/vpc.go): a custom VPC with
 * `enableExternal` is connected to its external subnets, the
 * `--external-gateway-switch` subnet when it exists without
 * `logicalGateway` and no `extraExternalSubnets` are given, else each of
 * those. Each connection is the lrp EIP `<vpc>-<subnet>` (an address of the
 * subnet, held under that OvnEip's IPAM owner, and the OvnEip object of type
 * `lrp` Kube-OVN creates), and the gateway port on it
 * (translate/vpc-external.ts), scheduled on the nodes labelled
 * `ovn.kubernetes.io/external-gw=true` (their chassis: the node's
 * `ovn.kubernetes.io/chassis` annotation, else its name, the system-id kovn's
 * node agent sets). Routes out of it are the user's `staticRoutes`, as in
 * Kube-OVN.
 */
import type { KubeObject } from '../../kube/cluster/types.ts';
import { decodeNode, decodeVpc } from '../../kube/objects/objects.ts';
import { decodeOvnEip } from '../../kube/objects/ovn-nat.ts';
import type { VpcView } from '../../kube/objects/kubeovn.ts';
import { externalPortRows, externalRouterPort } from '../translate/vpc-external.ts';
import type { TableRow } from '../desired/store.ts';
import type { Ctx } from './context.ts';
import { leaseAddresses, ovnEipOwner } from './ovn-eip.ts';
import type { Problem } from '../diagnostics.ts';

/** Kube-OVN's label of the nodes that host external gateways (util.ExGatewayLabel). */
export const EXTERNAL_GW_LABEL = 'ovn.kubernetes.io/external-gw';
/** The node annotation naming its chassis (util.ChassisAnnotation). */
export const CHASSIS_ANNOTATION = 'ovn.kubernetes.io/chassis';

/** The external subnets a VPC is to be connected to, or why none can be. */
export function externalSubnetsOf(ctx: Ctx, vpc: VpcView): { subnets: string[]; problem?: string } {
  if (!vpc.enableExternal || vpc.name === ctx.settings.clusterRouter) return { subnets: [] };
  if (vpc.extraExternalSubnets.length > 0) return { subnets: [...vpc.extraExternalSubnets] };
  const def = ctx.cache('Subnet').get(ctx.settings.externalGatewaySwitch);
  // Kube-OVN: an external subnet with a logical gateway "can not access external".
  if (def !== undefined && !logicalGateway(def)) return { subnets: [def.metadata.name] };
  return {
    subnets: [],
    problem: `enableExternal needs the external subnet ${ctx.settings.externalGatewaySwitch} (without logicalGateway) or extraExternalSubnets`,
  };
}

/** `spec.logicalGateway`, read raw: the Subnet's typed view belongs to the underlay translation. */
function logicalGateway(o: KubeObject): boolean {
  const spec = (o as { spec?: Record<string, unknown> }).spec;
  return spec?.logicalGateway === true;
}

/** The names of every VPC's gateway ports (and lrp EIPs) now wanted. */
export function vpcExternalPorts(ctx: Ctx): Set<string> {
  const out = new Set<string>();
  for (const o of ctx.cache('Vpc').list()) {
    const v = ctx.decode(o, decodeVpc).value;
    for (const s of externalSubnetsOf(ctx, v).subnets) out.add(externalRouterPort(v.name, s));
  }
  return out;
}

/** The chassis of the external gateway nodes, by node name order. */
export function externalGatewayChassis(ctx: Ctx): string[] {
  return ctx
    .cache('Node')
    .list()
    .map((o) => ctx.decode(o, decodeNode).value)
    .filter((n) => n.labels[EXTERNAL_GW_LABEL] === 'true')
    .map((n) => n.annotations[CHASSIS_ANNOTATION] || n.name)
    .sort();
}

/** Leases of lrp EIPs each VPC held at its last reconcile, to give back those no longer wanted. */
const held = new WeakMap<Ctx, Map<string, Set<string>>>();

export interface VpcExternal {
  readonly rows: TableRow[];
  readonly problems: Problem[];
  /** lrp EIPs to create once committed (Kube-OVN's createOrUpdateOvnEipCR). */
  readonly eips: { name: string; subnet: string; v4Ip: string; v6Ip: string; macAddress: string }[];
  readonly subnets: string[];
}

/**
 * The rows of a VPC's external connections, and what stands in their way.
 *
 * @example externalRows(ctx, vpcView).rows // [] when enableExternal is false
 */
export function externalRows(ctx: Ctx, vpc: VpcView): VpcExternal {
  const out: VpcExternal = { rows: [], problems: [], eips: [], subnets: [] };
  const want = externalSubnetsOf(ctx, vpc);
  const problem = (field: string, message: string) =>
    out.problems.push({ code: 'InvalidVpcExternal', field, message, scope: [{ kind: 'vpc', name: vpc.name }] });
  if (want.problem) problem('spec.enableExternal', want.problem);
  const chassis = externalGatewayChassis(ctx);
  let mine = held.get(ctx);
  if (mine === undefined) held.set(ctx, (mine = new Map()));
  const before = mine.get(vpc.name) ?? new Set<string>();
  const now = new Set<string>();
  for (const subnet of want.subnets) {
    const field = vpc.extraExternalSubnets.length > 0 ? 'spec.extraExternalSubnets' : 'spec.enableExternal';
    const view = ctx.ipam.subnet(subnet);
    if (view === undefined) {
      problem(field, `external subnet ${subnet} does not exist (or is refused): not connected`);
      continue;
    }
    if (chassis.length === 0) {
      problem(field, `no node is labelled ${EXTERNAL_GW_LABEL}=true: no external gateway for ${subnet}`);
      continue;
    }
    const name = externalRouterPort(vpc.name, subnet);
    // Kube-OVN takes the address of an existing lrp OvnEip (a restart keeps it).
    const cr = ctx.cache('OvnEip').get(name);
    const e = cr === undefined ? undefined : ctx.decode(cr, decodeOvnEip).value;
    const ips = [e?.v4Ip ?? '', e?.v6Ip ?? ''].filter(Boolean).join(',');
    const a = ctx.ipam.allocate({
      subnet,
      owner: ovnEipOwner(name),
      ...(ips ? { ips } : {}),
      ...(ips && e?.macAddress ? { mac: e.macAddress } : {}),
    });
    if (!a.ok) {
      problem(field, `no address for the lrp EIP ${name}: ${a.error.message}`);
      continue;
    }
    now.add(name);
    const got = leaseAddresses(a.lease);
    const networks = [
      ...(got.v4 && view.config.v4 ? [`${got.v4}/${view.config.v4.cidr.prefix}`] : []),
      ...(got.v6 && view.config.v6 ? [`${got.v6}/${view.config.v6.cidr.prefix}`] : []),
    ];
    const t = externalPortRows({ vpc: vpc.name, subnet, networks, mac: got.mac, chassis });
    out.rows.push({ table: 'routerPort', row: t.routerPort }, { table: 'switchPort', row: t.switchPort });
    out.eips.push({ name, subnet, v4Ip: got.v4, v6Ip: got.v6, macAddress: got.mac });
    out.subnets.push(subnet);
  }
  for (const name of before) {
    // An lrp EIP no longer wanted goes back to its subnet, unless its OvnEip object still holds it.
    if (!now.has(name) && ctx.cache('OvnEip').get(name) === undefined) ctx.ipam.release(ovnEipOwner(name));
  }
  mine.set(vpc.name, now);
  return out;
}

/** A deleted VPC gives its lrp EIPs' addresses back (those whose OvnEip object is gone too). */
export function releaseExternal(ctx: Ctx, vpc: string): void {
  const mine = held.get(ctx);
  for (const name of mine?.get(vpc) ?? []) {
    if (ctx.cache('OvnEip').get(name) === undefined) ctx.ipam.release(ovnEipOwner(name));
  }
  mine?.delete(vpc);
}

/** Creates the lrp OvnEip objects Kube-OVN creates for a VPC's gateway ports, where missing. */
export async function createLrpEips(ctx: Ctx, eips: VpcExternal['eips']): Promise<void> {
  for (const e of eips) {
    if (ctx.cache('OvnEip').get(e.name) !== undefined) continue;
    const spec = { externalSubnet: e.subnet, v4Ip: e.v4Ip, v6Ip: e.v6Ip, macAddress: e.macAddress, type: 'lrp' };
    await ctx.cluster
      .create({
        apiVersion: 'kubeovn.io/v1',
        kind: 'OvnEip',
        metadata: {
          name: e.name,
          labels: { 'ovn.kubernetes.io/subnet': e.subnet, 'ovn.kubernetes.io/ovn_eip_type': 'lrp' },
        },
        spec,
      })
      .catch((err: unknown) => {
        if ((err as { reason?: string }).reason !== 'AlreadyExists') throw err;
      });
  }
}

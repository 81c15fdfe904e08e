/**
 * The underlay part of a Subnet's reconcile (pkg/controller/subnet.go:
 * validateSubnetVlan, util.ValidateSubnet's u2o checks, reconcileVlan,
 * reconcileSubnetSpecialIPs' u2o address, reconcileOvnDefaultVpcRoute's
 * underlay branch): what refuses an underlay subnet, the u2o address it holds,
 * and the rows it adds or drops (controller/translate/underlay.ts).
 */
import { containsIP, formatIPv4, formatIPv6, formatMAC, tryParseIP } from '../../model/addr/index.ts';
import type { SubnetConfig } from '../../model/ipam/index.ts';
import type { AddressSet, LogicalSwitchPort, RouterPolicy } from '../../model/topology/index.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { decodeNode, decodeVlan, type SubnetView } from '../../kube/objects/objects.ts';
import type { TableRow } from '../desired/store.ts';
import { type SubnetRows, subnetCidrs, subnetGateways } from '../translate/subnet.ts';
import { localnetPort, u2oOwner, u2oRows } from '../translate/underlay.ts';
import type { Ctx } from './context.ts';

/** An underlay subnet whose gateway is the physical one: no router port unless u2o (Kube-OVN's `Vlan != "" && !LogicalGateway`). */
export const physicalGateway = (s: Pick<SubnetView, 'vlan' | 'logicalGateway'>): boolean =>
  s.vlan !== '' && !s.logicalGateway;

/** u2o as Kube-OVN's formatSubnet leaves it: only on an underlay subnet. */
export const u2oOn = (s: Pick<SubnetView, 'vlan' | 'u2oInterconnection' | 'logicalGateway'>): boolean =>
  s.vlan !== '' && s.u2oInterconnection && !s.logicalGateway;

interface Bad {
  readonly field: string;
  readonly message: string;
}

/** The Vlan a subnet names, resolved: its provider and id, or what refuses the subnet. */
export function subnetVlan(ctx: Ctx, s: SubnetView): { provider: string; id: number } | Bad {
  const o = ctx.cache('Vlan').get(s.vlan);
  if (o === undefined) return { field: 'spec.vlan', message: `spec.vlan: Vlan ${s.vlan} does not exist` };
  const v = ctx.decode(o, decodeVlan).value;
  if (ctx.cache('ProviderNetwork').get(v.provider) === undefined)
    return {
      field: 'spec.vlan',
      message: `spec.vlan: Vlan ${s.vlan}'s provider network ${v.provider} does not exist (the vlan is not ready)`,
    };
  const other = vlanConflict(ctx, s.vlan, v.provider, v.id);
  if (other !== undefined)
    return {
      field: 'spec.vlan',
      message: `subnet has invalid conflict vlan ${s.vlan}: provider ${v.provider} vlan ${v.id} is also Vlan ${other}'s`,
    };
  return { provider: v.provider, id: v.id };
}

/** Another Vlan with the same provider and a non-zero id (Kube-OVN's checkVlanConflict), by name. */
export function vlanConflict(ctx: Ctx, name: string, provider: string, id: number): string | undefined {
  if (id === 0) return undefined;
  for (const o of ctx.cache('Vlan').list()) {
    if (o.metadata.name === name) continue;
    const v = ctx.decode(o, decodeVlan).value;
    if (v.provider === provider && v.id === id) return o.metadata.name;
  }
  return undefined;
}

/** util.ValidateSubnet's underlay checks (logicalGateway with u2o; the u2o address in the CIDR, not the gateway). */
export function checkU2o(s: SubnetView, config: SubnetConfig): Bad[] {
  if (s.logicalGateway && s.u2oInterconnection)
    return [
      {
        field: 'spec.u2oInterconnection',
        message: "logicalGateway and u2oInterconnection can't be opened at the same time",
      },
    ];
  if (!u2oOn(s) || s.u2oInterconnectionIP === '') return [];
  const gateways = subnetGateways(config);
  const bad: Bad[] = [];
  for (const text of s.u2oInterconnectionIP.split(',').map((x) => x.trim())) {
    const ip = tryParseIP(text);
    const family = ip?.family === 4 ? config.v4 : ip?.family === 6 ? config.v6 : undefined;
    if (ip === undefined || family === undefined || !containsIP(family.cidr, ip))
      bad.push({
        field: 'spec.u2oInterconnectionIP',
        message: `u2oInterconnectionIP ${text} is not in subnet ${config.name} cidr ${config.spec.cidrBlock}`,
      });
    else if (gateways.includes(text))
      bad.push({
        field: 'spec.u2oInterconnectionIP',
        message: `u2oInterconnectionIP ${text} conflicts with subnet gateway ${gateways.join(',')}`,
      });
  }
  return bad;
}

/** What an underlay subnet adds: its localnet port, and with u2o its router port's address, policies and sets. */
export interface UnderlayPlan {
  readonly localnet: LogicalSwitchPort;
  /** The switch keeps a router port (logicalGateway, or u2o with its address). */
  readonly routed: boolean;
  /** u2o: the router port's networks and MAC, and the status Kube-OVN writes. */
  readonly u2o?: { readonly networks: string[]; readonly mac: string; readonly ips: string[] };
  readonly policies: readonly RouterPolicy[];
  readonly addressSets: readonly AddressSet[];
}

/**
 * The subnet's u2o address: its lease `u2o-interconnection.<vpc>.<subnet>`
 * (the address asked for, else the lowest free one), or released when u2o is
 * off. A failed allocation refuses the subnet.
 */
function u2oLease(
  ctx: Ctx,
  s: SubnetView,
  config: SubnetConfig,
  vpc: string,
  held: string,
): { ips: string[]; mac: string } | Bad {
  const owner = u2oOwner(vpc, config.name);
  // A lease under another VPC's name (the subnet moved), or of u2o turned off, goes (releaseU2OIP).
  for (const v of ctx.cache('Vpc').list()) {
    const stale = u2oOwner(v.metadata.name, config.name);
    if ((stale !== owner || !u2oOn(s)) && ctx.ipam.lookup(stale) !== undefined) ctx.ipam.release(stale);
  }
  if (!u2oOn(s)) return { ips: [], mac: '' };
  // Asked for, else the one its status holds (a restarted controller keeps it), else the lowest free.
  const ask = s.u2oInterconnectionIP || held;
  const a = ctx.ipam.allocate({ subnet: config.name, owner, ...(ask !== '' ? { ips: ask } : {}) });
  if (!a.ok) return { field: 'spec.u2oInterconnectionIP', message: a.error.message };
  const ips = [
    ...(a.lease.v4 !== undefined ? [formatIPv4(a.lease.v4)] : []),
    ...(a.lease.v6 !== undefined ? [formatIPv6(a.lease.v6)] : []),
  ];
  return { ips, mac: formatMAC(a.lease.mac) };
}

/**
 * `held`: the u2o address(es) of the subnet's status (kept across restarts).
 *
 * @example underlayPlan(ctx, view, config, 'ovn-cluster', '') // { localnet: { name: 'localnet.vlan-sub', ... }, routed: false, ... }
 */
export function underlayPlan(
  ctx: Ctx,
  s: SubnetView,
  config: SubnetConfig,
  vpc: string,
  held: string,
): UnderlayPlan | Bad {
  const vlan = subnetVlan(ctx, s);
  if ('field' in vlan) return vlan;
  const cidrs = subnetCidrs(config);
  const lease = u2oLease(ctx, s, config, vpc, held);
  if ('field' in lease) return lease;
  const localnet = localnetPort(config.name, vlan.provider, vlan.id, cidrs);
  if (!u2oOn(s)) return { localnet, routed: s.logicalGateway, policies: [], addressSets: [] };
  const prefix = (ip: string) => (ip.includes(':') ? config.v6!.cidr.prefix : config.v4!.cidr.prefix);
  const nodeIps = ctx
    .cache('Node')
    .list()
    .flatMap((n) => ctx.decode(n, decodeNode).value.internalIPs);
  const rows = u2oRows({
    subnet: config.name,
    router: vpc,
    defaultVpc: vpc === ctx.settings.clusterRouter,
    cidrs,
    gateways: subnetGateways(config),
    nodeIps,
  });
  return {
    localnet,
    routed: true,
    u2o: { networks: lease.ips.map((ip) => `${ip}/${prefix(ip)}`), mac: lease.mac, ips: lease.ips },
    ...rows,
  };
}

/**
 * The annotations Kube-OVN writes on a pod of an underlay subnet
 * (pkg/controller/pod.go): `vlan_id` and `provider_network` from its Vlan;
 * no `logical_router` when the gateway is the physical one and u2o is off
 * (the pod is not routed by OVN). `null` removes a key.
 *
 * @example underlayPodAnnotations(ctx, view) // { 'ovn.kubernetes.io/vlan_id': '100', 'ovn.kubernetes.io/provider_network': 'net1' }
 */
export function underlayPodAnnotations(ctx: Ctx, s: SubnetView): Record<string, string | null> {
  const keys = ['ovn.kubernetes.io/vlan_id', 'ovn.kubernetes.io/provider_network'];
  if (s.vlan === '') return Object.fromEntries(keys.map((k) => [k, null]));
  const vlan = subnetVlan(ctx, s);
  const out: Record<string, string | null> =
    'field' in vlan ? {} : { [keys[0]!]: String(vlan.id), [keys[1]!]: vlan.provider };
  if (physicalGateway(s) && !u2oOn(s)) out['ovn.kubernetes.io/logical_router'] = null;
  return out;
}

/** The u2o address of the subnet's status, when it was given under this VPC. */
export function heldU2o(o: KubeObject, vpc: string): string {
  const st = (o as { status?: { u2oInterconnectionIP?: unknown; u2oInterconnectionVPC?: unknown } }).status;
  return st?.u2oInterconnectionVPC === vpc && typeof st.u2oInterconnectionIP === 'string'
    ? st.u2oInterconnectionIP
    : '';
}

/**
 * The subnet's router attachment and underlay rows: its router port and patch
 * port unless the gateway is the physical one without u2o (the u2o port on the
 * u2o address and MAC), its localnet port, the u2o policies and sets.
 */
export function underlayRows(
  t: Pick<SubnetRows, 'routerPort' | 'switchPort'>,
  underlay: UnderlayPlan | undefined,
): TableRow[] {
  const u2o = underlay?.u2o;
  const routerPort = u2o ? { ...t.routerPort, networks: u2o.networks, mac: u2o.mac } : t.routerPort;
  const rows: TableRow[] =
    underlay === undefined || underlay.routed
      ? [
          { table: 'routerPort', row: routerPort },
          { table: 'switchPort', row: t.switchPort },
        ]
      : [];
  if (underlay === undefined) return rows;
  rows.push({ table: 'switchPort', row: underlay.localnet });
  for (const row of underlay.policies) rows.push({ table: 'routerPolicy', row });
  for (const row of underlay.addressSets) rows.push({ table: 'addressSet', row });
  return rows;
}

/**
 * Underlay subnets (a Subnet with `vlan`): the rows Kube-OVN writes for them
 * beyond an overlay subnet's, as facts from its pkg/controller/subnet.go and
 * pkg/ovs:
 *
 * - the localnet port `localnet.<subnet>` (ovs.GetLocalnetName,
 *   CreateLocalnetLogicalSwitchPort): type localnet, addresses `unknown`,
 *   options:network_name = the Vlan's provider, `tag` = the Vlan's id when
 *   1..4095 (0: untagged), external_ids ls / ipv4_network / ipv6_network;
 * - the gateway is the physical one (`logicalGateway` false): the switch has
 *   no router port and the subnet none of the default VPC's subnet policies,
 *   unless `u2oInterconnection`, which gives it a router port with the u2o
 *   address (`needRouter` in handleAddOrUpdateSubnet) and the default u2o
 *   policies (addPolicyRouteForU2OInterconn): 29400 `ip4.dst == <cidr>` allow
 *   (default VPC only), 31000 `ip4.dst == $<subnet>.u2o_exclude_ip.ip4 &&
 *   ip4.src == <cidr>` reroute to the physical gateway (default VPC only),
 *   29000 `ip4.src == <cidr>` reroute to the physical gateway; the address set
 *   of node addresses `<subnet>.u2o_exclude_ip.ip4` (dashes as dots), all with
 *   external_ids subnet and isU2ORoutePolicy;
 * - with `logicalGateway` the subnet is routed as an overlay one (router port
 *   on its gateway address, the default VPC's policies), plus the localnet port.
 */
import { parseMatch } from '../../model/match/index.ts';
import type { AddressSet, LogicalSwitchPort, RouterPolicy } from '../../model/topology/index.ts';
import { dotted } from './names.ts';

/** Kube-OVN's U2OSubnetPolicyPriority (pkg/util/const.go). */
export const U2O_SUBNET_POLICY_PRIORITY = 29400;
const SUBNET_POLICY_PRIORITY = 31000;
const GATEWAY_POLICY_PRIORITY = 29000;

/** `localnet.<subnet>` (Kube-OVN's ovs.GetLocalnetName). */
export const localnetPortName = (subnet: string): string => `localnet.${subnet}`;

/** `u2o-interconnection.<vpc>.<subnet>`: the IPAM owner (and IP object) of a subnet's u2o address. */
export const u2oOwner = (vpc: string, subnet: string): string => `u2o-interconnection.${vpc}.${subnet}`;

/** `<subnet>.u2o_exclude_ip.<ip4|ip6>` with dashes as dots (util.U2OExcludeIPAg). */
export const u2oExcludeSet = (subnet: string, family: 'ip4' | 'ip6'): string =>
  dotted(`${subnet}.u2o_exclude_ip.${family}`);

/**
 * @example localnetPort('vlan-sub', 'net1', 100, ['172.17.0.0/16'])
 *   // { name: 'localnet.vlan-sub', type: 'localnet', addresses: ['unknown'], options: { network_name: 'net1' }, tag: 100, ... }
 */
export function localnetPort(
  subnet: string,
  provider: string,
  vlanId: number,
  cidrs: readonly string[],
): LogicalSwitchPort {
  const externalIds: Record<string, string> = { ls: subnet };
  const v4 = cidrs.find((c) => !c.includes(':'));
  const v6 = cidrs.find((c) => c.includes(':'));
  if (v4 !== undefined) externalIds.ipv4_network = v4;
  if (v6 !== undefined) externalIds.ipv6_network = v6;
  return {
    name: localnetPortName(subnet),
    switch: subnet,
    type: 'localnet',
    addresses: ['unknown'],
    portSecurity: [],
    options: { network_name: provider },
    ...(vlanId > 0 && vlanId < 4096 ? { tag: vlanId } : {}),
    externalIds,
  };
}

export interface U2oInput {
  readonly subnet: string;
  readonly router: string;
  /** The router is the default VPC's (the 29400 and 31000 policies are written only there). */
  readonly defaultVpc: boolean;
  /** The subnet's CIDRs (network addresses), v4 first. */
  readonly cidrs: readonly string[];
  /** The physical gateway of each family (`spec.gateway`), v4 first. */
  readonly gateways: readonly string[];
  /** The nodes' InternalIPs (the exclude sets' addresses). */
  readonly nodeIps: readonly string[];
}

const familyOf = (a: string): 'ip4' | 'ip6' => (a.includes(':') ? 'ip6' : 'ip4');

/**
 * The default u2o policies and exclude sets of one underlay subnet.
 *
 * @example u2oRows({ subnet: 'vlan-sub', router: 'ovn-cluster', defaultVpc: true, cidrs: ['172.17.0.0/16'],
 *   gateways: ['172.17.0.1'], nodeIps: ['192.168.0.2'] }).policies.map((p) => p.priority) // [29400, 31000, 29000]
 */
export function u2oRows(input: U2oInput): { policies: RouterPolicy[]; addressSets: AddressSet[] } {
  const externalIds = { subnet: input.subnet, isU2ORoutePolicy: 'true' };
  const addressSets = (['ip4', 'ip6'] as const).map(
    (f): AddressSet => ({
      name: u2oExcludeSet(input.subnet, f),
      addresses: input.nodeIps.filter((ip) => familyOf(ip) === f),
      externalIds,
    }),
  );
  const policies: RouterPolicy[] = [];
  const policy = (priority: number, match: string, nexthop?: string): RouterPolicy => ({
    router: input.router,
    priority,
    match: parseMatch(match),
    action: nexthop === undefined ? 'allow' : 'reroute',
    nexthops: nexthop === undefined ? [] : [nexthop],
    options: {},
    externalIds,
  });
  for (const cidr of input.cidrs) {
    const ip = familyOf(cidr);
    const gw = input.gateways.find((g) => familyOf(g) === ip);
    if (input.defaultVpc) policies.push(policy(U2O_SUBNET_POLICY_PRIORITY, `${ip}.dst == ${cidr}`));
    if (gw === undefined) continue;
    if (input.defaultVpc)
      policies.push(
        policy(SUBNET_POLICY_PRIORITY, `${ip}.dst == $${u2oExcludeSet(input.subnet, ip)} && ${ip}.src == ${cidr}`, gw),
      );
    policies.push(policy(GATEWAY_POLICY_PRIORITY, `${ip}.src == ${cidr}`, gw));
  }
  return { policies, addressSets };
}

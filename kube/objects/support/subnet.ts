/**
 * kubeovn.io/v1 Subnet: what kovn does with each spec field
 * (pkg/apis/kubeovn/v1/subnet.go; see ../support.ts for the states).
 */
import type { FieldSupport, KindSupport } from '../support.ts';

const acted = (path: string, note?: string): FieldSupport => ({ path, state: 'acted', ...(note ? { note } : {}) });
const ignored = (path: string, note: string, extra: Partial<FieldSupport> = {}): FieldSupport => ({
  path,
  state: 'ignored',
  note,
  ...extra,
});

const UNDERLAY = 'underlay networks (ProviderNetwork, Vlan, localnet ports) are not modelled yet';
const U2O = 'underlay-to-overlay interconnection needs underlay subnets, which are not modelled yet';
const DHCP =
  'DHCP_Options rows are not written; pods get their addresses from IPAM annotations, so no probe depends on them';

export const SUBNET_SUPPORT: KindSupport = {
  kind: 'Subnet',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec', 'spec.acls[]'],
  fields: [
    acted(
      'spec.default',
      "only the controller's --default-ls subnet is the default one (Kube-OVN resets it elsewhere)",
    ),
    acted('spec.vpc'),
    acted('spec.protocol', 'checked against cidrBlock'),
    acted('spec.namespaces'),
    acted('spec.namespaceSelectors'),
    acted('spec.cidrBlock'),
    acted('spec.gateway'),
    acted('spec.excludeIps'),
    {
      path: 'spec.provider',
      state: 'limited',
      note: 'only the ovn provider: a Subnet of an attachment network (Multus) is not modelled',
      limitation: (v) =>
        typeof v === 'string' && v !== '' && v !== 'ovn' && !v.endsWith('.ovn')
          ? `provider ${JSON.stringify(v)} is an attachment network's subnet (Multus), not modelled: kovn treats it as an overlay subnet`
          : undefined,
    },
    acted('spec.gatewayType', '"" is distributed, as in Kube-OVN'),
    {
      path: 'spec.gatewayNode',
      state: 'limited',
      note: 'every listed gateway node is a next hop at once (ECMP, as Kube-OVN does with enableEcmp); without enableEcmp Kube-OVN uses the first ready node only, which gives a probe the same verdict',
      verdict: 'none',
    },
    acted('spec.gatewayNodeSelectors'),
    {
      path: 'spec.natOutgoing',
      state: 'limited',
      note: "the SNAT itself is the node's iptables rule in Kube-OVN and is not modelled; probes to outside hosts do not depend on it (the outside routes replies back to whatever source it sees)",
      verdict: 'none',
    },
    ignored('spec.externalEgressGateway', 'policy routing to an external egress gateway is not modelled yet'),
    ignored('spec.policyRoutingPriority', 'used only with externalEgressGateway, which is not modelled yet'),
    ignored('spec.policyRoutingTableID', 'used only with externalEgressGateway, which is not modelled yet'),
    ignored('spec.mtu', "the MTU is the node agent's; probes are small packets", { verdict: 'none' }),
    acted('spec.private'),
    acted('spec.allowSubnets'),
    ignored('spec.vlan', UNDERLAY),
    ignored('spec.vips', "the subnet's virtual IPs are not reserved or programmed yet"),
    ignored('spec.logicalGateway', UNDERLAY),
    ignored('spec.disableGatewayCheck', "the gateway check is the node agent's", { verdict: 'none' }),
    ignored('spec.disableInterConnection', 'OVN interconnection (OVN-IC) is not modelled yet', { verdict: 'none' }),
    ignored('spec.enableDHCP', DHCP, { verdict: 'none' }),
    ignored('spec.dhcpV4Options', DHCP, { verdict: 'none' }),
    ignored('spec.dhcpV6Options', DHCP, { verdict: 'none' }),
    ignored('spec.enableIPv6RA', 'router advertisements are not written; pods get their addresses from IPAM', {
      verdict: 'none',
    }),
    ignored('spec.ipv6RAConfigs', 'router advertisements are not written; pods get their addresses from IPAM', {
      verdict: 'none',
    }),
    acted('spec.acls[]'),
    acted('spec.acls[].direction'),
    acted('spec.acls[].priority'),
    acted('spec.acls[].match'),
    acted('spec.acls[].action'),
    acted('spec.allowEWTraffic'),
    ignored('spec.natOutgoingPolicyRules', 'per-destination SNAT rules are not modelled yet'),
    ignored('spec.u2oInterconnectionIP', U2O),
    ignored('spec.u2oInterconnection', U2O),
    ignored('spec.u2oFeatures', U2O),
    acted('spec.enableLb'),
    {
      path: 'spec.enableEcmp',
      state: 'limited',
      note: 'kovn always uses every gateway node (ECMP); active-backup gives a probe the same verdict',
      verdict: 'none',
    },
    ignored('spec.enableMulticastSnoop', 'multicast is not modelled; probes are unicast', { verdict: 'none' }),
    ignored('spec.enableExternalLBAddress', 'LoadBalancer Service addresses from the subnet are not modelled yet'),
    acted(
      'spec.routeTable',
      "the router port's options:route_table: traffic from the subnet is routed by that table's static routes and the connected networks, not by the main table's static routes (OVN 23.03)",
    ),
    ignored('spec.nodeNetwork', UNDERLAY),
  ],
};

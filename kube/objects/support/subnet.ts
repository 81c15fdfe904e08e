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

const U2O_ONLY = 'overlay-only routing (u2oFeatures) is not modelled: the default u2o policies are written';
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
      note: "ovn, and <nad>.<ns>.ovn: a kube-ovn attachment network's subnet (its pods' second interfaces); an IPAM-only provider <nad>.<ns> (macvlan, ipvlan) is not modelled",
      limitation: (v) =>
        typeof v === 'string' && v !== '' && v !== 'ovn' && !v.endsWith('.ovn')
          ? `provider ${JSON.stringify(v)} is an IPAM-only attachment network's subnet (macvlan, ipvlan), not modelled: kovn treats it as an overlay subnet`
          : undefined,
    },
    acted('spec.gatewayType', '"" is distributed, as in Kube-OVN'),
    acted(
      'spec.gatewayNode',
      'as Kube-OVN chooses: primary-backup (the active gateway, status.activateGateway, stays while ready; else the first ready node in the list), or every ready node with enableEcmp',
    ),
    acted(
      'spec.gatewayNodeSelectors',
      "when gatewayNode is empty; the selected nodes are taken by name (Kube-OVN's order is a Go map's, unspecified)",
    ),
    acted(
      'spec.natOutgoing',
      "the SNAT is the gateway node's iptables rule in Kube-OVN (pkg/daemon/gateway_linux.go), modelled where a probe leaves the cluster (a probe's `snat`), the same on sim and ovn; the lab's nodes do not masquerade",
    ),
    acted(
      'spec.externalEgressGateway',
      "checked as Kube-OVN's validator checks it (not with natOutgoing, addresses of the subnet's families); Kube-OVN writes no NB rows for it: its node agent's policy routing to the gateway is modelled where the probe leaves the cluster (the gateway node, unmasqueraded; `kovn trace` names the gateway), the same on sim and ovn; the lab's nodes do not route to it",
    ),
    acted(
      'spec.policyRoutingPriority',
      "the node agent's ip rule priority for externalEgressGateway (named in the trace)",
    ),
    acted(
      'spec.policyRoutingTableID',
      "the node agent's routing table for externalEgressGateway (named in the trace); two subnets with externalEgressGateway may not share it (the later is refused, as Kube-OVN's checkSubnetConflict)",
    ),
    ignored('spec.mtu', "the MTU is the node agent's; probes are small packets", { verdict: 'none' }),
    acted('spec.private'),
    acted('spec.allowSubnets'),
    acted(
      'spec.vlan',
      "an underlay subnet: its switch gets the localnet port localnet.<subnet> (the Vlan's provider and id), and its gateway is the physical one unless logicalGateway or u2oInterconnection",
    ),
    ignored('spec.vips', "the subnet's virtual IPs are not reserved or programmed yet"),
    acted('spec.logicalGateway', 'an underlay subnet keeps its router port and routes, as an overlay one'),
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
    acted(
      'spec.natOutgoingPolicyRules',
      "checked as Kube-OVN's validator does; their IDs in status.natOutgoingPolicyRules; the node's nat/forward marks decide a probe's `snat` (no NB rows: Kube-OVN writes none, its node agent does it in iptables)",
    ),
    acted('spec.u2oInterconnectionIP', 'allocated from the subnet when not given (status.u2oInterconnectionIP)'),
    acted(
      'spec.u2oInterconnection',
      "the router port with the u2o address and Kube-OVN's default u2o policies (29400, 31000, 29000)",
    ),
    ignored('spec.u2oFeatures', U2O_ONLY),
    acted('spec.enableLb'),
    acted('spec.enableEcmp', "a centralized subnet's 29000 policy has every ready gateway node as a next hop"),
    ignored('spec.enableMulticastSnoop', 'multicast is not modelled; probes are unicast', { verdict: 'none' }),
    ignored('spec.enableExternalLBAddress', 'LoadBalancer Service addresses from the subnet are not modelled yet'),
    acted(
      'spec.routeTable',
      "the router port's options:route_table: traffic from the subnet is routed by that table's static routes and the connected networks, not by the main table's static routes (OVN 23.03)",
    ),
    ignored('spec.nodeNetwork', "the node network of an underlay subnet's tunnel is the node agent's", {
      verdict: 'none',
    }),
  ],
};

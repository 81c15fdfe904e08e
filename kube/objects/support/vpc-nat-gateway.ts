/**
 * kubeovn.io/v1 VpcNatGateway and the iptables rules of its gateway pod
 * (IptablesEIP, IptablesFIPRule, IptablesSnatRule, IptablesDnatRule;
 * pkg/apis/kubeovn/v1/vpc-nat-gateway.go, iptables-*.go; see ../support.ts
 * for the states). kovn models Kube-OVN's StatefulSet mode (one replica):
 * the gateway pod is the StatefulSet's pod on the VPC subnet with `lanIp`,
 * and the NAT its pod applies is the simulator's appliance model
 * (sim/appliance/), with the external side (a Multus macvlan attachment in
 * Kube-OVN) modelled as the outside network.
 */
import { type FieldSupport, type KindSupport, zero } from '../support.ts';

const acted = (path: string, note?: string): FieldSupport => ({ path, state: 'acted', ...(note ? { note } : {}) });
const ignored = (path: string, note: string, verdict: 'none' | 'may-change' = 'may-change'): FieldSupport => ({
  path,
  state: 'ignored',
  note,
  verdict,
});
const HA = 'HA mode (replicas > 1: a Deployment, BFD, policy routes per internal CIDR) is not modelled';
const EXTERNAL =
  'the external network is modelled as the outside (its Multus macvlan attachment is not): the EIP needs spec.v4ip';

export const VPC_NAT_GATEWAY_SUPPORT: KindSupport = {
  kind: 'VpcNatGateway',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [
    acted('spec.vpc', 'must exist; the gateway pod sits on one of its subnets'),
    acted('spec.subnet', "the gateway pod's logical switch (ovn.kubernetes.io/logical_switch)"),
    acted('spec.lanIp', "the gateway pod's address (ovn.kubernetes.io/ip_address), the next hop of the VPC's routes"),
    acted('spec.namespace', 'where the StatefulSet and its pod live (default kube-system)'),
    acted('spec.selector', "the gateway pod's nodeSelector (key: value entries)"),
    acted('spec.tolerations', "the gateway pod's tolerations"),
    acted('spec.affinity', "the gateway pod's affinity"),
    {
      path: 'spec.externalSubnets',
      state: 'limited',
      note: `${EXTERNAL}; the first entry names the external network, as in Kube-OVN`,
      verdict: 'none',
    },
    {
      path: 'spec.replicas',
      state: 'limited',
      note: HA,
      inert: (v) => zero(v) || v === 1,
      limitation: (v) => (typeof v === 'number' && v > 1 ? `replicas ${v}: ${HA}; one gateway pod is made` : undefined),
    },
    ignored('spec.qosPolicy', 'rate limits in the gateway pod (tc) change no verdict', 'none'),
    ignored('spec.bgpSpeaker', 'BGP announcement of EIPs is outside the cluster network', 'none'),
    ignored('spec.bfd', HA),
    ignored('spec.internalSubnets', HA),
    ignored('spec.internalCIDRs', HA),
    ignored('spec.routes', "extra routes inside the gateway pod are not modelled: it routes the VPC's CIDRs back"),
    ignored('spec.noDefaultEIP', 'the default EIP of the gateway is not modelled', 'none'),
    ignored('spec.annotations', "user annotations of the gateway pod's template", 'none'),
  ],
};

const eipField = acted('spec.eip', "the IptablesEIP whose address the rule uses (its gateway is the EIP's natGwDp)");

export const IPTABLES_EIP_SUPPORT: KindSupport = {
  kind: 'IptablesEIP',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [
    acted('spec.natGwDp', 'the VpcNatGateway whose pod holds the address (eip-add)'),
    { path: 'spec.v4ip', state: 'limited', note: `${EXTERNAL}; an empty v4ip is refused` },
    ignored('spec.v6ip', 'IPv6 EIPs are not modelled'),
    ignored('spec.macAddress', "the EIP's MAC is on the modelled outside network", 'none'),
    {
      path: 'spec.externalSubnet',
      state: 'limited',
      note: `${EXTERNAL}; default ovn-vpc-external-network, as in Kube-OVN`,
      verdict: 'none',
    },
    ignored('spec.qosPolicy', 'rate limits in the gateway pod (tc) change no verdict', 'none'),
    ignored('spec.namespace', 'bookkeeping of the EIP', 'none'),
  ],
};

export const IPTABLES_FIP_RULE_SUPPORT: KindSupport = {
  kind: 'IptablesFIPRule',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [eipField, acted('spec.internalIp', 'EXCLUSIVE_DNAT to it and EXCLUSIVE_SNAT from it (floating-ip-add)')],
};

export const IPTABLES_SNAT_RULE_SUPPORT: KindSupport = {
  kind: 'IptablesSnatRule',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [eipField, acted('spec.internalCIDR', 'SHARED_SNAT from it out of the external interface (snat-add)')],
};

export const IPTABLES_DNAT_RULE_SUPPORT: KindSupport = {
  kind: 'IptablesDnatRule',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [
    eipField,
    acted('spec.externalPort'),
    acted('spec.protocol', 'tcp or udp (default tcp)'),
    acted('spec.internalIp'),
    acted('spec.internalPort'),
    ignored('spec.type', 'the shared (nftables map) DNAT type is not modelled: each rule is its own DNAT'),
  ],
};

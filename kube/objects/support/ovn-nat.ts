/**
 * kubeovn.io/v1 OvnEip, OvnFip, OvnSnatRule and OvnDnatRule: OVN-native
 * north-south NAT for VPCs (pkg/apis/kubeovn/v1/ovn-eip.go, ovn-fip.go,
 * ovn-snat-rule.go, ovn-dnat-rule.go; see ../support.ts for the states).
 */
import type { FieldSupport, KindSupport } from '../support.ts';

const acted = (path: string, note?: string): FieldSupport => ({ path, state: 'acted', ...(note ? { note } : {}) });

/** `ipType: vip` names a Vip, which kovn does not reserve yet: the rule is refused (fails closed). */
const VIP: FieldSupport = {
  path: 'spec.ipType',
  state: 'limited',
  note: "`vip` (a Vip's address) is refused until Vips are acted on: the rule is not applied and says so in its status; '' or `ip` (an IP object) is acted on",
  limitation: (v) =>
    v === 'vip' ? 'a Vip as the internal address is not acted on yet: the rule is not applied' : undefined,
};

export const OVN_EIP_SUPPORT: KindSupport = {
  kind: 'OvnEip',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [
    acted('spec.externalSubnet', 'default: the controller setting externalGatewaySwitch (`--external-gateway-switch`)'),
    acted('spec.v4Ip'),
    acted('spec.v6Ip'),
    acted('spec.macAddress', "kept as the EIP's MAC only when the address is given too, as Kube-OVN does"),
    {
      path: 'spec.type',
      state: 'limited',
      note: "`nat` (or '') and `lrp` are acted on; `lsp` (a bare switch port for a node's ECMP next hop) is not created",
      limitation: (v) =>
        v === 'lsp' ? 'type lsp: the bare switch port Kube-OVN creates for it is not created' : undefined,
    },
  ],
};

export const OVN_FIP_SUPPORT: KindSupport = {
  kind: 'OvnFip',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [
    acted('spec.ovnEip'),
    VIP,
    acted('spec.ipName', "an IP object (a pod's is `<pod>.<namespace>`)"),
    acted('spec.vpc'),
    acted('spec.v4Ip'),
    acted('spec.v6Ip'),
    acted('spec.type', '`distributed` makes the NAT row stateless, as Kube-OVN does'),
  ],
};

export const OVN_SNAT_RULE_SUPPORT: KindSupport = {
  kind: 'OvnSnatRule',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [
    acted('spec.ovnEip'),
    acted('spec.vpcSubnet'),
    acted('spec.ipName'),
    acted('spec.vpc'),
    acted('spec.v4IpCidr'),
    acted('spec.v6IpCidr'),
  ],
};

export const OVN_DNAT_RULE_SUPPORT: KindSupport = {
  kind: 'OvnDnatRule',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [
    acted('spec.ovnEip'),
    VIP,
    acted('spec.ipName'),
    acted('spec.internalPort'),
    acted('spec.externalPort'),
    acted('spec.protocol'),
    acted('spec.vpc'),
    acted('spec.v4Ip'),
    acted('spec.v6Ip'),
  ],
};

/**
 * Vip → its virtual switch port, Kube-OVN's way (pkg/controller/vip.go
 * handleUpdateVirtualParents, pkg/ovs/ovn-nb-logical_switch_port.go
 * CreateVirtualLogicalSwitchPort, SetVirtualLogicalSwitchPortVirtualParents):
 * a Vip with a namespace gets the port `<name>` on its subnet's switch, type
 * `virtual`, `options:virtual-ip` its address; `options:virtual-parents` the
 * ports of the pods of that namespace its selector picks that name it in
 * `ovn.kubernetes.io/aaps` (none for a `switch_lb_vip`).
 */
import type { LogicalSwitchPort } from '../../model/topology/index.ts';

export interface VipPortInput {
  readonly name: string;
  readonly subnet: string;
  /** Its addresses, v4 first (Kube-OVN's GetStringIP joins them with ','). */
  readonly ips: readonly string[];
  /** The virtual parents' port names. */
  readonly parents: readonly string[];
}

/**
 * @example vipPortRow({ name: 'vip1', subnet: 'net1', ips: ['192.168.0.9'], parents: [] }).options
 * // { 'virtual-ip': '192.168.0.9' }
 */
export function vipPortRow(v: VipPortInput): LogicalSwitchPort {
  return {
    name: v.name,
    switch: v.subnet,
    type: 'virtual',
    addresses: [],
    portSecurity: [],
    options: {
      'virtual-ip': v.ips.join(','),
      ...(v.parents.length > 0 ? { 'virtual-parents': [...v.parents].sort().join(',') } : {}),
    },
    externalIds: { ls: v.subnet, vip: v.name },
  };
}

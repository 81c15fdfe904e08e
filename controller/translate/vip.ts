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

export interface SwitchLbVipPortInput {
  /** Kube-OVN's PodNameToPortName(vip, namespace): `<name>.<namespace>` (`<name>.` for a Vip of no namespace). */
  readonly port: string;
  readonly vip: string;
  readonly subnet: string;
  readonly ips: readonly string[];
  /** The MAC of the subnet's router port (`<vpc>-<subnet>`). */
  readonly routerMac: string;
}

/**
 * A `switch_lb_vip` Vip's port, Kube-OVN's way (pkg/controller/vip.go
 * handleAddVirtualIP: CreateLogicalSwitchPort with the router port's MAC,
 * then SetLogicalSwitchPortArpProxy): a plain port whose addresses are the
 * router port's MAC and the VIP, so the switch answers a pod's ARP for a
 * SwitchLBRule VIP on its own subnet with the router's MAC, and the packet
 * meets the switch's load balancer.
 *
 * @example switchLbVipPortRow({ port: 'web-vip.', vip: 'web-vip', subnet: 'net1', ips: ['10.0.0.100'], routerMac: '0a:58:0a:00:00:01' }).addresses
 * // ['0a:58:0a:00:00:01 10.0.0.100']
 */
export function switchLbVipPortRow(v: SwitchLbVipPortInput): LogicalSwitchPort {
  return {
    name: v.port,
    switch: v.subnet,
    type: '',
    addresses: [[v.routerMac, ...v.ips].join(' ')],
    portSecurity: [],
    options: { arp_proxy: 'true' },
    externalIds: { vendor: 'kube-ovn', ls: v.subnet, vip: v.vip },
  };
}

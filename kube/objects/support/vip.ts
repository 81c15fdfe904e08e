/**
 * kubeovn.io/v1 Vip (pkg/apis/kubeovn/v1/vip.go; see ../support.ts for the
 * states). Kube-OVN's pkg/controller/vip.go reserves the address in the
 * subnet's IPAM and, for a Vip with a namespace, writes a `virtual` switch
 * port named after it whose virtual parents are the selected pods naming it
 * in `ovn.kubernetes.io/aaps`.
 */
import type { KindSupport } from '../support.ts';

export const VIP_SUPPORT: KindSupport = {
  kind: 'Vip',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [
    { path: 'spec.subnet', state: 'acted', note: 'the subnet whose IPAM reserves the address' },
    { path: 'spec.namespace', state: 'acted', note: 'with a namespace, the virtual switch port <name> is written' },
    {
      path: 'spec.type',
      state: 'limited',
      note:
        "switch_lb_vip: the address is reserved and the virtual port written; the ARP port Kube-OVN adds (the router port's MAC, " +
        'options:arp_proxy) is not, since in OVN 23.03 a second port with the router MAC makes two ls_in_l2_lkup flows of one ' +
        'match and priority (ovn-trace: "who cares" which wins) and arp_proxy is read on router ports only. So a pod on the ' +
        "VIP's own subnet gets no ARP answer for it and its probes to the VIP are denied (real packets agree); from the VPC's " +
        'other subnets the VIP is routed and load-balanced',
      verdict: 'none',
      inert: (v) => v === undefined || v === '',
    },
    { path: 'spec.v4ip', state: 'acted', note: 'reserved as given, else allocated' },
    { path: 'spec.v6ip', state: 'acted', note: 'reserved as given, else allocated' },
    { path: 'spec.macAddress', state: 'acted' },
    {
      path: 'spec.selector',
      state: 'limited',
      note: "the pods' ports become the virtual port's virtual-parents; their port security is not widened to the VIP",
    },
    {
      path: 'spec.attachSubnets',
      state: 'ignored',
      note: 'addresses in further subnets are not reserved',
      inert: (v) => v === undefined || (Array.isArray(v) && v.length === 0),
    },
  ],
};

/** Node (v1): what kovn reads (see ../support.ts). */
import type { KindSupport } from '../support.ts';
import { acted, ignored, OVN, output } from './annotations.ts';

export const NODE_SUPPORT: KindSupport = {
  kind: 'Node',
  apiVersion: 'v1',
  annotationPrefixes: [OVN],
  fields: [
    { path: 'metadata.labels', state: 'acted', note: 'nodeSelector, node affinity and gatewayNodeSelectors' },
    { path: 'spec.taints', state: 'acted', note: 'NoSchedule and NoExecute keep pods without a toleration away' },
    { path: 'spec.unschedulable', state: 'acted' },
    { path: 'status.addresses', state: 'acted', note: 'InternalIP: a default-VPC subnet may not contain it' },
    {
      path: 'status.conditions',
      state: 'acted',
      note: "Ready and NetworkUnavailable: a centralized subnet's gateway is a ready node (a node without a Ready condition counts as ready)",
    },
  ],
  annotations: [
    acted(`${OVN}ip_address`, "the node's join address (kept across restarts)"),
    acted(`${OVN}mac_address`),
    output(`${OVN}allocated`),
    output(`${OVN}cidr`),
    output(`${OVN}gateway`),
    output(`${OVN}logical_switch`),
    output(`${OVN}port_name`),
    ignored(`${OVN}chassis`, "the chassis binding is ovn-controller's", { verdict: 'none' }),
    ignored(`${OVN}tunnel_interface`, "the tunnel interface is the node agent's", { verdict: 'none' }),
    ignored(`${OVN}node_networks`, "the node agent's", { verdict: 'none' }),
  ],
};

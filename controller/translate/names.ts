/**
 * Kube-OVN's names and priorities, as facts (pkg/util/const.go and
 * pkg/ovs/*.go of Kube-OVN). A Kube-OVN user reading NB with ovn-nbctl finds
 * the rows under the names Kube-OVN would give them.
 */
import { podPortName } from '../../kube/annotations.ts';

/** ACL priorities (pkg/util/const.go). */
export const PRIORITY = {
  /** Private subnet: traffic from the node (join) subnet is allowed. */
  nodeAllow: 3000,
  /** NetworkPolicy allow rules, ingress and egress. */
  policyAllow: 2001,
  /** NetworkPolicy default drop. */
  policyDrop: 2000,
  /** Subnet `allowEWTraffic`. */
  allowEastWest: 1900,
  /** Private subnet: its own CIDR and `allowSubnets`. */
  subnetAllow: 1001,
  /** Private subnet: everything else. */
  subnetDrop: 1000,
} as const;

/** Logical router policy priorities (pkg/util/const.go). */
export const ROUTER_POLICY_PRIORITY = {
  gateway: 29000,
  node: 30000,
  subnet: 31000,
} as const;

/** Kube-OVN's name mangling for port groups and address sets: `-` → `.` (`allow-web.prod-ns` → `allow.web.prod.ns`). */
export const dotted = (s: string): string => s.replaceAll('-', '.');

/** The switch-side patch port of a subnet attached to a router: `<subnet>-<router>`. */
export function switchPatchPort(subnet: string, router: string): string {
  return `${subnet}-${router}`;
}

/** The router-side patch port: `<router>-<subnet>`. */
export function routerPatchPort(router: string, subnet: string): string {
  return `${router}-${subnet}`;
}

/** A pod's logical switch port: `<pod>.<namespace>`, with `.<provider>` for a provider other than ovn (the contract's). */
export const podPort: (pod: string, namespace: string, provider?: string) => string = podPortName;

/** A node's port on the join subnet: `node-<node>`. */
export function nodePort(node: string): string {
  return `node-${node}`;
}

export interface VpcLoadBalancers {
  readonly tcp: string;
  readonly udp: string;
  readonly sctp: string;
  readonly tcpSession: string;
  readonly udpSession: string;
  readonly sctpSession: string;
}

/**
 * The load balancers of a VPC (Kube-OVN's GenVpcLoadBalancer): the cluster
 * ones, named by the controller's flags, for the default VPC, and
 * `vpc-<name>-<proto>-load` / `vpc-<name>-<proto>-sess-load` for the others.
 */
export function vpcLoadBalancers(vpc: string, defaultVpc: string, cluster: VpcLoadBalancers): VpcLoadBalancers {
  if (vpc === defaultVpc) return cluster;
  return {
    tcp: `vpc-${vpc}-tcp-load`,
    udp: `vpc-${vpc}-udp-load`,
    sctp: `vpc-${vpc}-sctp-load`,
    tcpSession: `vpc-${vpc}-tcp-sess-load`,
    udpSession: `vpc-${vpc}-udp-sess-load`,
    sctpSession: `vpc-${vpc}-sctp-sess-load`,
  };
}

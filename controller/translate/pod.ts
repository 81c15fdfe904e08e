/**
 * A pod's allocation → its logical switch port and the annotations Kube-OVN
 * writes on the pod (pkg/ovs/ovn-nb-logical_switch_port.go
 * buildLogicalSwitchPort, pkg/controller/pod.go). The annotations follow
 * the contract of kube/annotations.ts (`<provider>.kubernetes.io/<key>`:
 * `ovn.` for the default network, the provider's own name for an attachment).
 */
import { encodePodNetwork } from '../../kube/annotations.ts';
import type { LogicalSwitchPort } from '../../model/topology/index.ts';
import { podPort } from './names.ts';

export interface PodAllocation {
  readonly pod: string;
  readonly namespace: string;
  /** `ovn` for the default network. */
  readonly provider?: string;
  readonly subnet: string;
  /** The VPC router's name (`logical_router`). */
  readonly router: string;
  readonly mac: string;
  /** One per family, v4 first. */
  readonly ips: readonly string[];
  /** The subnet's CIDRs and gateways, one per family, v4 first. */
  readonly cidrs: readonly string[];
  readonly gateways: readonly string[];
  /** `<provider>.kubernetes.io/port_security: "true"`. */
  readonly portSecurity?: boolean;
  /** Virtual IPs the port may also use (`<provider>.kubernetes.io/vip`), kept in port security. */
  readonly vips?: readonly string[];
  /** `<provider>.kubernetes.io/security_groups`, parsed (translate/security-group.ts podSecurityGroups). */
  readonly securityGroups?: readonly string[];
}

/**
 * @example
 * podPortRow({ pod: 'web-0', namespace: 'default', subnet: 'ovn-default', router: 'ovn-cluster',
 *   mac: '0a:58:0a:10:00:05', ips: ['10.16.0.5'], cidrs: ['10.16.0.0/16'], gateways: ['10.16.0.1'] }).addresses
 * // ['0a:58:0a:10:00:05 10.16.0.5']
 */
export function podPortRow(a: PodAllocation): LogicalSwitchPort {
  const addresses = [a.mac, ...a.ips].join(' ');
  const security = a.portSecurity ? [[addresses, ...(a.vips ?? [])].join(' ')] : [];
  const externalIds: Record<string, string> = { pod: `${a.namespace}/${a.pod}`, ls: a.subnet };
  if ((a.vips ?? []).length > 0) {
    externalIds.vips = (a.vips ?? []).join(',');
    externalIds['attach-vips'] = 'true';
  }
  // buildLogicalSwitchPort: the groups as `sg1/sg2` and one associated_sg_<sg> key each.
  if ((a.securityGroups ?? []).length > 0) {
    externalIds.security_groups = (a.securityGroups ?? []).join('/');
    for (const sg of a.securityGroups ?? []) externalIds[`associated_sg_${sg}`] = 'true';
  }
  return {
    name: podPort(a.pod, a.namespace, a.provider),
    switch: a.subnet,
    type: '',
    addresses: [addresses],
    portSecurity: security,
    options: {},
    externalIds,
  };
}

/**
 * The annotations the controller writes once the port is in NB. `routed` is
 * written with them: the port is committed when these are written.
 */
export function podAnnotations(a: PodAllocation): Record<string, string> {
  const network = {
    ips: a.ips,
    mac: a.mac,
    cidrs: a.cidrs,
    gateways: a.gateways,
    logicalSwitch: a.subnet,
    logicalRouter: a.router,
    podNicType: 'veth-pair',
    routed: true,
  };
  return encodePodNetwork(network, a.provider);
}

/**
 * A VPC's connection to an external subnet (Vpc `enableExternal`,
 * `extraExternalSubnets`), as Kube-OVN's handleAddVpcExternalSubnet writes
 * it (pkg/controller/vpc.go) through CreateLogicalPatchPort (pkg/ovs/ovn-nb.go):
 * the router port `<vpc>-<subnet>` with the address of the lrp EIP of the
 * same name, made a distributed gateway port by one Gateway_Chassis per
 * external gateway node (priority 100, 99, ... in the order of
 * sha256(vpc + chassis), which spreads the active gateways across VPCs), and
 * its peer, the switch port `<subnet>-<vpc>` of type router.
 */
import { createHash } from 'node:crypto';
import type { GatewayChassis, LogicalRouterPort, LogicalSwitchPort } from '../../model/topology/index.ts';

/** The router port (and lrp EIP) of a VPC on an external subnet. */
export const externalRouterPort = (vpc: string, subnet: string): string => `${vpc}-${subnet}`;
/** The switch port facing it on the external subnet. */
export const externalSwitchPort = (vpc: string, subnet: string): string => `${subnet}-${vpc}`;

/**
 * The gateway chassis of a VPC's external port: Kube-OVN sorts the chassis
 * by the hex sha256 of `vpc + chassis` and gives them priorities 100, 99, ...
 *
 * @example gatewayChassisFor('vpc1', ['node1']) // [{ chassisName: 'node1', priority: 100 }]
 */
export function gatewayChassisFor(vpc: string, chassis: readonly string[]): GatewayChassis[] {
  const hash = (c: string) =>
    createHash('sha256')
      .update(vpc + c)
      .digest('hex');
  return [...chassis]
    .map((c) => ({ c, h: hash(c) }))
    .sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0))
    .map(({ c }, i) => ({ chassisName: c, priority: 100 - i }));
}

export interface ExternalPortInput {
  readonly vpc: string;
  readonly subnet: string;
  /** The lrp EIP's addresses with the external subnet's prefix (`172.18.0.2/16`), v4 first. */
  readonly networks: readonly string[];
  readonly mac: string;
  /** Chassis names of the external gateway nodes, in any order. */
  readonly chassis: readonly string[];
}

/**
 * @example
 * externalPortRows({ vpc: 'vpc1', subnet: 'external', networks: ['172.18.0.2/16'], mac: '00:00:00:aa:bb:cc', chassis: ['n1'] })
 *   .routerPort.name // 'vpc1-external'
 */
export function externalPortRows(input: ExternalPortInput): {
  routerPort: LogicalRouterPort;
  switchPort: LogicalSwitchPort;
} {
  const lrp = externalRouterPort(input.vpc, input.subnet);
  return {
    routerPort: {
      name: lrp,
      router: input.vpc,
      mac: input.mac,
      networks: [...input.networks],
      gatewayChassis: gatewayChassisFor(input.vpc, input.chassis),
      options: {},
      externalIds: { vpc: input.vpc, 'external-subnet': input.subnet },
    },
    switchPort: {
      name: externalSwitchPort(input.vpc, input.subnet),
      switch: input.subnet,
      type: 'router',
      addresses: ['router'],
      portSecurity: [],
      options: { 'router-port': lrp },
      externalIds: { vpc: input.vpc, 'external-subnet': input.subnet },
    },
  };
}

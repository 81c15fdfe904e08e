/**
 * Node → what Kube-OVN's controller puts in NB for it (pkg/controller/node.go,
 * pkg/controller/subnet.go); the `ovn0` side belongs to the node agent:
 * - the join port `node-<node>` on the join subnet's switch, with the join
 *   address and MAC the controller allocated (kept in the Node's annotations);
 * - per family, the router policy at 30000 `ipN.dst == <node internal IP>`
 *   reroute to the node's join address (pod → node traffic enters the node
 *   through its own ovn0);
 * - the node's port group `node.<node>` (`-` → `.`, from the port name) of the
 *   pods on the node, and while any NetworkPolicy exists its 3000 allow-related
 *   ACLs for node ↔ pod traffic;
 * - for each distributed-gateway subnet of the default VPC, the port group
 *   `<subnet>.<node>` of that subnet's pods on the node and the policy at 29000
 *   `ipN.src == $<subnet>.<node>_ipN` reroute to the node's join address, so
 *   that outbound traffic leaves through the pod's own node.
 * Pods join the port groups by contribution (see podNodeMemberships), so one
 * pod's change is one member, not the node's whole list.
 */
import { parseMatch } from '../../model/match/index.ts';
import type { ACL, LogicalSwitchPort, PortGroup, RouterPolicy } from '../../model/topology/index.ts';
import type { Contribution } from '../desired/store.ts';
import { dotted, nodePort, PRIORITY, ROUTER_POLICY_PRIORITY } from './names.ts';

export interface NodeInput {
  readonly name: string;
  readonly joinSwitch: string;
  readonly router: string;
  readonly joinMac: string;
  /** Join addresses, v4 first. */
  readonly joinIps: readonly string[];
  /** `InternalIP` addresses of the Node's status; the join address of a family stands in where it has none. */
  readonly internalIps: readonly string[];
  /** Distributed-gateway subnets of the default VPC (the join subnet excluded) and their CIDRs. */
  readonly distributedSubnets: readonly { readonly name: string; readonly cidrs: readonly string[] }[];
  readonly networkPolicyExists: boolean;
}

export interface NodeRows {
  readonly port: LogicalSwitchPort;
  readonly policies: readonly RouterPolicy[];
  readonly portGroups: readonly PortGroup[];
  readonly acls: readonly ACL[];
}

const v6 = (ip: string) => ip.includes(':');
const fam = (ip: string) => (v6(ip) ? 'ip6' : 'ip4');

/** The node's own port group: its port name with `-` → `.`. */
export function nodePortGroup(node: string): string {
  return dotted(nodePort(node));
}

/** The per-node port group of a distributed-gateway subnet. */
export function subnetNodePortGroup(subnet: string, node: string): string {
  return dotted(`${subnet}.${node}`);
}

export function nodeRows(n: NodeInput): NodeRows {
  const port: LogicalSwitchPort = {
    name: nodePort(n.name),
    switch: n.joinSwitch,
    type: '',
    addresses: [[n.joinMac, ...n.joinIps].join(' ')],
    portSecurity: [],
    options: {},
    externalIds: { node: n.name, ls: n.joinSwitch },
  };
  const policies: RouterPolicy[] = [];
  const acls: ACL[] = [];
  const pg = nodePortGroup(n.name);
  const portGroups: PortGroup[] = [{ name: pg, ports: [], externalIds: { node: n.name } }];
  for (const join of n.joinIps) {
    const ip = fam(join);
    const nodeIp = n.internalIps.find((a) => v6(a) === v6(join)) ?? join;
    policies.push({
      router: n.router,
      priority: ROUTER_POLICY_PRIORITY.node,
      match: parseMatch(`${ip}.dst == ${nodeIp}`),
      action: 'reroute',
      nexthops: [join],
      options: {},
      externalIds: { node: n.name, 'address-family': ip === 'ip4' ? '4' : '6' },
    });
    if (n.networkPolicyExists) {
      const base = { attachTo: { kind: 'port-group' as const, name: pg }, log: false, externalIds: { node: n.name } };
      acls.push(
        {
          ...base,
          direction: 'to-lport',
          priority: PRIORITY.nodeAllow,
          match: parseMatch(`${ip}.src == ${nodeIp} && ${ip}.dst == $${pg}_${ip}`),
          action: 'allow-related',
          options: {},
        },
        {
          ...base,
          direction: 'from-lport',
          priority: PRIORITY.nodeAllow,
          match: parseMatch(`${ip}.dst == ${nodeIp} && ${ip}.src == $${pg}_${ip}`),
          action: 'allow-related',
          options: { 'apply-after-lb': 'true' },
        },
      );
    }
    for (const s of n.distributedSubnets) {
      if (!s.cidrs.some((c) => v6(c) === v6(join))) continue;
      const spg = subnetNodePortGroup(s.name, n.name);
      policies.push({
        router: n.router,
        priority: ROUTER_POLICY_PRIORITY.gateway,
        match: parseMatch(`${ip}.src == $${spg}_${ip}`),
        action: 'reroute',
        nexthops: [join],
        options: {},
        externalIds: { subnet: s.name, node: n.name },
      });
    }
  }
  for (const s of n.distributedSubnets) {
    portGroups.push({
      name: subnetNodePortGroup(s.name, n.name),
      ports: [],
      externalIds: { subnet: s.name, node: n.name },
    });
  }
  return { port, policies, portGroups, acls };
}

/**
 * A pod's memberships in its node's port groups.
 *
 * @example podNodeMemberships('web-0.default', 'node-1', 'ovn-default', true)
 */
export function podNodeMemberships(port: string, node: string, subnet: string, distributed: boolean): Contribution[] {
  const out: Contribution[] = [{ table: 'portGroup', key: nodePortGroup(node), column: 'ports', members: [port] }];
  if (distributed)
    out.push({ table: 'portGroup', key: subnetNodePortGroup(subnet, node), column: 'ports', members: [port] });
  return out;
}

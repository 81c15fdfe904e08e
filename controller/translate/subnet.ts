/**
 * Subnet → its logical switch, the patch ports to its VPC's router, and the
 * ACLs Kube-OVN puts on the switch (a private subnet's drop/allow set, the
 * Subnet's own `spec.acls`). IP management is not here: the subnet's CIDRs
 * and gateways come validated from model/ipam's `parseSubnetSpec`.
 *
 * Names, priorities and matches are Kube-OVN's (pkg/ovs/ovn-nb-logical_switch.go
 * CreateLogicalSwitch, pkg/ovs/ovn-nb-acl.go SetLogicalSwitchPrivate and
 * UpdateLogicalSwitchACL):
 * - switch `<subnet>`, router port `<router>-<subnet>` with the gateway
 *   address of each family, switch port `<subnet>-<router>` of type router;
 * - private: to-lport `ip` drop at 1000 (logged, severity warning, named after
 *   the switch), allow-related at 1001 within each CIDR and between it and each
 *   `allowSubnets` entry of the same family, allow-related at 3000 from the node
 *   (join) subnet;
 * - `spec.acls` as given, tagged `subnet=<name>` in external_ids, with the
 *   east-west allow pair at 1900 first when `allowEWTraffic` is set.
 */
import { formatCIDR, formatIPv4, formatIPv6, networkOf } from '../../model/addr/index.ts';
import type { SubnetConfig } from '../../model/ipam/index.ts';
import { MatchParseError, parseMatch } from '../../model/match/index.ts';
import type {
  ACL,
  AclAction,
  AclDirection,
  LogicalRouterPort,
  LogicalSwitch,
  LogicalSwitchPort,
  RouterPolicy,
} from '../../model/topology/index.ts';
import type { TranslateIssue, Translation } from './issues.ts';
import { PRIORITY, ROUTER_POLICY_PRIORITY, routerPatchPort, switchPatchPort } from './names.ts';

/** The Subnet fields this translation reads beyond the IPAM ones (kubeovn.io/v1 names). */
export interface SubnetInput {
  readonly config: SubnetConfig;
  /** The VPC's router. */
  readonly router: string;
  /** The router port's MAC (Kube-OVN generates one at creation and keeps it). */
  readonly gatewayMac: string;
  readonly private?: boolean;
  readonly allowSubnets?: readonly string[];
  readonly acls?: readonly {
    readonly direction?: string;
    readonly priority?: number;
    readonly match?: string;
    readonly action?: string;
  }[];
  readonly allowEWTraffic?: boolean;
  /** Attach the VPC's load balancers (`spec.enableLb`, default true). */
  readonly enableLb?: boolean;
  /** The node (join) subnet's CIDRs, comma separated as Kube-OVN's `--node-switch-cidr`. */
  readonly nodeSwitchCidr: string;
  /** The VPC's load balancers, attached when `enableLb`. */
  readonly loadBalancers: readonly string[];
  /**
   * The subnet is in the default VPC: its CIDRs get the 31000 `allow` router
   * policy, so cluster-internal traffic is never rerouted to a gateway node.
   */
  readonly defaultVpc?: boolean;
  /**
   * `gatewayType: centralized`: the gateway nodes and their join addresses
   * as subnet-gateway.ts chose them, which the 29000 policy reroutes the
   * subnet's outbound traffic to (several: ECMP), named in its external_ids
   * (`<node>: <ip>`). Distributed subnets get their 29000 policies per node
   * (node.ts).
   */
  readonly centralizedGateways?: readonly { readonly node: string; readonly ip: string }[];
  /** `spec.routeTable`: the router port's options:route_table (Kube-OVN's reconcileRouteTableForSubnet). */
  readonly routeTable?: string;
}

export interface SubnetRows {
  readonly switch: LogicalSwitch;
  readonly routerPort: LogicalRouterPort;
  readonly switchPort: LogicalSwitchPort;
  readonly acls: readonly ACL[];
  /** Policies on the VPC's router (default VPC only). */
  readonly policies: readonly RouterPolicy[];
}

/** The subnet's CIDRs as Kube-OVN writes them (network address), v4 first. */
export function subnetCidrs(config: SubnetConfig): string[] {
  return [config.v4?.cidr, config.v6?.cidr].flatMap((c) => (c ? [formatCIDR(networkOf(c))] : []));
}

/** The subnet's gateways, one per family, v4 first (the `gateway` annotation's order). */
export function subnetGateways(config: SubnetConfig): string[] {
  return [...(config.v4 ? [formatIPv4(config.v4.gateway)] : []), ...(config.v6 ? [formatIPv6(config.v6.gateway)] : [])];
}

/**
 * @example
 * const cfg = parseSubnetSpec({ name: 'ovn-default', cidrBlock: '10.16.0.0/16' });
 * subnetRows({ config: cfg.value, router: 'ovn-cluster', gatewayMac: '0a:58:0a:10:00:01', nodeSwitchCidr: '100.64.0.0/16', loadBalancers: [] })
 *   .value.routerPort.networks // ['10.16.0.1/16']
 */
export function subnetRows(input: SubnetInput): Translation<SubnetRows> {
  const { config, router } = input;
  const name = config.name;
  const object = `Subnet/${name}`;
  const issues: TranslateIssue[] = [];
  const networks: string[] = [];
  if (config.v4) networks.push(`${formatIPv4(config.v4.gateway)}/${config.v4.cidr.prefix}`);
  if (config.v6) networks.push(`${formatIPv6(config.v6.gateway)}/${config.v6.cidr.prefix}`);
  const lrp = routerPatchPort(router, name);
  const sw: LogicalSwitch = {
    name,
    loadBalancers: input.enableLb === false ? [] : [...input.loadBalancers],
    otherConfig: {},
    externalIds: { subnet: name },
  };
  const routerPort: LogicalRouterPort = {
    name: lrp,
    router,
    mac: input.gatewayMac,
    networks,
    gatewayChassis: [],
    options: input.routeTable ? { route_table: input.routeTable } : {},
    externalIds: { subnet: name },
  };
  const switchPort: LogicalSwitchPort = {
    name: switchPatchPort(name, router),
    switch: name,
    type: 'router',
    addresses: ['router'],
    portSecurity: [],
    options: { 'router-port': lrp },
    externalIds: { subnet: name },
  };
  const acls: ACL[] = [];
  const cidrs = subnetCidrs(config);
  if (input.private) acls.push(...privateAcls(name, cidrs, input.nodeSwitchCidr, input.allowSubnets ?? []));
  if ((input.acls ?? []).length > 0) {
    if (input.allowEWTraffic) acls.push(...eastWestAcls(name, cidrs));
    acls.push(...customAcls(name, input.acls ?? [], object, issues));
  }
  const policies = input.defaultVpc ? defaultVpcPolicies(input, cidrs) : [];
  return { value: { switch: sw, routerPort, switchPort, acls, policies }, issues };
}

/** Kube-OVN's reconcileOvnDefaultVpcRoute: 31000 allow to the subnet, 29000 reroute for centralized gateways. */
function defaultVpcPolicies(input: SubnetInput, cidrs: readonly string[]): RouterPolicy[] {
  const out: RouterPolicy[] = [];
  const ids = { subnet: input.config.name };
  for (const cidr of cidrs) {
    const ip = family(cidr);
    out.push({
      router: input.router,
      priority: ROUTER_POLICY_PRIORITY.subnet,
      match: parseMatch(`${ip}.dst == ${cidr}`),
      action: 'allow',
      nexthops: [],
      options: {},
      externalIds: ids,
    });
    const hops = (input.centralizedGateways ?? []).filter((g) => family(g.ip) === ip);
    if (hops.length === 0) continue;
    out.push({
      router: input.router,
      priority: ROUTER_POLICY_PRIORITY.gateway,
      match: parseMatch(`${ip}.src == ${cidr}`),
      action: 'reroute',
      nexthops: hops.map((h) => h.ip),
      options: {},
      externalIds: { ...ids, ...Object.fromEntries(hops.map((h) => [h.node, h.ip])) },
    });
  }
  return out;
}

const family = (cidr: string): 'ip4' | 'ip6' => (cidr.includes(':') ? 'ip6' : 'ip4');

function acl(sw: string, direction: AclDirection, priority: number, match: string, action: AclAction): ACL {
  return {
    attachTo: { kind: 'switch', name: sw },
    direction,
    priority,
    match: parseMatch(match),
    action,
    log: false,
    options: {},
    externalIds: {},
  };
}

function privateAcls(sw: string, cidrs: readonly string[], nodeCidr: string, allow: readonly string[]): ACL[] {
  const out: ACL[] = [
    { ...acl(sw, 'to-lport', PRIORITY.subnetDrop, 'ip', 'drop'), name: sw, log: true, severity: 'warning' },
  ];
  for (const cidr of cidrs) {
    const ip = family(cidr);
    out.push(
      acl(sw, 'to-lport', PRIORITY.subnetAllow, `${ip}.src == ${cidr} && ${ip}.dst == ${cidr}`, 'allow-related'),
    );
    for (const node of nodeCidr.split(',').map((s) => s.trim())) {
      if (node === '' || family(node) !== ip) continue;
      out.push(acl(sw, 'to-lport', PRIORITY.nodeAllow, `${ip}.src == ${node}`, 'allow-related'));
    }
    for (const other of allow.map((s) => s.trim())) {
      if (other === '' || family(other) !== ip) continue;
      const m = `(${ip}.src == ${cidr} && ${ip}.dst == ${other}) || (${ip}.src == ${other} && ${ip}.dst == ${cidr})`;
      out.push(acl(sw, 'to-lport', PRIORITY.subnetAllow, m, 'allow-related'));
    }
  }
  return out;
}

function eastWestAcls(sw: string, cidrs: readonly string[]): ACL[] {
  return cidrs.flatMap((cidr) => {
    const ip = family(cidr);
    const m = `${ip}.src == ${cidr} && ${ip}.dst == ${cidr}`;
    return (['to-lport', 'from-lport'] as const).map((d) => ({
      ...acl(sw, d, PRIORITY.allowEastWest, m, 'allow'),
      externalIds: { subnet: sw },
    }));
  });
}

const DIRECTIONS: readonly string[] = ['from-lport', 'to-lport'];
const ACTIONS: readonly string[] = ['allow', 'allow-related', 'allow-stateless', 'drop', 'reject'];

function customAcls(
  sw: string,
  specs: NonNullable<SubnetInput['acls']>,
  object: string,
  issues: TranslateIssue[],
): ACL[] {
  const out: ACL[] = [];
  specs.forEach((a, i) => {
    const field = `spec.acls[${i}]`;
    const bad = (f: string, message: string) =>
      issues.push({ code: 'invalid-value', object, field: `${field}.${f}`, message });
    if (!DIRECTIONS.includes(a.direction ?? ''))
      return bad('direction', `must be from-lport or to-lport, got ${JSON.stringify(a.direction)}`);
    if (!ACTIONS.includes(a.action ?? '')) return bad('action', `unknown action ${JSON.stringify(a.action)}`);
    const priority = a.priority ?? 0;
    if (!Number.isInteger(priority) || priority < 0 || priority > 32767)
      return bad('priority', `${priority} is not in 0..32767`);
    try {
      out.push({
        ...acl(sw, a.direction as AclDirection, priority, a.match ?? '', a.action as AclAction),
        externalIds: { subnet: sw },
      });
    } catch (e) {
      if (!(e instanceof MatchParseError)) throw e;
      issues.push({ code: 'invalid-match', object, field: `${field}.match`, message: e.message });
    }
  });
  return out;
}

/**
 * A difftest case as fast-check draws it: small integers and flags that
 * `materialize.ts` resolves against the topology (indices are taken modulo
 * what exists). Keeping the drawn value free of names and addresses makes
 * shrinking work well: fast-check shrinks arrays (fewer switches, ACLs,
 * routes) and numbers (earlier pods, simpler matches) independently, and
 * every shrunk spec still materializes into a valid topology.
 */

export type RouterKind = 'plain' | 'gateway' | 'dgp';

export interface RouterSpec {
  /** plain: distributed, no gateway; gateway: options:chassis; dgp: a distributed gateway port to ext<j>. */
  readonly kind: RouterKind;
  /** gateway/dgp: a host VIF on the external network (else only the localnet port). */
  readonly host: boolean;
  /** gateway/dgp: 0.0.0.0/0 via the upstream .254. */
  readonly defaultRoute: boolean;
}

export interface PodSpec {
  /** 0 none, 1 MAC only, 2 MAC + its IPs, 3 MAC + the subnet. */
  readonly portSecurity: number;
  /** Also "unknown" in addresses (receives floods of unknown MACs). */
  readonly unknown: boolean;
}

export interface SwitchSpec {
  /** Router index (mod the router count), or null: an isolated switch. */
  readonly router: number | null;
  readonly dual: boolean;
  readonly pods: readonly PodSpec[];
  /** The router port toward this switch gets options:route_table=rtb-a. */
  readonly routeTable: boolean;
}

/** One conjunct of a match; `kind` selects the template, `a`/`b` its operands. */
export interface AtomSpec {
  readonly kind: number;
  readonly a: number;
  readonly b: number;
  readonly neg: boolean;
}

export interface MatchSpec {
  readonly atoms: readonly AtomSpec[];
  /** Join the first two atoms with `||`. */
  readonly or: boolean;
}

export interface AclSpec {
  /** Even: a switch, odd: a port group (index mod their count). */
  readonly attach: number;
  readonly toLport: boolean;
  readonly priority: number;
  readonly match: MatchSpec;
  /** 0 allow, 1 allow-related, 2 allow-stateless, 3 drop, 4 reject. */
  readonly action: number;
  readonly afterLb: boolean;
}

export interface AddressSetSpec {
  readonly v6: boolean;
  readonly entries: readonly number[];
}

export interface LbSpec {
  /** 0 service VIP with port, 1 service VIP without port, 2 IPv6 VIP with port, 3 external VIP of a router. */
  readonly vip: number;
  /** 0 unset (tcp), 1 tcp, 2 udp, 3 sctp. */
  readonly proto: number;
  /** Pod indices; empty makes a VIP without backends. */
  readonly backends: readonly number[];
  readonly switches: readonly number[];
  readonly routers: readonly number[];
  /** 0 none, 1 reject, 2 skip_snat, 3 hairpin_snat_ip, 4 affinity_timeout (switch-only LBs). */
  readonly options: number;
}

export interface NatSpec {
  /** Index among gateway and DGP routers. */
  readonly router: number;
  /** 0 snat, 1 dnat, 2 dnat_and_snat. */
  readonly type: number;
  /** snat: a switch index; otherwise a pod index. */
  readonly logical: number;
  /** dnat_and_snat on a DGP router: logical_port + external_mac. */
  readonly distributed: boolean;
}

export interface RouteSpec {
  readonly router: number;
  readonly prefix: number;
  readonly nexthop: number;
  readonly srcIp: boolean;
  readonly routeTable: boolean;
  /** Add a second route, same prefix, next next hop: ECMP. */
  readonly ecmp: boolean;
}

export interface PolicySpec {
  readonly router: number;
  readonly priority: number;
  readonly match: MatchSpec;
  /** 0 allow, 1 drop, 2 reroute. */
  readonly action: number;
  readonly nexthops: readonly number[];
}

export interface TopoSpec {
  readonly routers: readonly RouterSpec[];
  readonly switches: readonly SwitchSpec[];
  /** Router pairs joined by peer ports (a pair with a === b mod the count is dropped). */
  readonly links: readonly (readonly [number, number])[];
  /** For each link, routes to the far side's switches through it. */
  readonly linkRoutes: boolean;
  readonly addressSets: readonly AddressSetSpec[];
  /** Pod indices per port group. */
  readonly portGroups: readonly (readonly number[])[];
  readonly acls: readonly AclSpec[];
  readonly loadBalancers: readonly LbSpec[];
  readonly nats: readonly NatSpec[];
  readonly routes: readonly RouteSpec[];
  readonly policies: readonly PolicySpec[];
}

export interface PacketSpec {
  /** A pod (mod the pod count), or with `outside` an external network's port. */
  readonly src: number;
  readonly outside: boolean;
  /** 0 pod, 1 router IP, 2 VIP, 3 NAT external IP, 4 outside host, 5 unknown, 6 internet. */
  readonly dstKind: number;
  readonly dst: number;
  /** 0 tcp, 1 udp, 2 sctp, 3 icmp echo, 4 arp / nd. */
  readonly proto: number;
  /** Prefer IPv6 when both ends have it. */
  readonly v6: boolean;
  /** 0: 64, 1: 1, 2: 2. */
  readonly ttl: number;
  /** 0 none, 1 foreign source MAC, 2 foreign source IP. */
  readonly spoof: number;
  readonly sport: number;
  /** Index into the common destination ports (used when the target has no port). */
  readonly dport: number;
}

export interface CaseSpec {
  readonly topo: TopoSpec;
  readonly packet: PacketSpec;
  /** The simulator's LB backend choice (mod the backend count); OVN is told the same. */
  readonly lbPick: number;
}

/**
 * The compiled network: the topology turned once into indexed structures
 * the pipelines read (ports with parsed addresses and peers, ACLs indexed by
 * port, load balancer VIPs by address, routes sorted by OVN priority, NAT
 * rules with their gateway port). Nothing here changes after compilation.
 */
import type { CompileStats } from './by-datapath.ts';
import type { Issue } from '../../model/issues.ts';
import type { ACL, LoadBalancer, NAT, RouterPolicy, StaticRoute, Topology } from '../../model/topology/index.ts';
import type { IpKey, LspAddress, PortSecurityEntry, RouterNetwork } from './addresses.ts';
import type { CommitOptions } from '../conntrack/state.ts';
import type { TraceRule } from '../trace.ts';
import type { Predicate } from './match.ts';

export interface SwitchPortInfo {
  readonly kind: 'lsp';
  readonly name: string;
  readonly switch: string;
  readonly type: string;
  readonly enabled: boolean;
  /** Parsed "MAC IP..." entries; for `router` addresses, the peer router port's MAC and IPs. */
  readonly addresses: readonly LspAddress[];
  readonly hasUnknown: boolean;
  /** Learns the source MACs it sends (model/topology learnsFdb). */
  readonly learnsFdb: boolean;
  readonly portSecurity: readonly PortSecurityEntry[];
  /** For type router: the router port named by options:router-port. */
  readonly routerPort?: string;
  /** Conntrack zone of this port (switch ingress from it, egress to it). */
  readonly zone: string;
}

export interface RouterPortInfo {
  readonly kind: 'lrp';
  readonly name: string;
  readonly router: string;
  readonly mac: number;
  readonly networks: readonly RouterNetwork[];
  readonly enabled: boolean;
  /** The switch port of type router that attaches this port to a switch. */
  readonly switchPort?: string;
  /** Router-to-router peer (NB `peer`). */
  readonly peer?: string;
  /** A distributed gateway port (has gateway chassis or ha_chassis_group option). */
  readonly isDgp: boolean;
  /** `cr-<name>` for a distributed gateway port. */
  readonly crName?: string;
  /** options:route_table. */
  readonly routeTable: string;
}

export type PortInfo = SwitchPortInfo | RouterPortInfo;

export type AclStage = 'in' | 'after_lb' | 'out';

export interface AclRule {
  readonly key: string;
  readonly acl: ACL;
  readonly stage: AclStage;
  /** ACL priority + 1000. */
  readonly priority: number;
  readonly test: Predicate;
  readonly matchText: string;
  /** What the match requires of every packet it matches (for indexing), if it says. */
  readonly req?: AclRequirement | undefined;
  /** The rule as traces and drops name it. */
  readonly traceRule: TraceRule;
  /**
   * Flows of this ACL that OVN refuses to parse, so ovn-controller never
   * installs them (northd-text.ts): its ACL-stage flows on a switch without
   * (`plain`) or with (`stateful`) stateful ACLs or LB VIPs, and the
   * pre-ACL bypass flow of an allow-stateless ACL. Absent: every flow exists.
   */
  readonly refused?: AclRefusals;
}

/** A flow OVN refuses, and why. */
export interface RefusedFlow {
  readonly stage: string;
  readonly match: string;
  readonly actions: string;
  readonly reason: string;
}

export interface AclRefusals {
  readonly plain?: RefusedFlow;
  readonly stateful?: RefusedFlow;
  readonly preAcl?: RefusedFlow;
}

/** A top-level conjunct of an ACL's match: one of these ports, or one of these IPv4 values under a mask. */
export type AclRequirement =
  | { readonly kind: 'port'; readonly field: 'inport' | 'outport'; readonly ports: ReadonlySet<string> }
  | {
      readonly kind: 'ip';
      readonly field: 'ip4.src' | 'ip4.dst';
      readonly mask: number;
      readonly values: ReadonlySet<number>;
    };

/** Ranks of the ACLs filed under `(address & mask)`. */
export interface IpBuckets {
  readonly mask: number;
  readonly byValue: ReadonlyMap<number, readonly number[]>;
  /** 1,024 bits, one set per value's hash (acl-index.ts `bit`): a clear bit means no list, without a Map lookup. */
  readonly filter: Uint32Array;
}

/**
 * Rules of one table (a switch ACL stage, the pre-ACL stateless bypass, a
 * router's policies), indexed by what their match requires. Lists hold
 * ranks into `rules`, ascending.
 */
export interface RuleIndex<R> {
  /** Every rule, in the order they are tried (highest priority first). */
  readonly rules: readonly R[];
  readonly byInport: ReadonlyMap<string, readonly number[]>;
  readonly byOutport: ReadonlyMap<string, readonly number[]>;
  readonly bySrc: readonly IpBuckets[];
  readonly byDst: readonly IpBuckets[];
  /** Rules whose match names no requirement the index knows. */
  readonly rest: readonly number[];
}

export type AclIndex = RuleIndex<AclRule>;

export interface LbBackend {
  readonly ip: number | bigint;
  readonly port?: number;
  readonly text: string;
  /** The commit a new connection to this backend makes (`ct_lb_mark`'s DNAT). */
  readonly dnat: CommitOptions;
}

export interface LbVip {
  readonly lb: LoadBalancer;
  readonly family: 4 | 6;
  readonly ip: number | bigint;
  readonly port?: number;
  readonly proto: 'tcp' | 'udp' | 'sctp';
  readonly backends: readonly LbBackend[];
  readonly vipText: string;
  /** `<lb name>|<vip text>`: the choice key of this VIP's backend pick. */
  readonly key: string;
  /** options:reject with no backends: reject instead of drop. */
  readonly reject: boolean;
  readonly skipSnat: boolean;
  readonly hairpinSnatIp?: { readonly v4?: number; readonly v6?: bigint };
  /** options:affinity_timeout when set and not 0 (northd reads it as an int, 0 when it is none): LB affinity. */
  readonly affinityTimeout?: number;
}

/** VIPs by address (`ipKey(ip)`), most specific (with port) first. */
export type VipIndex = ReadonlyMap<IpKey, readonly LbVip[]>;

export interface QosRule {
  readonly key: string;
  readonly priority: number;
  readonly test: Predicate;
  readonly dscp?: number;
}

export interface SwitchDp {
  readonly kind: 'switch';
  readonly name: string;
  readonly ports: readonly string[];
  readonly routerPorts: readonly string[];
  readonly localnetPorts: readonly string[];
  readonly hasAcls: boolean;
  readonly hasStatefulAcl: boolean;
  readonly hasLbVip: boolean;
  readonly acls: Readonly<Record<AclStage, AclIndex>>;
  /** allow-stateless ACLs per direction, for the pre-ACL stateless bypass (priority order, ties in row order). */
  readonly statelessAcls: Readonly<Record<'in' | 'out', AclIndex>>;
  readonly vips: VipIndex;
  /** `vips` again, as a table the per-packet lookups read faster. */
  readonly vipTable: Pick<VipIndex, 'get'>;
  /** Backends by address (`ipKey(ip)`): for recognising hairpin replies. */
  readonly lbBackends: { get(ip: IpKey): readonly { readonly vip: LbVip; readonly backend: LbBackend }[] | undefined };
  readonly qos: Readonly<Record<'in' | 'out', readonly QosRule[]>>;
  /** L2 lookup: destination MAC → port (enabled or not: disabled ports drop); null: a router port shadows its name. */
  readonly macToPort: { get(mac: number): SwitchPortInfo | null | undefined };
  /**
   * Distributed NAT external MACs → the router port's switch port, valid only
   * where the NAT's logical port is resident (build_lswitch_ip_unicast_lookup).
   */
  readonly natMacs: ReadonlyMap<number, { readonly port: string; readonly logicalPort: string }>;
  /** Ports with `unknown` in addresses (the `_MC_unknown` group). */
  readonly unknownPorts: readonly string[];
  /** ARP responder: IPv4 → owning port + MAC. */
  readonly arpTargets: ReadonlyMap<number, { readonly port: string; readonly mac: number }>;
  /** ND responder: IPv6 → owning port + MAC. */
  readonly ndTargets: ReadonlyMap<bigint, { readonly port: string; readonly mac: number; readonly router: boolean }>;
  /** IPs owned by attached router ports (ARP/ND requests go to that port, plus the L2 flood). */
  readonly routerOwnedIPs: ReadonlyMap<IpKey, string>;
  /** MACs of attached router ports (their ARP requests flood to non-router ports only). */
  readonly routerMacs: ReadonlySet<number>;
}

export interface RouteTarget {
  readonly outport: string;
  /** Next hop; undefined means the packet's own destination (connected route). */
  readonly nexthop?: number | bigint;
  /** The router port address used as source for ARP/ND (reg1). */
  readonly srcIp: number | bigint;
  readonly mac: number;
}

export interface RouteEntry {
  readonly key: string;
  readonly kind: 'connected' | 'static' | 'discard';
  readonly priority: number;
  readonly family: 4 | 6;
  readonly prefix: number | bigint;
  readonly plen: number;
  readonly bySource: boolean;
  /** Route table name; undefined means the route matches whatever table (connected, main-table src-ip). */
  readonly table?: string;
  readonly targets: readonly RouteTarget[];
  readonly text: string;
  readonly rows: readonly StaticRoute[];
}

export interface PolicyRule {
  readonly key: string;
  readonly policy: RouterPolicy;
  readonly priority: number;
  readonly test: Predicate;
  readonly matchText: string;
  /** Resolved reroute targets; empty for allow/drop (or an unresolvable reroute, which northd skips). */
  readonly targets: readonly RouteTarget[];
  /** What the match requires of every packet it matches (for indexing), if it says. */
  readonly req?: AclRequirement | undefined;
}

export interface NatRule {
  readonly key: string;
  readonly nat: NAT;
  readonly family: 4 | 6;
  readonly externalIp: number | bigint;
  /** The logical IP or subnet (snat). */
  readonly logicalIp: number | bigint;
  readonly logicalPlen: number;
  readonly stateless: boolean;
  /** A distributed dnat_and_snat (logical_port + external_mac on a router with a gateway port). */
  readonly distributed: boolean;
  readonly externalMac?: number;
  /** The gateway port this rule applies on (distributed routers). */
  readonly gatewayPort?: string;
  readonly portRange?: { readonly lo: number; readonly hi: number };
}

export interface RouterDp {
  readonly kind: 'router';
  readonly name: string;
  readonly enabled: boolean;
  /** options:chassis set: a gateway router (all of it lives on one chassis). */
  readonly isGateway: boolean;
  readonly ports: readonly string[];
  /**
   * The router's own addresses (ip_input): IPv4 networks' addresses; those plus their broadcasts; IPv6 ones plus each
   * port's link-local.
   */
  readonly ownV4: ReadonlySet<number>;
  readonly ownV4OrBroadcast: ReadonlySet<number>;
  readonly ownV6: ReadonlySet<bigint>;
  readonly dgps: readonly string[];
  readonly routes: readonly RouteEntry[];
  /** By priority (ties by key); `policyIndex.rules` is the same list, indexed. */
  readonly policies: readonly PolicyRule[];
  readonly policyIndex: RuleIndex<PolicyRule>;
  readonly nats: readonly NatRule[];
  readonly vips: VipIndex;
  /** The VIPs lr_in_dnat has a new-connection flow for: `vips` less those whose flow OVN refuses. */
  readonly dnatVips: VipIndex;
  readonly hasLbVip: boolean;
  /** NAT external IPs (ARP replies, unSNAT/DNAT candidates), as `ipKey(ip)`. */
  readonly natExternalIps: ReadonlySet<IpKey>;
  /** IPs the router answers ARP/ND for from LB VIPs it can reach. */
  readonly lbReachableIps: ReadonlySet<IpKey>;
  /** Router-port IPs that are also SNAT or LB IPs (not dropped in ip_input). */
  readonly snatOrLbRouterIps: ReadonlySet<IpKey>;
  /**
   * lr_in_arp_resolve's static entries (priority 100): outport → next hop
   * (`ipKey(ip)`) → MAC, from VIF addresses on attached switches, peer and
   * neighbouring router ports, and NAT external IPs on gateway ports.
   */
  readonly arpResolve: ReadonlyMap<string, { get(ip: IpKey): number | undefined }>;
  /**
   * IPv6 next hops (`ipKey(ip)`) of the router's static routes written as
   * one address: lr_in_arp_request has a priority-200 flow for each that
   * sends the NS to the next hop's solicited-node group (not the packet's).
   */
  readonly ndNsNexthops: ReadonlySet<IpKey>;
  readonly dnatForceSnat?: { readonly v4?: number; readonly v6?: bigint };
  readonly lbForceSnat?: { readonly v4?: number; readonly v6?: bigint } | 'router_ip';
}

export type Datapath = SwitchDp | RouterDp;

export interface CompileOptions {
  /**
   * Whether a port is resident on "this" chassis (`is_chassis_resident`).
   * Default: every port that exists is (`cr-<port>` of gateway ports
   * included) and an unknown one is not, as ovn-trace answers (or see
   * `chassis`). `SimNetwork.options` always holds the predicate in use.
   */
  readonly isChassisResident?: (port: string) => boolean;
  /**
   * Simulate as seen on this chassis: a distributed gateway port's `cr-<port>`
   * is resident iff its highest-priority gateway chassis is this one. Other
   * existing ports (whose bindings the topology does not hold) count as
   * resident, unknown ones do not.
   * Ignored when `isChassisResident` is given.
   */
  readonly chassis?: string;
  /** NB_Global options:default_acl_drop. */
  readonly defaultAclDrop?: boolean;
  /**
   * Known neighbours (SB MAC_Binding / NB Static_MAC_Binding): router port →
   * IP text → MAC text. Without an entry the router sends an ARP/ND request
   * instead of forwarding (as OVN does).
   */
  readonly neighbors?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** A port and the datapath it belongs to. */
export interface PortPlace {
  readonly dp: Datapath;
  readonly port: string;
  /** That port's info. */
  readonly info: PortInfo;
}

export interface SimNetwork {
  readonly topology: Topology;
  readonly options: CompileOptions;
  readonly ports: ReadonlyMap<string, PortInfo>;
  readonly switches: ReadonlyMap<string, SwitchDp>;
  readonly routers: ReadonlyMap<string, RouterDp>;
  /** Each port with its datapath. */
  readonly places: ReadonlyMap<string, PortPlace>;
  /** Patch ports (switch ports of type router, router ports) → the port a packet leaving through them enters. */
  readonly links: ReadonlyMap<string, PortPlace>;
  /** Neighbour MACs by router port then `ipKey(ip)`. */
  readonly neighbors: ReadonlyMap<string, ReadonlyMap<IpKey, number>>;
  /** Rows the compiler could not use (bad addresses, unresolvable next hops, ...), as northd ignores them. */
  readonly issues: readonly Issue[];
  /** The work the compile did, in rows (by-datapath.ts). */
  readonly stats?: CompileStats;
}

/**
 * The logical topology: readonly values for the OVN Northbound rows kovn
 * writes. One interface per NB table, camel-cased from the NB column names
 * (ovn-nb(5), OVN 23.03, schema 7.0.0) so the backend's mapping is
 * mechanical.
 *
 * Two deliberate differences from the NB shape:
 * - References point from child to parent by name (`LogicalSwitchPort.switch`,
 *   `ACL.attachTo`, `NAT.router`, ...). NB holds them the other way round
 *   (`Logical_Switch.ports` is a set of uuids); the backend inverts them. With
 *   child→parent names a row is self-contained, which keeps the diff local.
 * - Matches are ASTs ({@link MatchExpr}), printed canonically when written.
 *
 * Every table is keyed by its key fields (see `keys.ts`, listed in
 * `tables.ts`): its name where NB has a name column (switches, ports, routers,
 * address sets, port groups, load balancers, DHCP options via external_ids),
 * otherwise the columns that OVN itself treats as a row's identity (e.g. an
 * ACL is its attachment, direction, priority and match, as `ovn-nbctl
 * acl-add` treats it). Which NB table and column holds each field is in
 * `tables.ts`.
 */
import type { MatchExpr } from '../match/index.ts';

/** An NB `map<string,string>` column (options, external_ids, other_config). */
export type Attrs = Readonly<Record<string, string>>;

export interface LogicalSwitch {
  readonly name: string;
  /** Load balancer names (NB `load_balancer`). */
  readonly loadBalancers: readonly string[];
  /** e.g. `subnet`, `exclude_ips`, `mcast_snoop`. */
  readonly otherConfig: Attrs;
  readonly externalIds: Attrs;
}

/** NB `Logical_Switch_Port.type`; "" is a VIF (a pod, a VM). */
export type LspType = '' | 'router' | 'localnet' | 'localport' | 'virtual' | 'external' | 'l2gateway' | 'vtep';

export interface LogicalSwitchPort {
  readonly name: string;
  /** Owning switch name. */
  readonly switch: string;
  readonly type: LspType;
  /** As in NB: "MAC [IP...]", "router", "unknown", "dynamic". */
  readonly addresses: readonly string[];
  /** As in NB: "MAC [IP or CIDR...]". */
  readonly portSecurity: readonly string[];
  /** e.g. `router-port` (type router), `network_name` (localnet), `virtual-ip`. */
  readonly options: Attrs;
  readonly enabled?: boolean;
  readonly parentName?: string;
  readonly tagRequest?: number;
  /**
   * NB `tag` (1..4095): a localnet port's VLAN, as Kube-OVN writes it
   * (CreateLocalnetLogicalSwitchPort sets `tag`, not `tag_request`; northd
   * 23.03 keeps a `tag` written without a request and copies it to the
   * port binding).
   */
  readonly tag?: number;
  /** Name of a {@link DHCPOptions} row. */
  readonly dhcpv4Options?: string;
  readonly dhcpv6Options?: string;
  readonly externalIds: Attrs;
}

/**
 * Whether a switch port learns the source MACs of what it sends (northd 23.03
 * build_lswitch_learn_fdb_op: `put_fdb(inport, eth.src)` in ls_in_put_fdb):
 * `unknown` among its addresses, no port security, and a VIF, or a localnet
 * port with options:localnet_learn_fdb=true. Learned MACs are unicast to
 * that port (`get_fdb(eth.dst)` in ls_in_l2_lkup) instead of flooding the
 * `unknown` ports.
 */
export function learnsFdb(p: LogicalSwitchPort): boolean {
  if (!p.addresses.includes('unknown') || p.portSecurity.length > 0) return false;
  return p.type === '' || (p.type === 'localnet' && p.options.localnet_learn_fdb === 'true');
}

export interface LogicalRouter {
  readonly name: string;
  readonly enabled?: boolean;
  /** e.g. `chassis` (a gateway router), `lb_force_snat_ip`, `dynamic_neigh_routers`. */
  readonly options: Attrs;
  readonly loadBalancers: readonly string[];
  readonly externalIds: Attrs;
}

/** A row of NB `Gateway_Chassis`, owned by its router port. */
export interface GatewayChassis {
  readonly chassisName: string;
  readonly priority: number;
}

export interface LogicalRouterPort {
  readonly name: string;
  /** Owning router name. */
  readonly router: string;
  readonly mac: string;
  /** "IP/prefix" entries, host bits set (the port's own addresses). */
  readonly networks: readonly string[];
  /** Peer router port for router-to-router links. */
  readonly peer?: string;
  readonly enabled?: boolean;
  /** Non-empty makes this a distributed gateway port. */
  readonly gatewayChassis: readonly GatewayChassis[];
  readonly options: Attrs;
  readonly ipv6RaConfigs?: Attrs;
  readonly externalIds: Attrs;
}

export type AclDirection = 'from-lport' | 'to-lport';
export type AclAction = 'allow' | 'allow-related' | 'allow-stateless' | 'drop' | 'reject';
export type AclSeverity = 'alert' | 'warning' | 'notice' | 'info' | 'debug';
/** What an ACL hangs off: a switch's `acls` or a port group's `acls`. */
export type AclAttachment = { readonly kind: 'switch' | 'port-group'; readonly name: string };

export interface ACL {
  readonly attachTo: AclAttachment;
  readonly direction: AclDirection;
  /** 0..32767; northd adds 1000 for the logical flow priority. */
  readonly priority: number;
  readonly match: MatchExpr;
  readonly action: AclAction;
  /** NB `name` (at most 63 characters); not unique. */
  readonly name?: string;
  readonly log: boolean;
  readonly severity?: AclSeverity;
  readonly meter?: string;
  readonly label?: number;
  /** e.g. `apply-after-lb`, `log-related`. */
  readonly options: Attrs;
  readonly externalIds: Attrs;
}

export interface AddressSet {
  readonly name: string;
  /** Addresses or CIDRs, one family per set as Kube-OVN writes them. */
  readonly addresses: readonly string[];
  readonly externalIds: Attrs;
}

export interface PortGroup {
  readonly name: string;
  /** Logical switch port names. */
  readonly ports: readonly string[];
  readonly externalIds: Attrs;
}

export type LbProtocol = 'tcp' | 'udp' | 'sctp';
export type LbSelectionField = 'eth_src' | 'eth_dst' | 'ip_src' | 'ip_dst' | 'tp_src' | 'tp_dst';

export interface LoadBalancer {
  readonly name: string;
  /** "VIP[:port]" → "backend[:port],..." exactly as NB holds them. */
  readonly vips: Attrs;
  /** Unset means tcp, as in OVN. */
  readonly protocol?: LbProtocol;
  readonly selectionFields: readonly LbSelectionField[];
  /** e.g. `reject`, `hairpin_snat_ip`, `skip_snat`, `affinity_timeout`. */
  readonly options: Attrs;
  readonly externalIds: Attrs;
}

export type NatType = 'snat' | 'dnat' | 'dnat_and_snat';

export interface NAT {
  readonly router: string;
  readonly type: NatType;
  readonly externalIp: string;
  /** An address, or a CIDR for snat. */
  readonly logicalIp: string;
  /** With externalMac: distributed dnat_and_snat (a FIP) on the port's chassis. */
  readonly logicalPort?: string;
  readonly externalMac?: string;
  readonly externalPortRange?: string;
  /** Router port name (NB weak reference), for routers with several gateway ports. */
  readonly gatewayPort?: string;
  /** e.g. `stateless`. */
  readonly options: Attrs;
  readonly externalIds: Attrs;
}

export type RoutePolicy = 'dst-ip' | 'src-ip';

export interface StaticRoute {
  readonly router: string;
  readonly ipPrefix: string;
  readonly nexthop: string;
  /** Unset means dst-ip. */
  readonly policy?: RoutePolicy;
  readonly outputPort?: string;
  /** "" is the main table. */
  readonly routeTable: string;
  /** e.g. `ecmp_symmetric_reply`. */
  readonly options: Attrs;
  readonly externalIds: Attrs;
}

export type RouterPolicyAction = 'allow' | 'drop' | 'reroute';

export interface RouterPolicy {
  readonly router: string;
  /** 0..32767. */
  readonly priority: number;
  readonly match: MatchExpr;
  readonly action: RouterPolicyAction;
  /** For reroute; several make an ECMP reroute. */
  readonly nexthops: readonly string[];
  /** e.g. `pkt_mark`. */
  readonly options: Attrs;
  readonly externalIds: Attrs;
}

export interface QoS {
  readonly switch: string;
  readonly direction: AclDirection;
  readonly priority: number;
  readonly match: MatchExpr;
  /** `dscp` 0..63. */
  readonly action: Readonly<{ dscp?: number }>;
  /** `rate` (kbps) and `burst` (kbits). */
  readonly bandwidth: Readonly<{ rate?: number; burst?: number }>;
  readonly externalIds: Attrs;
}

export interface DHCPOptions {
  /** kovn's identity for the row; NB has no name column (kept in external_ids). */
  readonly name: string;
  readonly cidr: string;
  /** e.g. `server_id`, `server_mac`, `lease_time`, `router`, `dns_server`. */
  readonly options: Attrs;
  readonly externalIds: Attrs;
}

/** Every table the model holds, by its model name. */
export interface Tables {
  readonly switch: LogicalSwitch;
  readonly switchPort: LogicalSwitchPort;
  readonly router: LogicalRouter;
  readonly routerPort: LogicalRouterPort;
  readonly acl: ACL;
  readonly addressSet: AddressSet;
  readonly portGroup: PortGroup;
  readonly loadBalancer: LoadBalancer;
  readonly nat: NAT;
  readonly staticRoute: StaticRoute;
  readonly routerPolicy: RouterPolicy;
  readonly qos: QoS;
  readonly dhcpOptions: DHCPOptions;
}

export type TableName = keyof Tables;
export type Row = Tables[TableName];

/** A whole logical network: every table keyed by {@link keyOf}. */
export type Topology = { readonly [T in TableName]: ReadonlyMap<string, Tables[T]> };

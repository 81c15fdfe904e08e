/**
 * The rows the node agent writes to the local Open_vSwitch database, as
 * readonly values: one interface per table, fields camel-cased from the
 * column names (ovs-vswitchd.conf.db(5), OVS 3.1, schema 8.3.1). References
 * are by name (a bridge lists its ports' names); the codec (codec.ts) turns
 * them into uuids and back. QoS and Queue rows have no name column: kovn
 * names them in `external_ids:kovn-name`.
 */

/** A `map<string,string>` column (external_ids, other_config, options). */
export type Attrs = Readonly<Record<string, string>>;

/** The one root row (`Open_vSwitch`): which bridges exist, and the chassis settings ovn-controller reads. */
export interface OvsRoot {
  /** Bridge names. */
  readonly bridges: readonly string[];
  /** e.g. `system-id`, `ovn-remote`, `ovn-encap-type`, `ovn-encap-ip`, `ovn-bridge-mappings`. */
  readonly externalIds: Attrs;
  readonly otherConfig: Attrs;
}

export type OpenFlowVersion = 'OpenFlow10' | 'OpenFlow11' | 'OpenFlow12' | 'OpenFlow13' | 'OpenFlow14' | 'OpenFlow15';

export interface OvsBridge {
  readonly name: string;
  /** Port names. */
  readonly ports: readonly string[];
  /** Unset means standalone, as in OVS. */
  readonly failMode?: 'standalone' | 'secure';
  /** "" (the kernel datapath) or `netdev` (userspace). */
  readonly datapathType: string;
  readonly protocols: readonly OpenFlowVersion[];
  readonly otherConfig: Attrs;
  readonly externalIds: Attrs;
}

export interface OvsPort {
  readonly name: string;
  /** Interface names (at least one). */
  readonly interfaces: readonly string[];
  /** Name of an {@link OvsQoS}. */
  readonly qos?: string;
  /** Access VLAN. */
  readonly tag?: number;
  readonly otherConfig: Attrs;
  readonly externalIds: Attrs;
}

export interface OvsInterface {
  readonly name: string;
  /** "" (a system netdev), `internal`, `patch`, `geneve`, `dummy`, ... */
  readonly type: string;
  /** e.g. `peer` (patch), `remote_ip` (tunnels). */
  readonly options: Attrs;
  readonly mtuRequest?: number;
  /** kbps; 0 is no policing. */
  readonly ingressPolicingRate: number;
  /** kb. */
  readonly ingressPolicingBurst: number;
  /** e.g. `iface-id` (the logical port ovn-controller binds), `attached-mac`. */
  readonly externalIds: Attrs;
}

export interface OvsQoS {
  /** kovn's identity for the row (`external_ids:kovn-name`). */
  readonly name: string;
  /** e.g. `linux-htb`, `linux-netem`. */
  readonly type: string;
  /** Queue number (decimal) → {@link OvsQueue} name. */
  readonly queues: Readonly<Record<string, string>>;
  /** e.g. `max-rate`, `latency`, `loss`. */
  readonly otherConfig: Attrs;
  readonly externalIds: Attrs;
}

export interface OvsQueue {
  /** kovn's identity for the row (`external_ids:kovn-name`). */
  readonly name: string;
  readonly dscp?: number;
  /** e.g. `min-rate`, `max-rate`, `burst`, `priority`. */
  readonly otherConfig: Attrs;
  readonly externalIds: Attrs;
}

/** Every table the node agent writes, by its model name. */
export interface OvsTables {
  readonly root: OvsRoot;
  readonly bridge: OvsBridge;
  readonly port: OvsPort;
  readonly interface: OvsInterface;
  readonly qos: OvsQoS;
  readonly queue: OvsQueue;
}

export type OvsTableName = keyof OvsTables;

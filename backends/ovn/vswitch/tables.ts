/**
 * One description per Open_vSwitch table the node agent writes: the table,
 * how a row is found (its name column, `external_ids:kovn-name`, or the one
 * root row), every field with its column, kind and reference, and the
 * columns monitored but never written (what vswitchd reports back). The
 * codec, the monitor and the indexes read it; description.test.ts checks it
 * against the schema the generated row types (vswitch.gen.ts) come from.
 *
 * References: `Open_vSwitch.bridges`, `Bridge.ports`, `Port.interfaces`,
 * `Port.qos` and `QoS.queues` (a map from queue number to Queue) are all
 * strong. Bridge, Port and Interface are non-root (a port removed from its
 * bridge is deleted with its interfaces); QoS and Queue are root tables and
 * outlive the port that used them unless deleted.
 */
import type { vswitch } from '../ovsdb/index.ts';
import type { OvsTableName, OvsTables } from './types.ts';

/** The external_ids key that names kovn's QoS and Queue rows. */
export const OVS_NAME_ID = 'kovn-name';

export type OvsFieldKind = 'scalar' | 'set' | 'map';

export interface OvsFieldSpec {
  readonly kind: OvsFieldKind;
  readonly column: string;
  /** Names rows of another table (a map: its values do). */
  readonly ref?: { readonly table: OvsTableName; readonly strength: 'strong' | 'weak' };
}

export interface OvsTableSpec<T extends OvsTableName> {
  readonly table: vswitch.TableName;
  /** `name`: the name column; `external-id`: `external_ids:kovn-name`; `root`: the one row of a root table. */
  readonly identity: 'name' | 'external-id' | 'root';
  /** Whether rows live without a reference from another row (checked against the schema). */
  readonly isRoot: boolean;
  readonly fields: { readonly [K in keyof OvsTables[T]]-?: OvsFieldSpec | { readonly kind: 'identity' } };
  /** Read, never written: what ovs-vswitchd reports. */
  readonly monitorOnly?: readonly string[];
}

const EXTERNAL_IDS = { kind: 'map', column: 'external_ids' } as const;
const OTHER_CONFIG = { kind: 'map', column: 'other_config' } as const;
const NAME = { kind: 'scalar', column: 'name' } as const;
const KOVN_NAME = { kind: 'identity' } as const;

/**
 * @example OVS_TABLES.port.fields.interfaces // { kind: 'set', column: 'interfaces', ref: { table: 'interface', strength: 'strong' } }
 */
export const OVS_TABLES = {
  root: {
    table: 'Open_vSwitch',
    identity: 'root',
    isRoot: true,
    fields: {
      bridges: { kind: 'set', column: 'bridges', ref: { table: 'bridge', strength: 'strong' } },
      externalIds: EXTERNAL_IDS,
      otherConfig: OTHER_CONFIG,
    },
    monitorOnly: ['next_cfg', 'cur_cfg'],
  },
  bridge: {
    table: 'Bridge',
    identity: 'name',
    isRoot: false,
    fields: {
      name: NAME,
      ports: { kind: 'set', column: 'ports', ref: { table: 'port', strength: 'strong' } },
      failMode: { kind: 'scalar', column: 'fail_mode' },
      datapathType: { kind: 'scalar', column: 'datapath_type' },
      protocols: { kind: 'set', column: 'protocols' },
      otherConfig: OTHER_CONFIG,
      externalIds: EXTERNAL_IDS,
    },
  },
  port: {
    table: 'Port',
    identity: 'name',
    isRoot: false,
    fields: {
      name: NAME,
      interfaces: { kind: 'set', column: 'interfaces', ref: { table: 'interface', strength: 'strong' } },
      qos: { kind: 'scalar', column: 'qos', ref: { table: 'qos', strength: 'strong' } },
      tag: { kind: 'scalar', column: 'tag' },
      otherConfig: OTHER_CONFIG,
      externalIds: EXTERNAL_IDS,
    },
  },
  interface: {
    table: 'Interface',
    identity: 'name',
    isRoot: false,
    fields: {
      name: NAME,
      type: { kind: 'scalar', column: 'type' },
      options: { kind: 'map', column: 'options' },
      mtuRequest: { kind: 'scalar', column: 'mtu_request' },
      ingressPolicingRate: { kind: 'scalar', column: 'ingress_policing_rate' },
      ingressPolicingBurst: { kind: 'scalar', column: 'ingress_policing_burst' },
      externalIds: EXTERNAL_IDS,
    },
    monitorOnly: ['ofport', 'error'],
  },
  qos: {
    table: 'QoS',
    identity: 'external-id',
    isRoot: true,
    fields: {
      name: KOVN_NAME,
      type: { kind: 'scalar', column: 'type' },
      queues: { kind: 'map', column: 'queues', ref: { table: 'queue', strength: 'strong' } },
      otherConfig: OTHER_CONFIG,
      externalIds: EXTERNAL_IDS,
    },
  },
  queue: {
    table: 'Queue',
    identity: 'external-id',
    isRoot: true,
    fields: {
      name: KOVN_NAME,
      dscp: { kind: 'scalar', column: 'dscp' },
      otherConfig: OTHER_CONFIG,
      externalIds: EXTERNAL_IDS,
    },
  },
} as const satisfies { readonly [T in OvsTableName]: OvsTableSpec<T> };

export const OVS_TABLE_ORDER = Object.keys(OVS_TABLES) as readonly OvsTableName[];

/** The generated row type of model table `T`. */
export type OvsRow<T extends OvsTableName> = vswitch.Tables[(typeof OVS_TABLES)[T]['table']];

/** The description of one table, widened for code that walks any table. */
export function ovsTableSpec<T extends OvsTableName>(table: T): OvsTableSpec<T> {
  return OVS_TABLES[table] as unknown as OvsTableSpec<T>;
}

/** The stored fields of a table (identity fields kept in external_ids left out). */
export function ovsFields(table: OvsTableName): [field: string, spec: OvsFieldSpec][] {
  return Object.entries(
    ovsTableSpec(table).fields as Readonly<Record<string, OvsFieldSpec | { kind: 'identity' }>>,
  ).filter((e): e is [string, OvsFieldSpec] => e[1].kind !== 'identity');
}

/**
 * The columns to monitor per table: every column written, and those vswitchd reports.
 *
 * @example OVS_MONITOR.Interface // ['name', 'type', ..., 'external_ids', 'ofport', 'error']
 */
export const OVS_MONITOR: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  OVS_TABLE_ORDER.map((t) => [
    OVS_TABLES[t].table,
    [...ovsFields(t).map(([, f]) => f.column), ...(ovsTableSpec(t).monitorOnly ?? [])],
  ]),
);

/** Cache indexes: the name column, or the external_ids key that names the row. */
export const OVS_INDEXES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  OVS_TABLE_ORDER.flatMap((t) => {
    const id = OVS_TABLES[t].identity;
    if (id === 'root') return [];
    return [[OVS_TABLES[t].table, [id === 'name' ? 'name' : `external_ids:${OVS_NAME_ID}`]]];
  }),
);

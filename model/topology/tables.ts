/**
 * One description per table of the model: the NB table that holds it, the
 * fields that make a row's key, every field with the NB column that stores it
 * and how it compares, the references a row makes (field → table, by NB uuid
 * or by name, strong or weak), the link to its parent row, and which fields
 * change member by member. The model's keys, references, row diff and plan
 * order, and the OVN backend's codec, monitor and indexes, all read this one
 * object; backends/ovn/nb/description.test.ts checks it against the OVSDB
 * schema the generated row types come from.
 *
 * Every column named here is a column kovn owns: it is written from the model
 * row and monitored to read the row back. A parent's child column (e.g.
 * `Logical_Switch.ports`) is owned member by member: kovn adds and removes its
 * own children and leaves the others.
 *
 * The order of {@link TABLES} is creation order (see `plan.ts`): a row
 * references only rows of earlier tables. Router port `peer` (same-table,
 * symmetric, checked on the whole topology) and switch port `parentName` (a
 * plain string in NB that may name a later port) are not references here.
 */
import type { TableName, Tables } from './types.ts';

/**
 * How a field compares and is stored:
 * - `scalar`: string, number, boolean or undefined, compared with `===`.
 * - `set`: an NB set of strings, compared as a set.
 * - `map`: an NB map (or a small record such as `attachTo`), compared by entries; an entry whose value is undefined is
 *   absent.
 * - `match`: a match AST, compared and stored as its canonical printed text.
 * - `rowSet`: a set of small records stored as rows of another NB table (gateway chassis), compared as a set.
 */
export type ColumnKind = 'scalar' | 'set' | 'map' | 'match' | 'rowSet';

export type RefStrength = 'strong' | 'weak';

/**
 * A field that names rows of another table: `uuid` when the NB column is an
 * OVSDB reference (`refTable`, `refType`); `name` when NB holds the name as a
 * plain string (or, with `option`, as the value of one key of a map column,
 * counted only while field `when.field` equals `when.equals`).
 */
export type FieldRef =
  | { readonly by: 'uuid'; readonly table: TableName; readonly strength: RefStrength }
  | { readonly by: 'name'; readonly table: TableName }
  | {
      readonly by: 'option';
      readonly option: string;
      readonly table: TableName;
      readonly when: { readonly field: string; readonly equals: string };
    };

/** Rows of another NB table that a `rowSet` field is stored as, and the columns of each model record. */
export interface RowSetSpec {
  readonly nbTable: string;
  readonly strength: RefStrength;
  readonly columns: Readonly<Record<string, string>>;
}

export interface FieldSpec {
  readonly kind: ColumnKind;
  /**
   * The NB column that stores the field. Absent for the parent link (held in the parent's column, see
   * {@link ParentSpec}) and for a key kept in external_ids (DHCP options' name).
   */
  readonly column?: string;
  readonly ref?: FieldRef;
  /** Changed member by member with a `mutate` operation (see `members.ts`). */
  readonly member?: true;
  readonly rows?: RowSetSpec;
}

/**
 * Where a non-root row hangs: field `field` names its parent (a name, or an
 * `{ kind, name }` record whose kind picks the slot), and the parent holds the
 * child's uuid in `column`.
 */
export interface ParentSpec {
  readonly field: string;
  readonly slots: readonly {
    readonly table: 'switch' | 'router' | 'portGroup';
    readonly column: string;
    readonly strength: RefStrength;
    /** For a `{ kind, name }` parent field: the kind that selects this slot. */
    readonly kind?: string;
  }[];
}

export interface TableSpec<T extends TableName> {
  /** The NB table. */
  readonly nb: string;
  /** The fields that make a row's identity, in key order (see `keys.ts`). */
  readonly key: readonly (keyof Tables[T] & string)[];
  /** Key fields whose absence means a default value (NB's column default), so both give one key. */
  readonly keyDefaults?: { readonly [K in keyof Tables[T]]?: string };
  readonly fields: { readonly [K in keyof Tables[T]]-?: FieldSpec };
  readonly parent?: ParentSpec;
}

const EXTERNAL_IDS = { kind: 'map', column: 'external_ids' } as const;
const OPTIONS = { kind: 'map', column: 'options' } as const;
const NAME = { kind: 'scalar', column: 'name' } as const;
const PRIORITY = { kind: 'scalar', column: 'priority' } as const;
const MATCH = { kind: 'match', column: 'match' } as const;
const LOAD_BALANCERS = {
  kind: 'set',
  column: 'load_balancer',
  ref: { by: 'uuid', table: 'loadBalancer', strength: 'weak' },
  member: true,
} as const;
const PARENT_LINK = { kind: 'scalar' } as const;
const onRouter = (column: string) =>
  ({ field: 'router', slots: [{ table: 'router', column, strength: 'strong' }] }) as const;

/**
 * Every table of the model, in creation order.
 *
 * @example TABLES.nat.key // ['router', 'type', 'externalIp', 'logicalIp']
 */
export const TABLES = {
  dhcpOptions: {
    nb: 'DHCP_Options',
    key: ['name'],
    fields: {
      name: { kind: 'scalar' },
      cidr: { kind: 'scalar', column: 'cidr' },
      options: OPTIONS,
      externalIds: EXTERNAL_IDS,
    },
  },
  addressSet: {
    nb: 'Address_Set',
    key: ['name'],
    fields: { name: NAME, addresses: { kind: 'set', column: 'addresses', member: true }, externalIds: EXTERNAL_IDS },
  },
  loadBalancer: {
    nb: 'Load_Balancer',
    key: ['name'],
    fields: {
      name: NAME,
      vips: { kind: 'map', column: 'vips', member: true },
      protocol: { kind: 'scalar', column: 'protocol' },
      selectionFields: { kind: 'set', column: 'selection_fields' },
      options: OPTIONS,
      externalIds: EXTERNAL_IDS,
    },
  },
  switch: {
    nb: 'Logical_Switch',
    key: ['name'],
    fields: {
      name: NAME,
      loadBalancers: LOAD_BALANCERS,
      otherConfig: { kind: 'map', column: 'other_config' },
      externalIds: EXTERNAL_IDS,
    },
  },
  router: {
    nb: 'Logical_Router',
    key: ['name'],
    fields: {
      name: NAME,
      enabled: { kind: 'scalar', column: 'enabled' },
      options: OPTIONS,
      loadBalancers: LOAD_BALANCERS,
      externalIds: EXTERNAL_IDS,
    },
  },
  routerPort: {
    nb: 'Logical_Router_Port',
    key: ['name'],
    parent: { field: 'router', slots: [{ table: 'router', column: 'ports', strength: 'strong' }] },
    fields: {
      name: NAME,
      router: PARENT_LINK,
      mac: { kind: 'scalar', column: 'mac' },
      networks: { kind: 'set', column: 'networks' },
      peer: { kind: 'scalar', column: 'peer' },
      enabled: { kind: 'scalar', column: 'enabled' },
      gatewayChassis: {
        kind: 'rowSet',
        column: 'gateway_chassis',
        rows: {
          nbTable: 'Gateway_Chassis',
          strength: 'strong',
          columns: { chassisName: 'chassis_name', priority: 'priority' },
        },
      },
      options: OPTIONS,
      ipv6RaConfigs: { kind: 'map', column: 'ipv6_ra_configs' },
      externalIds: EXTERNAL_IDS,
    },
  },
  switchPort: {
    nb: 'Logical_Switch_Port',
    key: ['name'],
    parent: { field: 'switch', slots: [{ table: 'switch', column: 'ports', strength: 'strong' }] },
    fields: {
      name: NAME,
      switch: PARENT_LINK,
      type: { kind: 'scalar', column: 'type' },
      addresses: { kind: 'set', column: 'addresses' },
      portSecurity: { kind: 'set', column: 'port_security' },
      options: {
        ...OPTIONS,
        ref: { by: 'option', option: 'router-port', table: 'routerPort', when: { field: 'type', equals: 'router' } },
      },
      enabled: { kind: 'scalar', column: 'enabled' },
      parentName: { kind: 'scalar', column: 'parent_name' },
      tagRequest: { kind: 'scalar', column: 'tag_request' },
      tag: { kind: 'scalar', column: 'tag' },
      dhcpv4Options: {
        kind: 'scalar',
        column: 'dhcpv4_options',
        ref: { by: 'uuid', table: 'dhcpOptions', strength: 'weak' },
      },
      dhcpv6Options: {
        kind: 'scalar',
        column: 'dhcpv6_options',
        ref: { by: 'uuid', table: 'dhcpOptions', strength: 'weak' },
      },
      externalIds: EXTERNAL_IDS,
    },
  },
  portGroup: {
    nb: 'Port_Group',
    key: ['name'],
    fields: {
      name: NAME,
      ports: { kind: 'set', column: 'ports', ref: { by: 'uuid', table: 'switchPort', strength: 'weak' }, member: true },
      externalIds: EXTERNAL_IDS,
    },
  },
  acl: {
    nb: 'ACL',
    key: ['attachTo', 'direction', 'priority', 'match'],
    parent: {
      field: 'attachTo',
      slots: [
        { table: 'switch', column: 'acls', strength: 'strong', kind: 'switch' },
        { table: 'portGroup', column: 'acls', strength: 'strong', kind: 'port-group' },
      ],
    },
    fields: {
      attachTo: { kind: 'map' },
      direction: { kind: 'scalar', column: 'direction' },
      priority: PRIORITY,
      match: MATCH,
      action: { kind: 'scalar', column: 'action' },
      name: NAME,
      log: { kind: 'scalar', column: 'log' },
      severity: { kind: 'scalar', column: 'severity' },
      meter: { kind: 'scalar', column: 'meter' },
      label: { kind: 'scalar', column: 'label' },
      options: OPTIONS,
      externalIds: EXTERNAL_IDS,
    },
  },
  qos: {
    nb: 'QoS',
    // OVN has no uniqueness on a QoS row's match: two rules of one match (a rate and a DSCP mark) are two rows.
    key: ['switch', 'direction', 'priority', 'match', 'action', 'bandwidth'],
    parent: { field: 'switch', slots: [{ table: 'switch', column: 'qos_rules', strength: 'strong' }] },
    fields: {
      switch: PARENT_LINK,
      direction: { kind: 'scalar', column: 'direction' },
      priority: PRIORITY,
      match: MATCH,
      action: { kind: 'map', column: 'action' },
      bandwidth: { kind: 'map', column: 'bandwidth' },
      externalIds: EXTERNAL_IDS,
    },
  },
  nat: {
    nb: 'NAT',
    key: ['router', 'type', 'externalIp', 'logicalIp'],
    parent: onRouter('nat'),
    fields: {
      router: PARENT_LINK,
      type: { kind: 'scalar', column: 'type' },
      externalIp: { kind: 'scalar', column: 'external_ip' },
      logicalIp: { kind: 'scalar', column: 'logical_ip' },
      logicalPort: { kind: 'scalar', column: 'logical_port', ref: { by: 'name', table: 'switchPort' } },
      externalMac: { kind: 'scalar', column: 'external_mac' },
      externalPortRange: { kind: 'scalar', column: 'external_port_range' },
      gatewayPort: {
        kind: 'scalar',
        column: 'gateway_port',
        ref: { by: 'uuid', table: 'routerPort', strength: 'weak' },
      },
      options: OPTIONS,
      externalIds: EXTERNAL_IDS,
    },
  },
  staticRoute: {
    nb: 'Logical_Router_Static_Route',
    key: ['router', 'routeTable', 'policy', 'ipPrefix', 'nexthop'],
    keyDefaults: { policy: 'dst-ip' },
    parent: onRouter('static_routes'),
    fields: {
      router: PARENT_LINK,
      ipPrefix: { kind: 'scalar', column: 'ip_prefix' },
      nexthop: { kind: 'scalar', column: 'nexthop' },
      policy: { kind: 'scalar', column: 'policy' },
      outputPort: { kind: 'scalar', column: 'output_port', ref: { by: 'name', table: 'routerPort' } },
      routeTable: { kind: 'scalar', column: 'route_table' },
      options: OPTIONS,
      externalIds: EXTERNAL_IDS,
    },
  },
  routerPolicy: {
    nb: 'Logical_Router_Policy',
    key: ['router', 'priority', 'match'],
    parent: onRouter('policies'),
    fields: {
      router: PARENT_LINK,
      priority: PRIORITY,
      match: MATCH,
      action: { kind: 'scalar', column: 'action' },
      nexthops: { kind: 'set', column: 'nexthops' },
      options: OPTIONS,
      externalIds: EXTERNAL_IDS,
    },
  },
} as const satisfies { readonly [T in TableName]: TableSpec<T> };

/** The description of one table, widened to {@link TableSpec} for code that walks any table. */
export function tableSpec<T extends TableName>(table: T): TableSpec<T> {
  return TABLES[table] as unknown as TableSpec<T>;
}

/**
 * Tables in creation order: a row's references point only to rows of earlier
 * tables (checked in tables.test.ts). Deletion runs in the reverse order.
 */
export const TABLE_ORDER = Object.keys(TABLES) as readonly TableName[];

/** The fields of each table, by kind (the row diff and the desired-state store read this). */
export type TableColumns = {
  readonly [T in TableName]: { readonly [K in keyof Tables[T]]-?: KindOf<(typeof TABLES)[T]['fields'], K> };
};
type KindOf<F, K> = K extends keyof F ? (F[K] extends { readonly kind: infer C } ? C : never) : never;

/** How each field of each table compares. */
export const COLUMNS = Object.fromEntries(
  TABLE_ORDER.map((t) => [
    t,
    Object.fromEntries(Object.entries(tableSpec(t).fields).map(([f, s]) => [f, (s as FieldSpec).kind])),
  ]),
) as unknown as TableColumns;

/** Fields that change member by member, per table (`members.ts`). */
export type MemberFields = {
  readonly [T in TableName as MemberFieldOf<T> extends never ? never : T]: readonly MemberFieldOf<T>[];
};
type MemberFieldOf<T extends TableName> = {
  [K in keyof (typeof TABLES)[T]['fields']]: (typeof TABLES)[T]['fields'][K] extends { member: true } ? K : never;
}[keyof (typeof TABLES)[T]['fields']];

/** The parent a row hangs off (`undefined` for root tables), with the slot that holds it. */
export function parentOf<T extends TableName>(
  table: T,
  row: Tables[T],
): { readonly table: 'switch' | 'router' | 'portGroup'; readonly name: string; readonly column: string } | undefined {
  const p = tableSpec(table).parent;
  if (p === undefined) return undefined;
  const v = (row as unknown as Readonly<Record<string, unknown>>)[p.field];
  if (typeof v === 'string') {
    const [slot] = p.slots;
    return slot && { table: slot.table, name: v, column: slot.column };
  }
  const link = v as { readonly kind: string; readonly name: string };
  const slot = p.slots.find((s) => s.kind === link.kind);
  return slot && { table: slot.table, name: link.name, column: slot.column };
}

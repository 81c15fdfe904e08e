/**
 * Which NB table holds each model table, how kovn recognises its own rows
 * there, and what the session monitors and indexes.
 *
 * Ownership: every row kovn writes carries `external_ids:vendor=kovn`; rows
 * without it are never updated or deleted. Tables with a name column are
 * identified by name; the others carry their model key in
 * `external_ids:kovn-key` (DHCP options: `kovn-name`), which is also what a
 * guarded insert checks so that a replayed transaction cannot add a second
 * row (raft commits are at-least-once).
 *
 * Two more reserved keys keep the round trip exact:
 * - `kovn-vendor`: the model row's own `externalIds.vendor`, if it sets one
 *   (NB's `vendor` is always `kovn`, the owner tag).
 * - `kovn-explicit`: model fields set to the value NB cannot tell from
 *   "unset" (ACL `label` 0, NAT `externalPortRange` ""), comma-separated.
 */
import type { TableName } from '../../../model/topology/index.ts';
import type { nb } from '../ovsdb/index.ts';
import { OvnBackendError } from './errors.ts';

export type NbTable = nb.TableName;

export const VENDOR_KEY = 'vendor';
export const VENDOR = 'kovn';
export const KEY_ID = 'kovn-key';
export const NAME_ID = 'kovn-name';
export const SHADOW_VENDOR_ID = 'kovn-vendor';
export const EXPLICIT_ID = 'kovn-explicit';
const RESERVED = new Set([KEY_ID, NAME_ID, SHADOW_VENDOR_ID, EXPLICIT_ID]);

/** The NB table of each model table. */
export const NB_TABLE = {
  switch: 'Logical_Switch',
  switchPort: 'Logical_Switch_Port',
  router: 'Logical_Router',
  routerPort: 'Logical_Router_Port',
  acl: 'ACL',
  addressSet: 'Address_Set',
  portGroup: 'Port_Group',
  loadBalancer: 'Load_Balancer',
  nat: 'NAT',
  staticRoute: 'Logical_Router_Static_Route',
  routerPolicy: 'Logical_Router_Policy',
  qos: 'QoS',
  dhcpOptions: 'DHCP_Options',
} as const satisfies Record<TableName, NbTable>;

/** How a model table's rows are found in NB: by `name`, or by an external_ids key. */
export type Identity =
  | { readonly kind: 'name' }
  | { readonly kind: 'id'; readonly idKey: typeof KEY_ID | typeof NAME_ID };

export const IDENTITY: Readonly<Record<TableName, Identity>> = {
  switch: { kind: 'name' },
  switchPort: { kind: 'name' },
  router: { kind: 'name' },
  routerPort: { kind: 'name' },
  addressSet: { kind: 'name' },
  portGroup: { kind: 'name' },
  loadBalancer: { kind: 'name' },
  dhcpOptions: { kind: 'id', idKey: NAME_ID },
  acl: { kind: 'id', idKey: KEY_ID },
  nat: { kind: 'id', idKey: KEY_ID },
  staticRoute: { kind: 'id', idKey: KEY_ID },
  routerPolicy: { kind: 'id', idKey: KEY_ID },
  qos: { kind: 'id', idKey: KEY_ID },
};

/**
 * Guard of an insert (`OpBuilder.guardedInsert`'s unique spec), or undefined
 * where NB's own unique index on `name` already makes a replay fail.
 * Switches, routers and load balancers have no index on `name`: the guard is
 * on the name alone, so a row of that name created meanwhile by anyone fails
 * the insert instead of duplicating the name.
 */
export const INSERT_GUARD: Readonly<Record<TableName, readonly string[] | undefined>> = {
  switch: ['name'],
  router: ['name'],
  loadBalancer: ['name'],
  switchPort: undefined,
  routerPort: undefined,
  addressSet: undefined,
  portGroup: undefined,
  dhcpOptions: [`external_ids:${VENDOR_KEY}`, `external_ids:${NAME_ID}`],
  acl: [`external_ids:${VENDOR_KEY}`, `external_ids:${KEY_ID}`],
  nat: [`external_ids:${VENDOR_KEY}`, `external_ids:${KEY_ID}`],
  staticRoute: [`external_ids:${VENDOR_KEY}`, `external_ids:${KEY_ID}`],
  routerPolicy: [`external_ids:${VENDOR_KEY}`, `external_ids:${KEY_ID}`],
  qos: [`external_ids:${VENDOR_KEY}`, `external_ids:${KEY_ID}`],
};

/** Where a child row hangs in NB: the parent's model table and uuid-set column. */
export interface ParentSlot {
  readonly table: 'switch' | 'router' | 'portGroup';
  readonly column: 'ports' | 'acls' | 'qos_rules' | 'nat' | 'static_routes' | 'policies';
}

/** Parent slots that may hold a row of each non-root model table. */
export const PARENT_SLOTS: Readonly<Partial<Record<TableName, readonly ParentSlot[]>>> = {
  switchPort: [{ table: 'switch', column: 'ports' }],
  routerPort: [{ table: 'router', column: 'ports' }],
  acl: [
    { table: 'switch', column: 'acls' },
    { table: 'portGroup', column: 'acls' },
  ],
  qos: [{ table: 'switch', column: 'qos_rules' }],
  nat: [{ table: 'router', column: 'nat' }],
  staticRoute: [{ table: 'router', column: 'static_routes' }],
  routerPolicy: [{ table: 'router', column: 'policies' }],
};

/** Monitored columns: exactly what the mapping reads (not northd's `up`, `dynamic_addresses`, ...). */
export const MONITOR: Readonly<Partial<Record<NbTable, readonly string[]>>> = {
  Logical_Switch: ['name', 'ports', 'acls', 'qos_rules', 'load_balancer', 'other_config', 'external_ids'],
  Logical_Switch_Port: [
    'name',
    'type',
    'addresses',
    'port_security',
    'options',
    'enabled',
    'parent_name',
    'tag_request',
    'dhcpv4_options',
    'dhcpv6_options',
    'external_ids',
  ],
  Logical_Router: [
    'name',
    'enabled',
    'options',
    'load_balancer',
    'ports',
    'nat',
    'static_routes',
    'policies',
    'external_ids',
  ],
  Logical_Router_Port: [
    'name',
    'mac',
    'networks',
    'peer',
    'enabled',
    'gateway_chassis',
    'options',
    'ipv6_ra_configs',
    'external_ids',
  ],
  Gateway_Chassis: ['name', 'chassis_name', 'priority', 'external_ids'],
  ACL: [
    'action',
    'direction',
    'priority',
    'match',
    'name',
    'log',
    'severity',
    'meter',
    'label',
    'options',
    'external_ids',
  ],
  Address_Set: ['name', 'addresses', 'external_ids'],
  Port_Group: ['name', 'ports', 'acls', 'external_ids'],
  Load_Balancer: ['name', 'vips', 'protocol', 'selection_fields', 'options', 'external_ids'],
  NAT: [
    'type',
    'external_ip',
    'logical_ip',
    'logical_port',
    'external_mac',
    'external_port_range',
    'gateway_port',
    'options',
    'external_ids',
  ],
  Logical_Router_Static_Route: [
    'ip_prefix',
    'nexthop',
    'policy',
    'output_port',
    'route_table',
    'options',
    'external_ids',
  ],
  Logical_Router_Policy: ['priority', 'match', 'action', 'nexthops', 'options', 'external_ids'],
  QoS: ['direction', 'priority', 'match', 'action', 'bandwidth', 'external_ids'],
  DHCP_Options: ['cidr', 'options', 'external_ids'],
  NB_Global: ['nb_cfg', 'sb_cfg', 'hv_cfg'],
};

const byId = (k: string) => [`external_ids:${k}`];

/**
 * Cache indexes: names and id keys. Parent columns (`Logical_Switch.ports`,
 * ...) are not indexed: an index on a set column is rebuilt on every change
 * of the set, which on a switch gaining ports in every batch costs more than
 * view.ts's reverse map, built only when asked for.
 */
export const INDEXES: Readonly<Partial<Record<NbTable, readonly string[]>>> = {
  Logical_Switch: ['name'],
  Logical_Switch_Port: ['name'],
  Logical_Router: ['name'],
  Logical_Router_Port: ['name'],
  Gateway_Chassis: ['name'],
  ACL: byId(KEY_ID),
  Address_Set: ['name'],
  Port_Group: ['name'],
  Load_Balancer: ['name'],
  NAT: byId(KEY_ID),
  Logical_Router_Static_Route: byId(KEY_ID),
  Logical_Router_Policy: byId(KEY_ID),
  QoS: byId(KEY_ID),
  DHCP_Options: byId(NAME_ID),
};

type Ids = Readonly<Record<string, string>>;

/** Whether an NB row belongs to kovn. */
export function isOwned(row: { readonly external_ids?: Ids }): boolean {
  return row.external_ids?.[VENDOR_KEY] === VENDOR;
}

/**
 * The NB external_ids of a model row: its own ids plus the owner tag, the
 * identity key, and the shadow keys described in the file header.
 *
 * @example encodeIds({ np: 'web' }, { 'kovn-key': 'k' }, []) // { np: 'web', vendor: 'kovn', 'kovn-key': 'k' }
 */
export function encodeIds(
  model: Ids,
  tags: Readonly<Record<string, string>>,
  explicit: readonly string[],
  where: () => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(model)) {
    const v = model[k];
    if (v === undefined) continue;
    if (RESERVED.has(k))
      throw new OvnBackendError(
        'reserved-key',
        `${where()}: externalIds key ${JSON.stringify(k)} is reserved for kovn's own bookkeeping`,
      );
    if (k === VENDOR_KEY) out[SHADOW_VENDOR_ID] = v;
    else out[k] = v;
  }
  out[VENDOR_KEY] = VENDOR;
  for (const k of Object.keys(tags)) out[k] = tags[k] as string;
  if (explicit.length > 0) out[EXPLICIT_ID] = explicit.join(',');
  return out;
}

/** The model's externalIds and explicit-field list back from NB external_ids. */
export function decodeIds(ids: Ids): { externalIds: Record<string, string>; explicit: ReadonlySet<string> } {
  const externalIds: Record<string, string> = {};
  let explicit: ReadonlySet<string> = NO_FIELDS;
  for (const [k, v] of Object.entries(ids)) {
    if (k === VENDOR_KEY || k === KEY_ID || k === NAME_ID) continue;
    if (k === SHADOW_VENDOR_ID) externalIds[VENDOR_KEY] = v;
    else if (k === EXPLICIT_ID) explicit = new Set(v.split(','));
    else externalIds[k] = v;
  }
  return { externalIds, explicit };
}

const NO_FIELDS: ReadonlySet<string> = new Set();

/**
 * backends/ovn/vswitch: the local Open_vSwitch database as the node agent
 * writes it. One description per table (tables.ts: table, identity, columns,
 * references, monitored columns), the values (types.ts), and a codec typed
 * with the generated row types (codec.ts); checked against the schema in
 * description.test.ts.
 */
export type * from './types.ts';
export {
  OVS_INDEXES,
  OVS_MONITOR,
  OVS_NAME_ID,
  OVS_TABLES,
  OVS_TABLE_ORDER,
  ovsTableSpec,
  type OvsRow,
} from './tables.ts';
export { fromOvsRow, toOvsColumns, type NameOf, type OvsColumns, type UuidOf } from './codec.ts';

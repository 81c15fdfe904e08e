/**
 * backends/ovn/ovsdb/schema: row types generated from the installed OVN NB,
 * OVN SB and Open_vSwitch schemas (`npm run gen:schema`), one namespace per
 * database: `nb.LogicalSwitch`, `sb.PortBinding`, `vswitch.Interface`.
 */
export * as nb from './ovn-nb.gen.ts';
export * as sb from './ovn-sb.gen.ts';
export * as vswitch from './vswitch.gen.ts';

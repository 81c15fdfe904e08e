/**
 * sim/compile: the topology turned once into indexed structures the
 * pipelines read (ports and the patch links between datapaths, ACLs and
 * router policies indexed by the port or address their match requires, VIPs
 * by address, MAC tables, routes by priority, NAT rules with their gateway
 * port, ARP-resolve tables).
 */
export * from './types.ts';
export { compileNetwork } from './network.ts';
export { lspZone, dnatZone, snatZone } from './ports.ts';
export { lookupRoute } from './routes.ts';

/**
 * sim/compile: the topology turned once into indexed structures the
 * pipelines read (ports, ACLs by port, VIPs by address, routes by priority,
 * NAT rules with their gateway port, ARP-resolve tables).
 */
export * from './types.ts';
export { compileNetwork } from './network.ts';
export { lspZone, dnatZone, snatZone } from './ports.ts';
export { lookupRoute } from './routes.ts';

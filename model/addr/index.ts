/**
 * model/addr: IPv4 (uint32 numbers), IPv6 (bigint), MAC (48-bit numbers) and
 * CIDR values; parse, RFC 5952 format, containment, overlap, prefix math.
 * Pure and allocation-light: IPAM and the simulator call these on hot paths.
 */
export * from './errors.ts';
export * from './ip.ts';
export * from './cidr.ts';
export * from './mac.ts';

/**
 * backends/ovn/ovsdb/wire: the RFC 7047 wire types, the leaf of the OVSDB
 * client. One format per file, each a parse/emit pair; nothing here does I/O
 * or imports anything else of the client.
 */
export * from './errors.ts';
export * from './json.ts';
export * from './atom.ts';
export * from './datum.ts';
export * from './schema.ts';
export * from './condition.ts';
export * from './mutation.ts';
export * from './operation.ts';
export * from './result.ts';
export * from './update.ts';
export * from './monitor.ts';
export * from './jsonrpc.ts';
export * from './decode.ts';

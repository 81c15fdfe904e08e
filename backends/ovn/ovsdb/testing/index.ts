/**
 * backends/ovn/ovsdb/testing: helpers for the client's tests only (a fake
 * stream, a scripted fake server, wire arbitraries, real-server helpers).
 * Production code never imports this folder (layering.test.ts checks).
 */
export * from './fake-stream.ts';
export * from './fake-server.ts';
export * from './wire-arbitraries.ts';
export * from './nb-helpers.ts';

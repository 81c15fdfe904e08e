/**
 * model/packet: packets as immutable values whose fields are named as the OVN
 * match language names them (so the match evaluator reads them directly),
 * the simulator's one-shape working form of them (SimPacket), builders for
 * tests and probes, and text forms (human, JSON, ovn-trace microflow).
 */
export * from './fields.ts';
export * from './packet.ts';
export * from './canonical.ts';
export * from './build.ts';
export * from './format.ts';
export * from './wire/index.ts';

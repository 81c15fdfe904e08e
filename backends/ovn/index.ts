/**
 * backends/ovn: kovn on real OVN. `OvnBackend` (nb/) is the model's Backend
 * on the Northbound database, built on our own OVSDB client (ovsdb/); the
 * control plane (control-plane/) starts local ovsdb-servers, northd and raft
 * clusters for tests, labs and benchmarks; trace/ asks ovn-trace for real
 * OVN's verdict on a packet.
 */
export * from './nb/index.ts';
export * as ovsdb from './ovsdb/index.ts';
export * as controlPlane from './control-plane/index.ts';
export * as trace from './trace/index.ts';

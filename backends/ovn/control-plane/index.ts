/**
 * backends/ovn/control-plane: real OVN/OVS daemons for tests, the CLI's
 * `--backend ovn`, the benchmarks and the differential test. Starts and stops
 * processes only (ovsdb-tool, ovsdb-server, ovn-northd, ovn-trace, the
 * appctl tools); speaking OVSDB is backends/ovn/ovsdb's job.
 *
 * Every daemon runs in a temp dir with its own pidfile, unixctl socket and
 * log, as a child of this process (ovn-trace must --detach), and is stopped
 * by pid. Daemons and run dirs never outlive this process, however it ends:
 * the exit hooks end them (registry.ts), or, where no JavaScript runs at
 * death (SIGKILL, V8's abort), the run guard (run-guard.ts); run dirs carry
 * an owner marker, and a later run removes those whose owner is gone
 * (run-dir.ts). ovn-trace 23.03's daemon takes no --ct/--lb-dst and never
 * re-reads the SB: see ovn-trace.ts before relying on it.
 *
 * Measured (2 vCPU VM, OVN 23.03.1 / OVS 3.1.0, median of 7, until ready):
 *   ovsdb-server, create db + start + answers list-dbs       19 ms
 *   ovsdb-server restart after SIGKILL                        13 ms
 *   control plane NB+SB, no northd                            24 ms
 *   control plane NB+SB+northd ("Status: active"), tcp        44 ms
 *   control plane stop                                        22 ms
 *   first `ovn-nbctl --wait=sb ls-add` after start            12 ms
 *   3-member raft cluster (create/join, all connected, leader) 121 ms (max 395)
 *   kill the leader → another member is leader               1.3 s (election timer 1 s)
 *   restart a killed member until it rejoined                 270 ms
 *   ovn-trace daemon on a tiny SB                              9 ms
 *   one trace through the daemon (ovn-appctl), tiny SB         4 ms
 * (A throwaway tsx loop over the start functions; not kept, figures are notes, not targets.)
 */
export { ControlPlaneError, type ControlPlaneErrorCode } from './errors.ts';
export { OVN_BINARIES, binaryPath, ovnBinariesPresent, requireOvn, type OvnBinary } from './binaries.ts';
export { runTool, daemonEnv, type RunToolOptions, type ToolResult } from './exec.ts';
export type { ProcessHandle } from './daemon.ts';
export { trackedPids } from './registry.ts';
export { freePort } from './ports.ts';
export { NB_SCHEMA, SB_SCHEMA, VSWITCH_SCHEMA, startOvsdbServer, type OvsdbServer } from './ovsdb-server.ts';
export { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane.ts';
export { makeTempDir, removeTempDir } from './run-dir.ts';
export { startCluster, type ClusterMember, type ClusterOptions, type OvsdbCluster } from './cluster.ts';
export { startOvnTrace, type OvnTraceDaemon, type OvnTraceOptions, type TraceArgs } from './ovn-trace.ts';
export {
  memberView,
  parseRaftStatus,
  raftHealth,
  type MemberView,
  type RaftProblem,
  type RaftProblemCode,
  type RaftServer,
  type RaftStatus,
} from './raft-status.ts';

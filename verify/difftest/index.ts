/**
 * verify/difftest: the differential test, the proof that the simulator
 * gives OVN's verdicts. Random valid topologies and packets (fast-check,
 * seeded), each loaded into one real OVN (NB backend → northd → SB) and run
 * in three worlds: the simulator, ovn-trace (its documented quirks in
 * backends/ovn/trace/normalize.ts), and real packets through a dummy
 * chassis (verify/datapath), the judge, as a connection (first packet,
 * reply, first again: three-way.ts, datapath-side.ts). The verdicts
 * (delivered or dropped, output ports, the packets' MACs, IPs, ports, TTL,
 * ICMP, DSCP) are compared. Disagreements are minimized by fast-check's
 * shrinking and kept as regression cases (regressions/*.json).
 *
 *   const r = await runDifftest({ cases: 300, seed: 7, oracle: 'both' }); // kovn difftest --cases 300 --json
 *   r.agree === r.cases || console.log(r.disagreements);
 */
export {
  runDifftest,
  type Disagreement,
  type DifftestOptions,
  type DifftestProgress,
  type DifftestResult,
  type PairTally,
} from './run.ts';
export { createOvnWorld, type OvnWorld, type OvnWorldOptions } from './world.ts';
export { evaluateCase, failureKind, type CaseOutcome } from './evaluate.ts';
export {
  compareObserved,
  formatDiff,
  observeOvn,
  observeSim,
  type Observed,
  type ObservedOutput,
  type PartialRule,
  type VerdictDiff,
} from './compare.ts';
export { buildCase, caseFromJSON, caseToJSON, type DiffCase, type DiffCaseJSON } from './case.ts';
export {
  checkRegression,
  readRegressions,
  writeRegression,
  REGRESSIONS_DIR,
  type RegressionFile,
} from './regressions.ts';
export { simulateCase, type SimRun } from './simulate-case.ts';
export {
  compareTraceDatapath,
  evaluateThreeWay,
  threeWayFailureKind,
  type Oracle,
  type ThreeWayOutcome,
  type TraceVsDatapath,
} from './three-way.ts';
export {
  evaluateDatapath,
  hostReply,
  observeDatapath,
  simAgainstSteps,
  type DatapathArtefact,
  type DatapathOutcome,
} from './datapath-side.ts';

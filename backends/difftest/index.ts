/**
 * backends/difftest: the differential test, the proof that the simulator
 * gives OVN's verdicts. Random valid topologies and packets (fast-check,
 * seeded), each loaded into one real OVN (NB backend → northd → SB) and
 * traced with ovn-trace and with the simulator; the verdicts (delivered or
 * dropped, output ports, the delivered packets' MACs, IPs, ports, TTL, ICMP)
 * are compared, ovn-trace's documented quirks (backends/ovn/trace/
 * normalize.ts) applied. Disagreements are minimized by fast-check's
 * shrinking and kept as regression cases (regressions/*.json).
 *
 *   const r = await runDifftest({ cases: 300, seed: 7 });   // kovn difftest --cases 300 --seed 7 --json
 *   r.agree === r.cases || console.log(r.disagreements);
 */
export {
  runDifftest,
  type Disagreement,
  type DifftestOptions,
  type DifftestProgress,
  type DifftestResult,
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

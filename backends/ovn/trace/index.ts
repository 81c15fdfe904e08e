/**
 * backends/ovn/trace: real OVN's verdict for a packet at a logical port, the
 * other side of the differential test. A simulator packet becomes an
 * ovn-trace microflow (microflow.ts), ovn-trace runs as a daemon or one-shot
 * over the southbound DB (tracer.ts), its --detailed text becomes a tree and
 * a stage list (parse.ts) and a verdict with the packet as it left each port
 * (verdict.ts), and the places where ovn-trace differs from OVN are
 * documented rules in one place (normalize.ts).
 *
 * Measured (2 vCPU VM, OVN 23.03.1, median; one router, N switches with a
 * stateful ACL set and load balancers each; a throwaway tsx script):
 *                              100 ports     5,000 ports   5,000 ports, 1,000 ACLs, 500 LBs
 *   logical flows                    704          21,914          24,714
 *   daemon start (reads the SB)   102 ms          1.2 s           2.0 s
 *   daemon trace, same switch     5.5 ms          4.7 ms          9.5 ms
 *   daemon trace, routed          8.5 ms         10.5 ms         16.2 ms
 *   one-shot trace, routed         58 ms          1.3 s           2.2 s
 *   LB VIP (daemon + one-shot)     60 ms          1.2 s           1.9 s
 * So the daemon is the only way to trace a large topology often; what needs
 * a one-shot (--lb-dst, a ct list, --select-id) costs a full SB read.
 */
export {
  TraceParseError,
  OvnTracerError,
  type TraceParseErrorCode,
  type OvnTracerErrorCode,
  type TraceLineRef,
} from './errors.ts';
export { microflowFor, toMicroflow, type Microflow } from './microflow.ts';
export { parseFlowLine, flowMismatches } from './flow-line.ts';
export { recirculatingCt } from './actions.ts';
export {
  parseTrace,
  type OvnTrace,
  type OvnTraceStage,
  type TraceNode,
  type PipelineNode,
  type TransformNode,
  type TableNode,
  type LeafNode,
} from './parse.ts';
export {
  traceVerdict,
  type TraceVerdict,
  type TraceOutput,
  type PathEnd,
  type PathEndKind,
  type QuirkHit,
  type VerdictOptions,
} from './verdict.ts';
export { lbSelectorOf, type LbSelector, type Generated } from './transforms.ts';
export { learnedAffinity, affinityRetrace, type AffinityRetrace, type LearnedAffinity } from './lb-affinity.ts';
export { seedGenerated, pinctrlSendsNothing, linkLocalOf, type GeneratedKind, type SeedMode } from './generated.ts';
export {
  QUIRKS,
  normalizeVerdict,
  firstDivergence,
  portSecPrefixMismatch,
  hairpinSnatAddress,
  type QuirkId,
  type QuirkRule,
  type Caveat,
  type NormalizedVerdict,
  type NormalizeContext,
} from './normalize.ts';
export { OvnTracer, type OvnTraceRequest, type OvnTraceResult, type OvnTracerOptions, type CtState } from './tracer.ts';

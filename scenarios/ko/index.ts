/**
 * scenarios/ko: the logic of `kovn ko` (cli/ko.ts) over a live cluster and
 * its OVN databases: where the databases are (endpoints.ts), the controller
 * replayed beside the cluster without writing to it (replay.ts), the
 * findings of `diagnose` (diagnose.ts) and the side-by-side `trace`
 * (trace.ts). Raft status is backends/ovn/control-plane/raft-status.ts.
 */
export {
  type AddressSource,
  type AnnotationFinding,
  type Diagnosis,
  type DiagnoseOptions,
  diagnose,
  type RowFinding,
  type RowRef,
  rowFindings,
} from './diagnose.ts';
export {
  type EndpointFlags,
  type Found,
  KoError,
  type KoErrorCode,
  need,
  OVN_CONFIGMAP,
  type Origin,
  type OvnEndpoints,
  resolveEndpoints,
} from './endpoints.ts';
export { copyCluster, type Replay, type ReplayOptions, replayCluster } from './replay.ts';
export { type KoTrace, type KoTraceOptions, koTrace, type SideVerdict } from './trace.ts';

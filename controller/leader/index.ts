/**
 * controller/leader: leader election over a coordination.k8s.io/v1 Lease
 * (client-go's algorithm and defaults), so that of the controller's
 * replicas only one reconciles and writes; `kovn controller` starts the
 * controller when it leads and exits when it stops leading.
 */
export {
  checkTiming,
  DEFAULT_TIMING,
  ElectionConfigError,
  ElectionTimeoutError,
  type ElectionTiming,
  type ElectorOptions,
  type ElectorState,
  LeaderElector,
} from './elector.ts';
export { type LeaderRecord, type LeaseRef, leaseOf, microTime, recordOf } from './record.ts';

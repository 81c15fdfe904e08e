/**
 * A simulator packet as the microflow `ovn-trace` takes. The one
 * implementation lives in the simulator (model/packet/format.ts, the lower
 * layer); this module re-exports it for the tracer and this folder's users.
 */
export { microflowFor, toMicroflow, type Microflow } from '../../../model/packet/format.ts';

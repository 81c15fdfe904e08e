/**
 * scenarios/runtime: the node agent under a real container runtime. podman
 * 4.3 with its CNI backend confined to a temp dir (podman.ts), a plugin
 * called as a runtime calls it (the lab's cni-exec.ts, cni-pods.ts), a one-node world
 * whose pods the controller addresses and the node daemon wires into a real
 * ovs-vswitchd (world.ts; the daemon in its own process and the chassis
 * are the lab's), and TCP measured between
 * namespaces (transfer.ts, tcp-agent.mjs): the podman test, the QoS test
 * and `kovn bench cni` are built from these.
 */
export { type CniCall, type CniCommand, type CniOutcome, formatCniArgs, invokePlugin } from '../lab/cni-exec.ts';
export { type CniPod, CniPods, type CniPodsOptions } from './cni-pods.ts';
export { RuntimeError, type RuntimeErrorCode } from './errors.ts';
export { BUSYBOX, type Conflist, Podman, type PodmanOptions, type PodmanRun } from './podman.ts';
export { host, isStaticElf, missingFor, requireRuntime, runName } from './support.ts';
export {
  type ConnectOptions,
  measureConnects,
  measureTransfer,
  type TransferOptions,
  type TransferResult,
} from './transfer.ts';
export { type PodSpec, RuntimeWorld, type RuntimeWorldOptions } from './world.ts';

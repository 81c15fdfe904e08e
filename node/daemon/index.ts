/**
 * node/daemon: the node agent behind the CNI plugin (Kube-OVN's
 * kube-ovn-cniserver): a unix-socket server speaking node/cni/protocol.ts
 * that wires pods into br-int from their annotations (ADD, DEL, CHECK,
 * STATUS, GC), keeps its record in the local Open_vSwitch database, and
 * sweeps what belongs to gone pods when it starts.
 */
export { NodeAgent, errorBody, type NodeAgentOptions } from './agent.ts';
export { attachmentsOf, findAttachment, type Attachment } from './attachments.ts';
export type { OvsWait } from './context.ts';
export { DEFAULT_SERVICE_CIDR, NodeSetup, NodeSetupError, type NodeSetupConfig } from './node-setup.ts';
export { startNodeDaemon, type NodeDaemon, type NodeDaemonOptions } from './daemon.ts';
export { DaemonError } from './errors.ts';
export { daemonRequestObserver, type RequestObserver } from './metrics.ts';
export { KOVN_IDS, hostNicName } from './names.ts';
export { cniResultOf, podLinkOf } from './pod-config.ts';
export { PodWatch, type WaitResult } from './pod-watch.ts';
export { HTB_QOS, bandwidthOf, bandwidthOps, type Bandwidth } from './qos.ts';
export { DaemonServerError, decodeRequest, listenDaemon, type DaemonServer } from './server.ts';

/**
 * node/ovs: the node agent's plumbing of the local Open_vSwitch database,
 * through kovn's OVSDB client (never ovs-vsctl): bridges and the root row's
 * external_ids (vswitch.ts), ports and interfaces (ports.ts), a pod's port
 * from the controller's annotations (pod.ts).
 */
export { OvsError, type OvsErrorCode } from './errors.ts';
export { CNI_VENDOR, podPortSpec, type PodInterface } from './pod.ts';
export { Vswitch, type BridgeSpec, type CommitOptions, type VswitchOptions } from './vswitch.ts';
export {
  INTEGRATION_BRIDGE,
  addPort,
  addPortOps,
  deletePort,
  deletePortOps,
  findPort,
  getPort,
  podIfaceId,
  setInterfaceOps,
  waitInstalled,
  type InterfaceChange,
  type PortRef,
  type PortSpec,
} from './ports.ts';

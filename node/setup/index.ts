/**
 * node/setup: what a node needs before its first pod, and the datapath
 * profile's say in each pod's port. The node's Open_vSwitch settings
 * (node-ovs.ts), `ovn0` on the join switch as an OVS internal port or, in
 * the lab, a veth into the node's namespace (node-nic.ts), and the datapath
 * profiles system / netdev / dpdk / hw-offload (profile.ts) with their say
 * in a pod's port and link (pod-port.ts; SR-IOV VFs through sysfs, sriov.ts). See
 * docs/node-profiles.md for which profile runs for real here.
 */
export { SetupError, issueError, type Planned, type SetupErrorCode, type SetupIssue } from './errors.ts';
export {
  DATAPATH_PROFILES,
  parseProfile,
  profileSettings,
  type DatapathProfile,
  type PodPortKind,
  type ProfileSettings,
} from './profile.ts';
export { configureNodeOvs, nodeExternalIds, nodeOvsOps, readProfile, type NodeOvsConfig } from './node-ovs.ts';
export {
  CLUSTER_ROUTER,
  NODE_NIC,
  ensureNodeNic,
  planNodeNic,
  removeNodeNic,
  type NodeNicContext,
  type NodeNicForm,
  type NodeNicInput,
  type NodeNicPlan,
  type NodeRoute,
} from './node-nic.ts';
export {
  VHOST_USER_CLIENT,
  decidePodPort,
  plumbPodPort,
  unplumbPodPort,
  type DecideOptions,
  type PlumbContext,
  type PodPort,
  type PodPortRequest,
} from './pod-port.ts';
export { SYSFS_ROOT, findVf, type VfInfo } from './sriov.ts';

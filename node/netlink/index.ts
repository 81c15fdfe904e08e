/**
 * node/netlink: the node agent's rtnetlink. `RtNetlink` makes a pod's veth
 * pair with the `netlink` package, the peer created straight in the pod's
 * namespace; the steps inside the namespace run in a helper process that
 * enters it (ns-helper.cjs, plain JavaScript started by `nsenter` and a bare
 * `node`). `RecordingNetlink` keeps the requests instead (profile tests).
 */
export {
  type HelperRequest,
  NS_HELPER_SCRIPT,
  type RunHelper,
  type SpawnHelperOptions,
  spawnHelper,
} from './helper.ts';
export { type LinkProblem, ifNameProblem, planHostLink, planMovedLink, planPodLink } from './request.ts';
export { type NetlinkRequest, RecordingNetlink, type RecordingNetlinkOptions } from './recording.ts';
export { RtNetlink, type RtNetlinkOptions } from './rtnetlink.ts';
export {
  type Netlink,
  NetlinkError,
  type NetlinkErrorCode,
  type PodLink,
  type PodLinkState,
} from './types.ts';

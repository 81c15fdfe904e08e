/**
 * What the node daemon asks of rtnetlink, as an interface: the real one
 * (node/netlink, the `netlink` package, with the steps inside a pod's
 * namespace run by a helper process that enters it) and a recorder that
 * keeps the requests (profile tests check the requests a kernel, DPDK or
 * offload node would make, without such a node).
 */

/**
 * A route through a link: `dst` is `default` or a CIDR; `gw` absent for an on-link route; `src` the
 * preferred source address (node/setup: ovn0's routes carry the node's InternalIP, as Kube-OVN's do,
 * so that node → pod traffic leaves from it; it must be an address of the namespace).
 */
export interface LinkRoute {
  readonly dst: string;
  readonly gw?: string;
  readonly src?: string;
}

/** A pod's end of a veth pair, as the daemon wants it after ADD. */
export interface PodLink {
  /** The host end (at most 15 bytes), plugged into br-int; Kube-OVN names it `<containerID[0:12]>_h`. */
  readonly hostIfName: string;
  /** The pod's network namespace, a path (CNI_NETNS). */
  readonly netns: string;
  /** The name inside the namespace (CNI_IFNAME). */
  readonly ifName: string;
  /** The pod end's MAC (the `mac_address` annotation). */
  readonly mac: string;
  readonly mtu: number;
  /** CIDR notation, e.g. `10.16.0.5/16`, `fd00:10:16::5/64`. */
  readonly addresses: readonly string[];
  /** `dst` is `default` or a CIDR; `gw` absent for an on-link route. */
  readonly routes: readonly LinkRoute[];
  /**
   * Turn the pod end's tx checksum offload off (`ethtool -K <ifName> tx off`; Kube-OVN's
   * TurnOffNicTxChecksum). Set by node/setup for the userspace (netdev, dpdk) datapath: it
   * forwards the partial checksums a veth hands to AF_PACKET as they are, and the receiver
   * drops them (TCP does not connect; node/setup/vswitchd.test.ts shows it).
   */
  readonly txChecksumOff?: boolean;
}

/** What is found of a pod link (CHECK, and a restarted daemon's view). */
export interface PodLinkState {
  readonly ifName: string;
  readonly mac: string;
  readonly mtu: number;
  readonly up: boolean;
  readonly addresses: readonly string[];
  /** Routes through the interface that the kernel did not add itself (`src` when one was given). */
  readonly routes: readonly LinkRoute[];
}

/**
 * A link that exists already, configured where it is: `ovn0` made by OVS as
 * an internal port (its MAC and MTU are OVS's `mac` and `mtu_request`; the
 * addresses and routes are the kernel's), or an SR-IOV VF representor
 * renamed to the host end's name before it is plugged into br-int.
 */
export interface HostLinkConfig {
  readonly name: string;
  /** Rename the link (down while renamed); absent to keep its name. */
  readonly rename?: string;
  readonly mac?: string;
  readonly mtu?: number;
  /** CIDR notation; replaces the link's addresses of those families. */
  readonly addresses?: readonly string[];
  /** Routes through this link; `gw` absent for an on-link route. */
  readonly routes?: readonly LinkRoute[];
  readonly up: boolean;
}

/**
 * An existing host link moved into a pod's namespace and set up there as a
 * veth's pod end is (rename, MAC, MTU, addresses, routes, up, lo up): the
 * VF of an offloaded pod (hw-offload profile).
 */
export interface MovedPodLink {
  /** The link's name in the host namespace (the VF's netdev). */
  readonly name: string;
  readonly netns: string;
  readonly ifName: string;
  readonly mac: string;
  readonly mtu: number;
  readonly addresses: readonly string[];
  readonly routes: readonly LinkRoute[];
}

export type NetlinkErrorCode =
  /** The namespace path does not exist or is not a network namespace. */
  | 'NETNS_GONE'
  /** An interface of that name already exists (in the host or the namespace). */
  | 'EXISTS'
  /** The kernel refused a request (errno in the message). */
  | 'KERNEL'
  /** The helper process that enters the namespace failed. */
  | 'HELPER'
  /** A PodLink field is malformed (an interface name too long, a MAC or CIDR that does not parse); the message names it. */
  | 'INVALID';

export class NetlinkError extends Error {
  override readonly name = 'NetlinkError';
  constructor(
    readonly code: NetlinkErrorCode,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

export interface Netlink {
  /** Creates the pair with the pod end in `l.netns`, renamed, addressed, routed and up; the host end up. */
  addPodLink(l: PodLink): Promise<void>;
  /** Deletes a host link (a veth's peer goes with it); false when there was none. Idempotent. */
  deleteLink(name: string): Promise<boolean>;
  /** The host links whose names match, e.g. every `_h` veth end (a restarted daemon's sweep). */
  listLinks(filter?: (name: string) => boolean): Promise<readonly { name: string; index: number; kind?: string }[]>;
  /** The pod end as it is now; undefined when the namespace or the interface is gone. */
  inspectPodLink(netns: string, ifName: string): Promise<PodLinkState | undefined>;
  /**
   * Optional (node/setup): configures a host link in place (ovn0 as an OVS
   * internal port; a VF representor's rename). Node set-up fails with
   * `netlink-unsupported` when an implementation lacks it.
   */
  configureHostLink?(c: HostLinkConfig): Promise<void>;
  /**
   * Optional (node/setup, hw-offload): moves an existing link into the pod's
   * namespace and sets it up there; undone by {@link Netlink.releasePodLink}.
   */
  movePodLink?(l: MovedPodLink): Promise<void>;
  /**
   * Optional (node/setup, hw-offload): moves the pod's interface `ifName`
   * back to the host namespace under `name` (a VF outlives its pod); false
   * when the namespace or the interface is gone.
   */
  releasePodLink?(netns: string, ifName: string, name: string): Promise<boolean>;
}

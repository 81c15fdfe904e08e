/**
 * Datapath profiles: which OVS datapath a node runs, as the settings it
 * writes (br-int's `datapath_type`, the root row's `other_config`) and the
 * kinds of pod port it can give. Kube-OVN's equivalents: the default
 * kernel datapath (ovn-controller creates br-int with `datapath_type` unset,
 * i.e. `system`); start-ovs-dpdk(-v2).sh (`dpdk-init=true`, br-int
 * `datapath_type=netdev`, vhost-user pods as `dpdkvhostuserclient` ports);
 * start-ovs.sh with HW_OFFLOAD (`other_config:hw-offload=true` on the kernel
 * datapath, SR-IOV pods plugged as their VF representor).
 */
import type { Planned } from './errors.ts';

export const DATAPATH_PROFILES = ['system', 'netdev', 'dpdk', 'hw-offload'] as const;
export type DatapathProfile = (typeof DATAPATH_PROFILES)[number];

/** The kinds of pod port a node may give: Kube-OVN's veth pair, DPDK vhost-user, an SR-IOV VF (offload). */
export type PodPortKind = 'veth' | 'vhost-user' | 'vf';

export interface ProfileSettings {
  readonly profile: DatapathProfile;
  /** Bridge `datapath_type` of br-int (and `external_ids:ovn-bridge-datapath-type`, so ovn-controller keeps it). */
  readonly datapathType: 'system' | 'netdev';
  /**
   * Root `other_config` keys the profile owns. Every profile writes both
   * keys, so switching a node's profile overwrites the previous one's
   * (vswitchd reads `dpdk-init` and `hw-offload` at start: a change takes
   * effect when it restarts).
   */
  readonly otherConfig: Readonly<Record<'dpdk-init' | 'hw-offload', 'true' | 'false'>>;
  /** The pod port kinds this profile gives; `veth` on all of them. */
  readonly podPorts: readonly PodPortKind[];
  /**
   * A userspace datapath (netdev, dpdk): a veth's pod end gets its tx checksum offload turned off
   * (PodLink.txChecksumOff), as Kube-OVN does when ovs.IsUserspaceDataPath().
   */
  readonly userspace: boolean;
  /** Whether the datapath runs on this machine (no OVS kernel module, no DPDK build, no NIC): netdev only. */
  readonly runsHere: boolean;
}

const SETTINGS: Readonly<Record<DatapathProfile, ProfileSettings>> = {
  system: {
    userspace: false,
    profile: 'system',
    datapathType: 'system',
    otherConfig: { 'dpdk-init': 'false', 'hw-offload': 'false' },
    podPorts: ['veth'],
    runsHere: false,
  },
  netdev: {
    userspace: true,
    profile: 'netdev',
    datapathType: 'netdev',
    otherConfig: { 'dpdk-init': 'false', 'hw-offload': 'false' },
    podPorts: ['veth'],
    runsHere: true,
  },
  dpdk: {
    userspace: true,
    profile: 'dpdk',
    datapathType: 'netdev',
    otherConfig: { 'dpdk-init': 'true', 'hw-offload': 'false' },
    // A pod without vhost-user sockets still gets a veth: the netdev datapath reaches it through AF_PACKET.
    podPorts: ['veth', 'vhost-user'],
    runsHere: false,
  },
  'hw-offload': {
    userspace: false,
    profile: 'hw-offload',
    datapathType: 'system',
    otherConfig: { 'dpdk-init': 'false', 'hw-offload': 'true' },
    podPorts: ['veth', 'vf'],
    runsHere: false,
  },
};

/**
 * @example profileSettings('dpdk').otherConfig['dpdk-init'] // 'true'
 */
export function profileSettings(profile: DatapathProfile): ProfileSettings {
  return SETTINGS[profile];
}

/**
 * A profile from its name (a flag, a scenario field).
 *
 * @example parseProfile('netdev') // { ok: true, value: 'netdev' }
 */
export function parseProfile(name: string, path = 'profile'): Planned<DatapathProfile> {
  const found = DATAPATH_PROFILES.find((p) => p === name);
  if (found !== undefined) return { ok: true, value: found };
  return {
    ok: false,
    issue: {
      code: 'unknown-profile',
      path,
      message: `${JSON.stringify(name)} is not a datapath profile (${DATAPATH_PROFILES.join(', ')})`,
    },
  };
}

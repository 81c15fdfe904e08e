/**
 * Names the daemon gives and reads back: the host end of a pod's veth pair
 * (Kube-OVN pkg/daemon/ovs_linux.go generateNicName) and the external_ids
 * of the OVS interface, Kube-OVN's and the few kovn adds so that a restarted
 * daemon (and GC) can tell which container and interface a port serves.
 */

/** Linux interface names are at most 15 bytes (IFNAMSIZ - 1). */
const IFNAMSIZ = 15;

/**
 * The host end of the veth pair: `<containerID[0:12]>_h` for eth0,
 * `<containerID[0:12-len(ifName)]>_<ifName>_h` for another interface (both
 * 15 bytes at most, as Kube-OVN names them; an interface name too long for
 * that is cut).
 *
 * @example hostNicName('3f2a9c0d81e4b7aa', 'eth0') // '3f2a9c0d81e4_h'
 * @example hostNicName('3f2a9c0d81e4b7aa', 'net1') // '3f2a9c0d_net1_h'
 */
export function hostNicName(containerId: string, ifName: string): string {
  if (ifName === 'eth0') return `${containerId.slice(0, 12)}_h`;
  const name = ifName.slice(0, 10);
  return `${containerId.slice(0, Math.max(0, 12 - name.length))}_${name}_h`.slice(0, IFNAMSIZ);
}

/**
 * The external_ids kovn adds to Kube-OVN's (iface-id, vendor, pod_name,
 * pod_namespace, pod_netns, ip) on a pod's interface.
 */
export const KOVN_IDS = {
  /** CNI_CONTAINERID of the attachment. */
  containerId: 'kovn-container-id',
  /** CNI_IFNAME of the attachment. */
  ifName: 'kovn-ifname',
  /** The pod's uid when the port was added: a pod deleted and made again under its name is another pod. */
  podUid: 'kovn-pod-uid',
  /** The network config's provider (default network: `ovn`). */
  provider: 'kovn-provider',
  /** The network config's name: GC for one network leaves another's attachments alone. */
  network: 'kovn-network',
  /** The pod port's kind (node/setup PodPortKind): veth, vhost-user, vf; absent: veth. */
  portKind: 'kovn-port-kind',
  /** A vf port: the VF's netdev name in the host namespace, which it returns to on DEL. */
  vfNetdev: 'kovn-vf-netdev',
} as const;

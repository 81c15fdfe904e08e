/**
 * On the userspace (netdev) datapath, ovs-vswitchd reads a veth's frames
 * through AF_PACKET and never completes a checksum the sender left to
 * offload: TCP and UDP from a pod arrive with bad checksums and are dropped
 * by the receiver (ICMP, checksummed in software, passes). Kube-OVN turns
 * transmit checksum offload off on the pod's end of the pair when br-int is
 * a netdev bridge (pkg/daemon ovs_linux.go TurnOffNicTxChecksum, `ethtool -K
 * <nic> tx off`); the daemon does the same inside the pod's namespace.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { NetlinkError } from '../netlink/types.ts';

const exec = promisify(execFile);

/** Turns transmit checksum offload off for `ifName` in the namespace at `netns`. */
export type TxChecksumOff = (netns: string, ifName: string) => Promise<void>;

/**
 * `nsenter --net=<netns> ethtool -K <ifName> tx off`.
 *
 * @example await ethtoolTxOff('/run/netns/pod-a', 'eth0');
 */
export const ethtoolTxOff: TxChecksumOff = async (netns, ifName) => {
  try {
    await exec('nsenter', [`--net=${netns}`, 'ethtool', '-K', ifName, 'tx', 'off'], { timeout: 10_000 });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new NetlinkError(
      'HELPER',
      `interface ${ifName} in ${netns}: ethtool -K tx off failed: ${err.stderr?.trim() || err.message}`,
      e,
    );
  }
};

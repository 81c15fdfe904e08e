/**
 * The datapath oracle's one exception type: it runs real daemons and talks
 * to their sockets, so its failures are I/O at the edge, thrown with a
 * `code` a caller branches on and a message naming the daemon, interface
 * or port.
 */

export type DatapathErrorCode =
  | 'unixctl-failed' // a unixctl call was refused, answered with an error, or the socket closed
  | 'not-installed' // ovn-controller never marked a bound port ovn-installed within the bound
  | 'vswitchd-died' // ovs-vswitchd exited (OVS 3.1's conntrack assertion, see chassis.ts)
  | 'unknown-port' // a packet was sent from a logical port the chassis has not bound
  | 'fdb-stuck' // ovn-controller kept a learned MAC's flows after its SB FDB row was deleted
  | 'pcap-invalid'; // a pcap file is not one (bad magic, truncated header)

/**
 * @example
 * try { await chassis.send('pod0.ls0', [frame]) }
 * catch (e) { if (e instanceof DatapathError && e.code === 'vswitchd-died') await chassis.restart() }
 */
export class DatapathError extends Error {
  override readonly name = 'DatapathError';
  constructor(
    readonly code: DatapathErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

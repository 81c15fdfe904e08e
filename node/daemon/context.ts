/** What the daemon's request handlers share: the node's plumbing, its settings, and the undo steps. */
import type { Netlink } from '../netlink/types.ts';
import type { Vswitch } from '../ovs/index.ts';
import type { DatapathProfile } from '../setup/index.ts';
import type { PodWatch } from './pod-watch.ts';

/**
 * What ADD waits for after writing the port: `installed`, ovn-controller's
 * `external_ids:ovn-installed` (Kube-OVN's wait); `applied`, only
 * ovs-vswitchd's `cur_cfg` (a node without ovn-controller); `none`, the
 * transaction (a bare ovsdb-server, in tests).
 */
export type OvsWait = 'installed' | 'applied' | 'none';

export interface AgentContext {
  readonly node: string;
  readonly vs: Vswitch;
  readonly netlink: Netlink;
  readonly pods: PodWatch;
  readonly bridge: string;
  /** The pod interfaces' MTU when their subnet sets none. */
  readonly mtu: number;
  /** A subnet's `spec.mtu` (Kube-OVN: it wins over the daemon's); undefined when it sets none. */
  readonly subnetMtu: (subnet: string) => Promise<number | undefined>;
  /**
   * An underlay subnet's u2o address(es) while `u2oInterconnection` is on
   * (Kube-OVN handleAdd: the pod's default gateway is then the u2o router
   * port, not the physical gateway); undefined otherwise.
   */
  readonly subnetU2oGateways?: (subnet: string) => Promise<readonly string[] | undefined>;
  readonly annotationTimeoutMs: number;
  readonly installTimeoutMs: number;
  readonly wait: OvsWait;
  /** The node's datapath profile; undefined: read from the database at each ADD (node/setup readProfile). */
  readonly profile: DatapathProfile | undefined;
  /** Where VFs are looked up (hw-offload). */
  readonly sysfsRoot: string;
  /** Where DPDK pods' vhost-user sockets live: `<dir>/<pod uid>/<volume>/<socket>`. */
  readonly vhostSocketDir: string;
  readonly log: (line: string) => void;
  /**
   * Removes a port and its QoS rows, then its link as the attachment's kind
   * wants (a veth deleted, a VF returned to the host); a port without our
   * record is taken for a veth's host end.
   */
  detach(port: string): Promise<void>;
  /**
   * Removes what an earlier sandbox of the same pod left: other ports with
   * this iface-id (Kube-OVN's CleanDuplicatePort), and a port already named
   * `hostNic`.
   */
  removeStale(ifaceId: string, hostNic: string): Promise<void>;
}

/**
 * The pod's network with its default gateway(s) as Kube-OVN's daemon sets
 * them: the u2o address of its underlay subnet while u2oInterconnection is
 * on (configureContainerNic's containerGw), else the annotation's gateway.
 *
 * @example await gatewaysFor(ctx, { gateways: ['172.17.0.1'], logicalSwitch: 'ul' }) // gateways ['172.17.0.10'] with u2o on
 */
export async function gatewaysFor<N extends { readonly gateways: readonly string[]; readonly logicalSwitch?: string }>(
  ctx: AgentContext,
  net: N,
): Promise<N> {
  const u2o = net.logicalSwitch === undefined ? undefined : await ctx.subnetU2oGateways?.(net.logicalSwitch);
  return u2o !== undefined && u2o.length > 0 ? { ...net, gateways: u2o } : net;
}

/**
 * The MTU of a pod interface on `subnet`: the Subnet's own (Kube-OVN
 * handleAdd: `podSubnet.Spec.Mtu > 0`), else the daemon's.
 */
export async function mtuFor(ctx: AgentContext, subnet: string | undefined): Promise<number> {
  const own = subnet === undefined ? undefined : await ctx.subnetMtu(subnet);
  return own !== undefined && own > 0 ? own : ctx.mtu;
}

/**
 * The datapath profile's say in a pod's port and link (Kube-OVN pkg/daemon
 * handler.go handleAdd picks the NIC type, ovs_linux.go configureNic /
 * configureDpdkNic / setupSriovInterface make it):
 * - `veth`: the pair the daemon planned, its host end the OVS port (every profile;
 *   on a userspace datapath with the pod end's tx checksum offload off);
 * - `vhost-user` (dpdk): no link; the port is `type=dpdkvhostuserclient` with
 *   `options:vhost-server-path` the socket the pod's DPDK application serves;
 * - `vf` (hw-offload): the VF's representor, renamed to the host NIC name,
 *   is the OVS port; the VF itself moves into the pod's namespace and is set
 *   up there as a veth's pod end would be.
 * The daemon plans the veth (addresses, routes, MAC, MTU, iface-id and
 * external_ids) as for any pod; decidePodPort turns that into the profile's
 * port, plumbPodPort / unplumbPodPort make and undo it.
 */
import type { Operation } from '../../backends/ovn/ovsdb/index.ts';
import type { MovedPodLink, Netlink, PodLink } from '../netlink/types.ts';
import { type CommitOptions, type PortSpec, type Vswitch, addPortOps, deletePortOps } from '../ovs/index.ts';
import { type Planned, SetupError } from './errors.ts';
import { type DatapathProfile, type PodPortKind, profileSettings } from './profile.ts';
import { SYSFS_ROOT, type VfInfo, findVf } from './sriov.ts';

/** The interface type of a DPDK pod's port: OVS is the vhost-user client, the pod's application the server. */
export const VHOST_USER_CLIENT = 'dpdkvhostuserclient';

export interface PodPortRequest {
  readonly profile: DatapathProfile;
  /** The pod end as planned for a veth (name, namespace, MAC, MTU, addresses, routes). */
  readonly link: PodLink;
  /** The OVS port as planned for a veth: named after the host NIC, with iface-id and external_ids. */
  readonly port: PortSpec;
  /** An offloaded pod: its VF's PCI address (the CNI config's `deviceID`, from the SR-IOV device plugin). */
  readonly deviceId?: string;
  /**
   * A DPDK pod: its vhost-user socket (Kube-OVN: /var/run/openvswitch/vhost_sockets/<pod uid>/<volume>/<socket
   * name>, from the CNI config's `vhost_user_socket_volume_name` and `vhost_user_socket_name`).
   */
  readonly vhostUserSocket?: string;
}

export type PodPort =
  | { readonly kind: 'veth'; readonly port: PortSpec; readonly link: PodLink }
  | { readonly kind: 'vhost-user'; readonly port: PortSpec; readonly socket: string }
  | { readonly kind: 'vf'; readonly port: PortSpec; readonly vf: VfInfo; readonly link: MovedPodLink };

export interface DecideOptions {
  /** Default /sys. */
  readonly sysfsRoot?: string;
}

function kindOf(req: PodPortRequest): PodPortKind {
  if (req.deviceId) return 'vf';
  if (req.vhostUserSocket) return 'vhost-user';
  return 'veth';
}

/**
 * Which port and link the pod gets on this node. A VF is looked up in sysfs
 * (a missing one throws SetupError `sriov`); a kind the profile cannot give
 * is an issue (`profile-mismatch`), not a veth in its place.
 *
 * @example
 * await decidePodPort({ profile: 'dpdk', link, port, vhostUserSocket: '/var/run/openvswitch/vhost_sockets/u1/vol/sock' })
 * // { ok: true, value: { kind: 'vhost-user', port: { ..., type: 'dpdkvhostuserclient', options: { 'vhost-server-path': ... } } } }
 */
export async function decidePodPort(req: PodPortRequest, opts: DecideOptions = {}): Promise<Planned<PodPort>> {
  const kind = kindOf(req);
  if (!profileSettings(req.profile).podPorts.includes(kind))
    return {
      ok: false,
      issue: {
        code: 'profile-mismatch',
        path: kind === 'vf' ? 'deviceID' : 'vhost_user_socket_name',
        message: `pod port ${req.port.ifaceId ?? req.port.name}: a ${kind} port needs the ${kind === 'vf' ? 'hw-offload' : 'dpdk'} profile, this node runs ${req.profile}`,
      },
    };
  if (kind === 'veth') {
    const link = profileSettings(req.profile).userspace ? { ...req.link, txChecksumOff: true } : req.link;
    return { ok: true, value: { kind, port: req.port, link } };
  }
  if (kind === 'vhost-user') {
    const socket = req.vhostUserSocket!;
    const port = {
      ...req.port,
      type: VHOST_USER_CLIENT,
      options: { ...req.port.options, 'vhost-server-path': socket },
    };
    return { ok: true, value: { kind, port, socket } };
  }
  const vf = await findVf(req.deviceId!, opts.sysfsRoot ?? SYSFS_ROOT);
  const { hostIfName: _host, ...podEnd } = req.link;
  return { ok: true, value: { kind, port: req.port, vf, link: { ...podEnd, name: vf.netdev } } };
}

export interface PlumbContext {
  readonly vs: Vswitch;
  readonly netlink: Netlink;
  readonly commit?: CommitOptions;
}

const need = <K extends 'configureHostLink' | 'movePodLink' | 'releasePodLink'>(nl: Netlink, method: K) => {
  const f = nl[method];
  if (f === undefined) throw new SetupError('netlink-unsupported', `the Netlink implementation has no ${method}`);
  return f.bind(nl) as NonNullable<Netlink[K]>;
};

/**
 * Makes the pod's port and link, in Kube-OVN's order: the link first (veth
 * pair; representor renamed and left down), then the port with `extraOps`
 * (QoS) in one transaction, then the VF representor up and the VF into the
 * pod's namespace. A port that cannot be written undoes the link (the veth
 * deleted; the representor given its name back and up, as Kube-OVN does so
 * that the VF is not left blackholed) and rethrows.
 *
 * @example await plumbPodPort({ vs, netlink }, decided.value, bandwidthOps(...))
 */
export async function plumbPodPort(ctx: PlumbContext, p: PodPort, extraOps: readonly Operation[] = []): Promise<void> {
  if (p.kind === 'veth') await ctx.netlink.addPodLink(p.link);
  if (p.kind === 'vf')
    // Renamed while down; brought up only once on br-int, so a DEL racing it finds it unplugged (Kube-OVN #6106).
    await need(ctx.netlink, 'configureHostLink')({ name: p.vf.representor, rename: p.port.name, up: false });
  try {
    await ctx.vs.commit([...addPortOps(ctx.vs, p.port), ...extraOps], ctx.commit);
  } catch (e) {
    await undoLink(ctx, p).catch((u) => {
      if (e instanceof Error) e.message += ` (and undoing the link failed: ${String(u)})`;
    });
    throw e;
  }
  if (p.kind === 'vf') {
    await need(ctx.netlink, 'configureHostLink')({ name: p.port.name, mtu: p.link.mtu, up: true });
    await need(ctx.netlink, 'movePodLink')(p.link);
  }
}

async function undoLink(ctx: PlumbContext, p: PodPort): Promise<void> {
  if (p.kind === 'veth') await ctx.netlink.deleteLink(p.link.hostIfName);
  if (p.kind === 'vf')
    await need(ctx.netlink, 'configureHostLink')({ name: p.port.name, rename: p.vf.representor, up: true });
}

/**
 * Undoes plumbPodPort; idempotent (a port or link already gone is skipped).
 * A VF goes back to the host namespace under its netdev name, its
 * representor down (a VF outlives its pod; a veth does not).
 *
 * @example await unplumbPodPort({ vs, netlink }, decided.value) // again: nothing left to do, no error
 */
export async function unplumbPodPort(ctx: PlumbContext, p: PodPort): Promise<void> {
  if (p.kind === 'vf' && (await ctx.netlink.listLinks((n) => n === p.port.name)).length > 0)
    await need(ctx.netlink, 'configureHostLink')({ name: p.port.name, up: false });
  const ops = deletePortOps(ctx.vs, p.port.name);
  if (ops.length > 0) await ctx.vs.commit(ops, ctx.commit);
  if (p.kind === 'veth') await ctx.netlink.deleteLink(p.link.hostIfName);
  if (p.kind === 'vf') await need(ctx.netlink, 'releasePodLink')(p.link.netns, p.link.ifName, p.vf.netdev);
}

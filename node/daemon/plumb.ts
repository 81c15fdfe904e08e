/**
 * A pod's port and link by the node's datapath profile (node/setup
 * decidePodPort: a veth pair on every profile, a vhost-user port for a DPDK
 * pod, the VF representor for an offloaded one), made with plumbPodPort and
 * the daemon's additions: the kind recorded on the interface (for DEL after
 * a restart), a stale host link replaced, and the undo of a half-made port.
 * On a userspace datapath the profile asks for the pod end's transmit
 * checksum offload off (PodLink.txChecksumOff, Kube-OVN's
 * TurnOffNicTxChecksum): without it TCP between pods does not connect.
 */
import { join } from 'node:path';
import type { Operation } from '../../backends/ovn/ovsdb/index.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { CNI_ERROR, type DaemonRequest } from '../cni/protocol.ts';
import { NetlinkError, type PodLink } from '../netlink/types.ts';
import { type PortSpec, getPort } from '../ovs/index.ts';
import { type PodPort, decidePodPort, plumbPodPort, readProfile, unplumbPodPort } from '../setup/index.ts';
import type { AgentContext } from './context.ts';
import { DaemonError } from './errors.ts';
import { KOVN_IDS } from './names.ts';

/** The port the profile gives the pod, its kind (and VF) recorded in its external_ids. */
export async function decide(
  ctx: AgentContext,
  req: DaemonRequest,
  pod: KubeObject,
  planned: { readonly link: PodLink; readonly port: PortSpec },
): Promise<PodPort> {
  // The profile given, or the one the database says (node/setup readProfile; ADD checked the bridge exists).
  const profile = ctx.profile ?? readProfile(ctx.vs, ctx.bridge) ?? 'system';
  const socket =
    req.vhostUserSocketVolumeName && req.vhostUserSocketName
      ? join(
          ctx.vhostSocketDir,
          pod.metadata.uid ?? pod.metadata.name,
          req.vhostUserSocketVolumeName,
          req.vhostUserSocketName,
        )
      : undefined;
  let d: Awaited<ReturnType<typeof decidePodPort>>;
  try {
    d = await decidePodPort(
      {
        profile,
        ...planned,
        ...(req.deviceId ? { deviceId: req.deviceId } : {}),
        ...(socket === undefined ? {} : { vhostUserSocket: socket }),
      },
      { sysfsRoot: ctx.sysfsRoot },
    );
  } catch (e) {
    throw new DaemonError(CNI_ERROR.invalidConfig, `deviceID ${req.deviceId}: ${(e as Error).message}`, undefined, {
      cause: e,
    });
  }
  if (!d.ok) throw new DaemonError(CNI_ERROR.invalidConfig, `${d.issue.path}: ${d.issue.message}`);
  const p = d.value;
  const ids = {
    ...p.port.externalIds,
    [KOVN_IDS.portKind]: p.kind,
    ...(p.kind === 'vf' ? { [KOVN_IDS.vfNetdev]: p.vf.netdev } : {}),
  };
  return { ...p, port: { ...p.port, externalIds: ids } };
}

/**
 * Makes the port and link with `extraOps` (QoS) in the port's transaction;
 * a veth host end of that name left by an ADD that never finished (no port
 * records it) is removed and the pair made again. On failure, what was made
 * is undone.
 */
export async function plumb(ctx: AgentContext, p: PodPort, extraOps: readonly Operation[]): Promise<void> {
  const plumbing = {
    vs: ctx.vs,
    netlink: ctx.netlink,
    commit: { waitApplied: ctx.wait === 'applied', timeoutMs: ctx.installTimeoutMs },
  };
  try {
    try {
      await plumbPodPort(plumbing, p, extraOps);
    } catch (e) {
      if (p.kind !== 'veth' || !(e instanceof NetlinkError) || e.code !== 'EXISTS') throw e;
      ctx.log(`link ${p.link.hostIfName}: exists without an attachment, replaced`);
      await ctx.netlink.deleteLink(p.link.hostIfName);
      await plumbPodPort(plumbing, p, extraOps);
    }
  } catch (e) {
    await undo(ctx, p);
    throw e;
  }
}

/** Undoes a port made or half made: through the record when the port is in the database, else by its kind. */
export async function undo(ctx: AgentContext, p: PodPort): Promise<void> {
  try {
    if (getPort(ctx.vs, p.port.name) !== undefined) await ctx.detach(p.port.name);
    else await unplumbPodPort({ vs: ctx.vs, netlink: ctx.netlink }, p);
  } catch (e) {
    ctx.log(`undo ${p.port.name}: ${String(e)}`);
  }
}

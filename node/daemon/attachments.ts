/**
 * The daemon's attachments as the local Open_vSwitch database holds them:
 * every interface it added carries Kube-OVN's external_ids (vendor,
 * iface-id, pod_name, pod_namespace, pod_netns) and kovn's (container id,
 * interface name, pod uid, provider). The database is the daemon's only
 * record: a restarted daemon reads the same view, and GC and the sweep walk it.
 */
import type { vswitch } from '../../backends/ovn/ovsdb/index.ts';
import { CNI_VENDOR, type Vswitch } from '../ovs/index.ts';
import type { PodPortKind } from '../setup/index.ts';
import { KOVN_IDS } from './names.ts';

export interface Attachment {
  readonly containerId: string;
  readonly ifName: string;
  /** The OVS port and interface, also the veth's host end. */
  readonly hostNic: string;
  readonly netns: string;
  readonly pod: string;
  readonly namespace: string;
  /** Absent when the pod had no uid when attached. */
  readonly podUid?: string;
  readonly provider: string;
  /** What the OVS port is: the veth's host end, a vhost-user socket, a VF representor. */
  readonly kind: PodPortKind;
  /** A vf port: the VF's netdev, which goes back to the host namespace on DEL. */
  readonly vfNetdev?: string;
  /** The network config's name; absent on a row written without one. */
  readonly network?: string;
  readonly ifaceId: string;
}

const KINDS: readonly PodPortKind[] = ['veth', 'vhost-user', 'vf'];

/** The attachment an interface row records, if it is one of ours. */
export function attachmentOf(i: vswitch.Interface): Attachment | undefined {
  const ids = i.external_ids;
  const containerId = ids[KOVN_IDS.containerId];
  const ifName = ids[KOVN_IDS.ifName];
  if (ids.vendor !== CNI_VENDOR || containerId === undefined || ifName === undefined) return undefined;
  const podUid = ids[KOVN_IDS.podUid];
  const network = ids[KOVN_IDS.network];
  const kind = KINDS.find((k) => k === ids[KOVN_IDS.portKind]) ?? 'veth';
  const vfNetdev = ids[KOVN_IDS.vfNetdev];
  return {
    containerId,
    ifName,
    hostNic: i.name,
    netns: ids.pod_netns ?? '',
    pod: ids.pod_name ?? '',
    namespace: ids.pod_namespace ?? '',
    ...(podUid === undefined ? {} : { podUid }),
    provider: ids[KOVN_IDS.provider] ?? 'ovn',
    ...(network === undefined ? {} : { network }),
    kind,
    ...(vfNetdev === undefined ? {} : { vfNetdev }),
    ifaceId: ids['iface-id'] ?? '',
  };
}

/**
 * Every attachment in the database, in interface-name order.
 *
 * @example attachmentsOf(vs).map((a) => `${a.namespace}/${a.pod} ${a.hostNic}`)
 */
export function attachmentsOf(vs: Vswitch): Attachment[] {
  return vs.cache
    .rows('Interface')
    .map(attachmentOf)
    .filter((a): a is Attachment => a !== undefined)
    .sort((a, b) => (a.hostNic < b.hostNic ? -1 : a.hostNic > b.hostNic ? 1 : 0));
}

/** The attachment of one container interface (CNI_CONTAINERID, CNI_IFNAME). */
export function findAttachment(vs: Vswitch, containerId: string, ifName: string): Attachment | undefined {
  return attachmentsOf(vs).find((a) => a.containerId === containerId && a.ifName === ifName);
}

/**
 * A pod's Multus attachments in the lab: each a second interface (`net1`,
 * ...) wired by kovn's plugin with the attachment's provider, as Multus calls
 * kube-ovn's. And what the pod's own routes make of a probe through one:
 * Kube-OVN's daemon gives an attachment only its subnet's on-link route (the
 * default route stays eth0's unless `<provider>.kubernetes.io/default_route`,
 * more only through `<provider>.kubernetes.io/routes`), so a packet from the
 * attachment's address to an address off its subnet, or the reply of one sent
 * to it, leaves by eth0. The simulator and ovn-trace model no pod routes
 * (kube/objects/support: `routes` is the node agent's): such a probe is said
 * unsure, naming the route the pod's kernel chose.
 */
import { decodePodNetwork, podPortName } from '../../kube/annotations.ts';
import { attachmentProvider, NETWORKS_ANNOTATION, parseNetworks } from '../../kube/objects/attachment.ts';
import type { PodView } from '../../kube/objects/objects.ts';
import { ipIn } from './host.ts';
import type { PodInterface } from './pods.ts';

export interface WiredAttachment extends PodInterface {
  /** Its switch port, `<pod>.<ns>.<provider>`. */
  readonly port: string;
}

/**
 * The pod's kube-ovn attachments the controller allocated (`<provider>.kubernetes.io/allocated`), each
 * with the interface name Multus gives it: the selection's `interface`, else `net<i>` by position.
 *
 * @example attachmentsOf(app) // [{ provider: 'attachnet.default.ovn', ifName: 'net1', port: 'app.default.attachnet.default.ovn' }]
 */
export function attachmentsOf(p: PodView): WiredAttachment[] {
  const parsed = parseNetworks(p.annotations[NETWORKS_ANNOTATION] ?? '', p.namespace);
  if (!parsed.ok) return [];
  return parsed.value.flatMap((sel, i) => {
    const provider = attachmentProvider(sel);
    if (!decodePodNetwork(p.annotations, provider).ok) return [];
    return [{ provider, ifName: sel.interface ?? `net${i + 1}`, port: podPortName(p.name, p.namespace, provider) }];
  });
}

/** The interface the kernel of `netns` picks for a packet from `from` to `to` (`ip route get`). */
async function routeDev(netns: string, from: string, to: string): Promise<string> {
  const out = await ipIn(netns, '-j', 'route', 'get', to, 'from', from).catch(
    (e: Error) => `[{"dev":"none (${e.message.trim()})"}]`,
  );
  const rows = JSON.parse(out) as { dev?: string }[];
  return rows[0]?.dev ?? 'none';
}

/**
 * Why the pod's own routes keep a probe off its attachment, or undefined
 * when they do not: `own` is the attachment's address, `peer` the other
 * end's, the packet from `own` to `peer` (or the reply to one from `peer`).
 *
 * @example await attachmentRouteUnsure('kl-Ab12Cd-p0', { provider: 'attachnet.default.ovn', ifName: 'net1', port: 'app.default.attachnet.default.ovn' }, '172.17.0.2', '172.18.0.2')
 *   // 'in app.default.attachnet.default.ovn's pod, the route from 172.17.0.2 to 172.18.0.2 leaves by eth0, not net1 ...'
 */
export async function attachmentRouteUnsure(
  netns: string,
  a: WiredAttachment,
  own: string,
  peer: string,
): Promise<string | undefined> {
  const dev = await routeDev(netns, own, peer);
  if (dev === a.ifName) return undefined;
  return (
    `in ${a.port}'s pod, the route from ${own} to ${peer} leaves by ${dev}, not ${a.ifName}: ` +
    `an attachment gets only its subnet's route unless ${a.provider}.kubernetes.io/routes asks for more, ` +
    'and the simulator models no pod routes'
  );
}

/** The prefix of every reason `attachmentRouteUnsure` gives. */
export const ATTACHMENT_ROUTE_UNSURE = /^in \S+'s pod, the route from \S+ to \S+ leaves by \S+, not /;

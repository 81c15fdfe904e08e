/**
 * CNI CHECK: the attachment is still what ADD made of the pod's current
 * annotations. Checked: the pod end (present, up, MAC, MTU, every address
 * and default route) and the host end (not for a vhost-user port, which
 * has no link), the OVS port (on the bridge, the iface-id, no error from
 * vswitchd) and, when the runtime passes it, that the previous result
 * holds the addresses.
 */
import { podPortName } from '../../kube/annotations.ts';
import { CNI_ERROR, type DaemonRequest } from '../cni/protocol.ts';
import type { PodLink, PodLinkState } from '../netlink/types.ts';
import { getPort } from '../ovs/index.ts';
import { readyNetwork } from './add.ts';
import { findAttachment, type Attachment } from './attachments.ts';
import { type AgentContext, gatewaysFor, mtuFor } from './context.ts';
import { DaemonError } from './errors.ts';
import { podLinkOf } from './pod-config.ts';

/** The differences between what the link should be and what it is, one line each. */
export function linkProblems(want: PodLink, have: PodLinkState | undefined): string[] {
  const at = `interface ${want.ifName} in ${want.netns}`;
  if (have === undefined) return [`${at}: missing`];
  const out: string[] = [];
  if (!have.up) out.push(`${at}: down`);
  if (have.mac.toLowerCase() !== want.mac.toLowerCase()) out.push(`${at}: MAC ${have.mac}, want ${want.mac}`);
  if (have.mtu !== want.mtu) out.push(`${at}: MTU ${have.mtu}, want ${want.mtu}`);
  for (const a of want.addresses) if (!have.addresses.includes(a)) out.push(`${at}: address ${a} missing`);
  for (const r of want.routes) {
    const found = have.routes.some((h) => h.dst === r.dst && h.gw === r.gw);
    if (!found) out.push(`${at}: route ${r.dst}${r.gw ? ` via ${r.gw}` : ''} missing`);
  }
  return out;
}

function portProblems(ctx: AgentContext, a: Attachment): string[] {
  const ref = getPort(ctx.vs, a.hostNic);
  if (ref === undefined) return [`OVS port ${a.hostNic}: missing`];
  const out: string[] = [];
  if (ref.bridge !== ctx.bridge) out.push(`OVS port ${a.hostNic}: on ${ref.bridge ?? 'no bridge'}, want ${ctx.bridge}`);
  // The iface-id the pod's logical port has, not the one recorded on the row (that is what is checked).
  const want = podPortName(a.pod, a.namespace, a.provider);
  if (ref.iface.external_ids['iface-id'] !== want)
    out.push(`OVS interface ${a.hostNic}: iface-id ${ref.iface.external_ids['iface-id'] ?? '(none)'}, want ${want}`);
  const error = ref.iface.error;
  if (error) out.push(`OVS interface ${a.hostNic}: ${error}`);
  return out;
}

/**
 * @example
 * await checkAttachment(ctx, { command: 'CHECK', containerId, ifName: 'eth0', ... }); // throws DaemonError naming each difference
 */
export async function checkAttachment(ctx: AgentContext, req: DaemonRequest): Promise<void> {
  const a = findAttachment(ctx.vs, req.containerId, req.ifName);
  if (a === undefined)
    throw new DaemonError(
      CNI_ERROR.unknownContainer,
      `container ${req.containerId} interface ${req.ifName}: not attached on node ${ctx.node}`,
    );
  const key = `${a.namespace}/${a.pod}`;
  const pod = ctx.pods.get(a.namespace, a.pod);
  const ready = readyNetwork(pod, a.provider);
  if (!ready.ok) throw new DaemonError(CNI_ERROR.podNotFound, `pod ${key}: ${ready.why}`);
  const want = podLinkOf(
    await gatewaysFor(ctx, ready.net),
    { hostIfName: a.hostNic, netns: a.netns, ifName: a.ifName, mtu: await mtuFor(ctx, ready.net.logicalSwitch) },
    a.provider,
    pod?.metadata.annotations,
  );
  if (!want.ok) throw new DaemonError(CNI_ERROR.invalidAnnotation, `pod ${key}: ${want.issue.message}`);
  // A vhost-user port has no link: the pod's DPDK application serves its socket.
  const hasLink = a.kind !== 'vhost-user';
  const linkIssues = hasLink ? linkProblems(want.value, await ctx.netlink.inspectPodLink(a.netns, a.ifName)) : [];
  const hosts = hasLink ? await ctx.netlink.listLinks((n) => n === a.hostNic) : [{}];
  if (hosts.length === 0) linkIssues.push(`host link ${a.hostNic}: missing`);
  const prev = req.prevResult?.ips?.map((i) => i.address);
  if (prev !== undefined)
    for (const addr of want.value.addresses)
      if (!prev.includes(addr)) linkIssues.push(`prevResult: address ${addr} missing`);
  const ovsIssues = portProblems(ctx, a);
  if (linkIssues.length + ovsIssues.length === 0) return;
  const code = linkIssues.length > 0 ? CNI_ERROR.netlinkFailure : CNI_ERROR.ovsFailure;
  throw new DaemonError(code, `pod ${key}: ${[...linkIssues, ...ovsIssues].join('; ')}`);
}

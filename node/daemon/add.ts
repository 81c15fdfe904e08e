/**
 * CNI ADD, step by step as Kube-OVN's cniserver does it (pkg/daemon
 * handler.go handleAdd, ovs_linux.go configureNic): wait for the pod's
 * annotations, make the veth pair with the pod end addressed and routed
 * (or the port the datapath profile gives instead, plumb.ts), plug the
 * host end into br-int with the iface-id and the external_ids, apply the
 * bandwidth limits, wait for ovn-controller's ovn-installed, and
 * answer the CNI result. A failure after the veth exists undoes what was
 * done, so a failed ADD leaves nothing behind.
 */
import { type PodNetworkRead, decodePodNetwork, annotationKey } from '../../kube/annotations.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { CNI_ERROR, type CniResult, type DaemonRequest } from '../cni/protocol.ts';
import type { PodLink } from '../netlink/types.ts';
import { podPortSpec, waitInstalled, type PortSpec } from '../ovs/index.ts';
import { type AgentContext, gatewaysFor, mtuFor } from './context.ts';
import { DaemonError } from './errors.ts';
import { findAttachment } from './attachments.ts';
import { KOVN_IDS, hostNicName } from './names.ts';
import { decide, plumb, undo } from './plumb.ts';
import { cniResultOf, podLinkOf, type PlumbableNetwork } from './pod-config.ts';
import { bandwidthOf, bandwidthOps, type Bandwidth } from './qos.ts';

/** Whether the provider is one OVN routes (Kube-OVN util.IsOvnProvider): its pods wait for `routed`. */
const isOvnProvider = (p: string) => p === 'ovn' || p.endsWith('.ovn');

/** The pod's network once `allocated` (and, for OVN providers, `routed`) and a MAC are there; else the issue. */
export function readyNetwork(
  pod: KubeObject | undefined,
  provider: string,
): { ok: true; net: PlumbableNetwork } | { ok: false; why: string } {
  if (pod === undefined) return { ok: false, why: 'not found' };
  const d = decodePodNetwork(pod.metadata.annotations ?? {}, provider);
  if (!d.ok) return { ok: false, why: d.issue.message };
  const net: PodNetworkRead = d.value;
  if (isOvnProvider(provider) && !net.routed)
    return { ok: false, why: `${annotationKey(provider, 'routed')}: not "true" yet` };
  if (net.mac === undefined) return { ok: false, why: `${annotationKey(provider, 'mac_address')}: missing` };
  return { ok: true, net: { ...net, mac: net.mac } };
}

/** Waits, bounded, for the pod's annotations; error 101 when the pod never appeared, 100 when its annotations did not. */
async function waitNetwork(ctx: AgentContext, req: DaemonRequest): Promise<{ pod: KubeObject; net: PlumbableNetwork }> {
  const key = `${req.podNamespace}/${req.podName}`;
  const r = await ctx.pods.waitUntil(
    key,
    (pod) => {
      const ready = readyNetwork(pod, req.provider);
      return ready.ok && pod !== undefined ? { pod, net: ready.net } : undefined;
    },
    ctx.annotationTimeoutMs,
  );
  if (r.ok) return r.value;
  const why = readyNetwork(r.last, req.provider);
  const within = `within ${ctx.annotationTimeoutMs} ms`;
  if (r.last === undefined)
    throw new DaemonError(CNI_ERROR.podNotFound, `pod ${key}: not found in the cluster ${within}`);
  throw new DaemonError(
    CNI_ERROR.annotationTimeout,
    `pod ${key}: annotations not ready ${within}: ${why.ok ? 'changed meanwhile' : why.why}`,
  );
}

function checkRequest(req: DaemonRequest): void {
  const missing = [
    ['CNI_CONTAINERID', req.containerId],
    ['CNI_NETNS', req.netns],
    ['CNI_IFNAME', req.ifName],
    ['CNI_ARGS K8S_POD_NAME', req.podName],
    ['CNI_ARGS K8S_POD_NAMESPACE', req.podNamespace],
  ].filter(([, v]) => !v);
  if (missing.length > 0)
    throw new DaemonError(
      CNI_ERROR.invalidEnvironment,
      `${req.command}: ${missing.map(([k]) => k).join(', ')} missing`,
    );
}

interface Plan {
  readonly link: PodLink;
  readonly port: PortSpec;
  readonly bandwidth: Bandwidth;
  readonly pod: string;
}

function plan(ctx: AgentContext, req: DaemonRequest, pod: KubeObject, net: PlumbableNetwork, mtu: number): Plan {
  const key = `${req.podNamespace}/${req.podName}`;
  const annotations = pod.metadata.annotations ?? {};
  const bw = bandwidthOf(annotations, req.provider);
  if (!bw.ok) throw new DaemonError(CNI_ERROR.invalidAnnotation, `pod ${key}: ${bw.issue.message}`);
  const hostIfName = hostNicName(req.containerId, req.ifName);
  const link = podLinkOf(net, { hostIfName, netns: req.netns, ifName: req.ifName, mtu }, req.provider, annotations);
  if (!link.ok) throw new DaemonError(CNI_ERROR.invalidAnnotation, `pod ${key}: ${link.issue.message}`);
  const spec = podPortSpec(
    { pod: req.podName, namespace: req.podNamespace, provider: req.provider, hostNic: hostIfName, netns: req.netns },
    annotations,
  );
  if (!spec.ok) throw new DaemonError(CNI_ERROR.invalidAnnotation, `pod ${key}: ${spec.issue.message}`);
  const uid = pod.metadata.uid;
  const externalIds = {
    ...spec.value.externalIds,
    [KOVN_IDS.containerId]: req.containerId,
    [KOVN_IDS.ifName]: req.ifName,
    [KOVN_IDS.provider]: req.provider,
    ...(req.network ? { [KOVN_IDS.network]: req.network } : {}),
    ...(uid === undefined ? {} : { [KOVN_IDS.podUid]: uid }),
  };
  return {
    link: link.value,
    port: { ...spec.value, bridge: ctx.bridge, externalIds },
    bandwidth: bw.value,
    pod: key,
  };
}

/**
 * @example
 * const result = await addAttachment(ctx, request); // the CNI result
 */
export async function addAttachment(ctx: AgentContext, req: DaemonRequest): Promise<CniResult> {
  checkRequest(req);
  const had = findAttachment(ctx.vs, req.containerId, req.ifName);
  if (had !== undefined)
    throw new DaemonError(
      CNI_ERROR.attachmentExists,
      `container ${req.containerId} interface ${req.ifName}: attached already (pod ${had.namespace}/${had.pod}, port ${had.hostNic}); DEL it first`,
    );
  const waited = await waitNetwork(ctx, req);
  const pod = waited.pod;
  const net = await gatewaysFor(ctx, waited.net);
  const p = plan(ctx, req, pod, net, await mtuFor(ctx, net.logicalSwitch));
  if (ctx.vs.bridge(ctx.bridge) === undefined)
    throw new DaemonError(CNI_ERROR.ovsFailure, `bridge ${ctx.bridge}: does not exist in the Open_vSwitch database`);
  // Decided before anything is removed or made: a port the profile cannot give changes nothing.
  const port = await decide(ctx, req, pod, p);
  await ctx.removeStale(p.port.ifaceId ?? '', p.link.hostIfName);
  const target = { port: p.link.hostIfName, ifaceId: p.port.ifaceId ?? '', pod: p.pod };
  await plumb(ctx, port, bandwidthOps(ctx.vs, target, p.bandwidth));
  try {
    if (ctx.wait === 'installed') await waitInstalled(ctx.vs, [p.link.hostIfName], { timeoutMs: ctx.installTimeoutMs });
  } catch (e) {
    await undo(ctx, port);
    throw e;
  }
  return cniResultOf(p.link, req.cniVersion);
}

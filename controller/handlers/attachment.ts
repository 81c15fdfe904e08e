/**
 * A pod's attachment networks (Multus) → one more address and switch port
 * per kube-ovn attachment, as Kube-OVN's pod.go does (getPodAttachmentNet,
 * then the same allocation as the primary network per provider):
 *
 * - the pod's `k8s.v1.cni.cncf.io/networks` names NetworkAttachmentDefinitions;
 *   one whose CNI config is of type `kube-ovn` is an attachment with provider
 *   `<nad>.<nad-ns>.ovn` (other types are left to their own CNI, as Kube-OVN
 *   leaves them);
 * - its subnet is the pod's `<provider>.kubernetes.io/logical_switch`, else
 *   the Subnet whose `spec.provider` is the provider;
 * - `<provider>.kubernetes.io/ip_address` / `mac_address` (or the selection's
 *   `ips` / `mac`) ask for addresses; the IPAM owner is `<pod>.<ns>.<provider>`;
 * - the port `<pod>.<ns>.<provider>` on that subnet's switch, and the
 *   annotations under `<provider>.kubernetes.io/` (allocated, ip_address,
 *   mac_address, cidr, gateway, logical_switch, logical_router, pod_nic_type,
 *   routed).
 *
 * A networks annotation that does not parse, a missing NAD or a provider no
 * Subnet carries fails the whole pod (Kube-OVN's getPodKubeovnNets error: the
 * CNI call fails), before its primary network is touched.
 */
import { formatMAC } from '../../model/addr/index.ts';
import { ownerKey, toRecord } from '../../model/ipam/index.ts';
import { annotationKey, decodeAddressRequest } from '../../kube/annotations.ts';
import { formatKey, type KubeObject, type ObjectKey } from '../../kube/cluster/types.ts';
import {
  attachmentProvider,
  decodeNetworkAttachmentDefinition,
  decodeSubnet,
  KUBE_OVN_CNI,
  NETWORKS_ANNOTATION,
  type PodView,
  parseNetworks,
} from '../../kube/objects/objects.ts';
import type { TableRow } from '../desired/store.ts';
import { podAnnotations, podPortRow } from '../translate/pod.ts';
import { subnetCidrs, subnetGateways } from '../translate/subnet.ts';
import type { Ctx } from './context.ts';

/** One attachment of a pod, resolved: its provider and subnet, and what it asks for. */
export interface Attachment {
  readonly provider: string;
  readonly subnet: string;
  readonly ips?: string;
  readonly mac?: string;
}

export type AttachmentsResult =
  | { readonly ok: true; readonly value: readonly Attachment[] }
  | { readonly ok: false; readonly field: string; readonly message: string };

const NETWORKS_FIELD = `metadata.annotations[${NETWORKS_ANNOTATION}]`;

/** The pod's kube-ovn attachments, or why they cannot be had. */
export function resolveAttachments(ctx: Ctx, p: PodView): AttachmentsResult {
  const text = p.annotations[NETWORKS_ANNOTATION];
  if (text === undefined || text.trim() === '') return { ok: true, value: [] };
  const parsed = parseNetworks(text, p.namespace);
  if (!parsed.ok)
    return { ok: false, field: NETWORKS_FIELD, message: `${NETWORKS_ANNOTATION}: ${parsed.error.message}` };
  const out: Attachment[] = [];
  for (const sel of parsed.value) {
    const nadObj = ctx.cache('NetworkAttachmentDefinition').get(formatKey(sel));
    if (nadObj === undefined)
      return { ok: false, field: NETWORKS_FIELD, message: `net-attach-def ${sel.namespace}/${sel.name} not found` };
    const nad = ctx.decode(nadObj, decodeNetworkAttachmentDefinition).value;
    if (!nad.types.includes(KUBE_OVN_CNI)) continue;
    const provider = attachmentProvider(sel);
    const subnet =
      p.annotations[annotationKey(provider, 'logical_switch')] ||
      ctx
        .cache('Subnet')
        .list()
        .map((s) => ctx.decode(s, decodeSubnet).value)
        .filter((s) => s.provider === provider)
        .map((s) => s.name)
        .sort()[0];
    if (subnet === undefined)
      return { ok: false, field: NETWORKS_FIELD, message: `provider ${provider} is not bound to any subnet` };
    const req = decodeAddressRequest(p.annotations, provider);
    const ips = req.ips ?? (sel.ips && sel.ips.length > 0 ? sel.ips.map((a) => a.split('/')[0]).join(',') : undefined);
    const mac = req.mac ?? sel.mac;
    out.push({ provider, subnet, ...(ips ? { ips } : {}), ...(mac ? { mac } : {}) });
  }
  return { ok: true, value: out };
}

/** The IPAM owners of each pod's attachments, to let them go when the pod or the attachment is gone. */
const held = new WeakMap<Ctx, Map<string, Set<string>>>();

function heldBy(ctx: Ctx, pod: string): Set<string> {
  let m = held.get(ctx);
  if (m === undefined) held.set(ctx, (m = new Map()));
  let s = m.get(pod);
  if (s === undefined) m.set(pod, (s = new Set()));
  return s;
}

/** The store owner of a pod's attachment ports (apart from its primary port, the Pod's own). */
const attachmentOwner = (key: ObjectKey) => ({
  kind: 'PodAttachment',
  namespace: key.namespace ?? 'default',
  name: key.name,
});

/** Lets every attachment of a pod go (the pod deleted, finished, or failing). */
export function releaseAttachments(ctx: Ctx, key: ObjectKey): void {
  const pod = formatKey(key);
  for (const owner of heldBy(ctx, pod)) {
    const lease = ctx.ipam.release(owner);
    if (lease) ctx.enqueue('Subnet', { name: lease.subnet });
  }
  held.get(ctx)?.delete(pod);
  ctx.committer.delete(attachmentOwner(key));
}

/**
 * Allocates each attachment, sets its ports and returns the annotations to
 * write for them (null: a key of an attachment no longer there), or the first
 * attachment whose address cannot be had.
 */
export function applyAttachments(
  ctx: Ctx,
  key: ObjectKey,
  o: KubeObject,
  p: PodView,
  list: readonly Attachment[],
): { ok: true; annotations: Record<string, string | null> } | { ok: false; message: string } {
  const mine = heldBy(ctx, formatKey(key));
  const wanted = new Set(list.map((a) => ownerKey(p.name, p.namespace, a.provider)));
  for (const owner of [...mine]) {
    if (wanted.has(owner)) continue;
    ctx.ipam.release(owner);
    mine.delete(owner);
  }
  const rows: TableRow[] = [];
  const annotations: Record<string, string | null> = {};
  for (const a of list) {
    const owner = ownerKey(p.name, p.namespace, a.provider);
    const r = ctx.ipam.allocate({
      subnet: a.subnet,
      owner,
      namespace: p.namespace,
      ...(a.ips ? { ips: a.ips } : {}),
      ...(a.mac ? { mac: a.mac } : {}),
    });
    if (!r.ok) return { ok: false, message: `attachment ${a.provider}: ${r.error.message}` };
    mine.add(owner);
    const cfg = ctx.ipam.subnet(a.subnet)!.config;
    const alloc = {
      pod: p.name,
      namespace: p.namespace,
      provider: a.provider,
      subnet: a.subnet,
      router: cfg.vpc,
      mac: formatMAC(r.lease.mac),
      ips: toRecord(r.lease).ips,
      cidrs: subnetCidrs(cfg),
      gateways: subnetGateways(cfg),
    };
    rows.push({ table: 'switchPort', row: podPortRow(alloc) });
    Object.assign(annotations, podAnnotations(alloc), {
      [annotationKey(a.provider, 'pod_nic_type')]: ctx.settings.podNicType,
    });
    if (!p.nodeName) annotations[annotationKey(a.provider, 'routed')] = null;
  }
  // The keys of an attachment the pod no longer has.
  for (const k of Object.keys(o.metadata.annotations ?? {}))
    if (/^[^/]+\.ovn\.kubernetes\.io\/(allocated|routed)$/.test(k) && !(k in annotations)) annotations[k] = null;
  if (rows.length === 0) ctx.committer.delete(attachmentOwner(key));
  else ctx.committer.set(attachmentOwner(key), { rows });
  return { ok: true, annotations };
}

/**
 * Pod → an address from the IPAM, the logical switch port `<pod>.<ns>`, its
 * memberships in its node's port groups, the annotations Kube-OVN writes,
 * and the IP object `<pod>.<ns>` as the durable allocation record
 * (pkg/controller/pod.go, ip.go).
 *
 * - Subnet: the pod's `ovn.kubernetes.io/logical_switch` annotation, else
 *   the first Subnet (by name) binding the namespace through `namespaces`
 *   or `namespaceSelectors`, else the namespace's own `logical_switch`
 *   annotation, else the default subnet.
 * - `ip_address`, `mac_address`, `ip_pool` annotations ask for addresses;
 *   a StatefulSet pod takes its ordinal's entry of an `ip_pool` list, and
 *   its lease outlives the pod (the IP object's `podType: StatefulSet`), so
 *   a re-created pod gets the same address. kovn does not watch
 *   StatefulSets yet: a scaled-down ordinal keeps its address until its IP
 *   object is deleted.
 * - hostNetwork pods are left alone; a pod that has finished (Succeeded or
 *   Failed) releases its address and port as Kube-OVN does.
 * - An address that cannot be had (taken, outside the subnet, pool empty)
 *   is an `AcquireAddressFailed` event and no annotation; the work queue
 *   retries with backoff, so the pod gets it once the cause goes away.
 */
import { formatMAC, tryParseIP } from '../../model/addr/index.ts';
import { ownerKey, statefulSetOrdinal, toRecord } from '../../model/ipam/index.ts';
import { formatKey, type ObjectKey, objectKey } from '../../kube/cluster/types.ts';
import { deletionChanged, labelsChanged } from '../../kube/runtime/changes.ts';
import type { Contribution, TableRow } from '../desired/store.ts';
import {
  decodeIP,
  decodeIPPool,
  decodeNamespace,
  decodePod,
  decodeSubnet,
  decodeVpc,
  NETWORKS_ANNOTATION,
  type PodView,
  selects,
} from '../../kube/objects/objects.ts';
import { podNodeMemberships } from '../translate/node.ts';
import { OVN_PROVIDER, annotationKey, decodeAddressRequest } from '../../kube/annotations.ts';
import { podAnnotations, podPortRow } from '../translate/pod.ts';
import { podSecurityGroups, SECURITY_GROUPS_ANNOTATION } from '../translate/security-group.ts';
import { SECURITY_GROUP_INDEX, securityGroupContributions } from './security-group.ts';
import { subnetCidrs, subnetGateways } from '../translate/subnet.ts';
import { type Ctx, LEASE_INDEX, NAMESPACE_INDEX, patchAnnotations } from './context.ts';
import { ALL, type Handler } from './handler.ts';
import { physicalGateway, underlayPodAnnotations } from './subnet-underlay.ts';
import { applyAttachments, releaseAttachments, resolveAttachments } from './attachment.ts';
import {
  policiesFor,
  policyContributions,
  reachesBeyondNamespace,
  requeueNamedPortPolicies,
} from './network-policy.ts';

const A = (k: Parameters<typeof annotationKey>[1]) => annotationKey(OVN_PROVIDER, k);
const NETWORKS_FIELD = `metadata.annotations[${NETWORKS_ANNOTATION}]`;

/**
 * The subnets a namespace's pods go to, in order (Kube-OVN's handleAddNamespace):
 * the Subnets binding it by `namespaces` or `namespaceSelectors` (by name),
 * with a custom VPC's `defaultSubnet` first when that VPC lists the namespace;
 * none binding it, the `defaultSubnet` of a VPC that lists it; else the
 * namespace's own `logical_switch` annotation. Empty: the default subnet.
 */
export function namespaceSubnets(ctx: Ctx, ns: string): string[] {
  const nsObj = ctx.cache('Namespace').get(ns);
  const labels = nsObj ? ctx.decode(nsObj, decodeNamespace).value.labels : { 'kubernetes.io/metadata.name': ns };
  const out: string[] = [];
  for (const s of ctx.cache('Subnet').list()) {
    const v = ctx.decode(s, decodeSubnet).value;
    if (v.deleting) continue;
    if (v.namespaces.includes(ns) || v.namespaceSelectors.some((sel) => selects(sel, labels))) out.push(v.name);
  }
  out.sort();
  const vpcDefaults = ctx
    .cache('Vpc')
    .list()
    .map((o) => ctx.decode(o, decodeVpc).value)
    .filter((v) => v.name !== ctx.settings.clusterRouter && v.namespaces.includes(ns) && v.defaultSubnet !== '')
    .map((v) => v.defaultSubnet)
    .sort();
  if (out.length > 0) {
    // A bound subnet that is its VPC's default goes first (never for kube-system, as in Kube-OVN).
    const first = ns === 'kube-system' ? undefined : vpcDefaults.find((d) => out.includes(d));
    return first === undefined ? out : [first, ...out.filter((n) => n !== first)];
  }
  if (vpcDefaults.length > 0 && ctx.cache('Subnet').get(vpcDefaults[0]!) !== undefined) return [vpcDefaults[0]!];
  const own = nsObj?.metadata.annotations?.[A('logical_switch')];
  return own ? own.split(',').map((s) => s.trim()) : [];
}

/** A pool name (not a list of addresses) in the pod's `ip_pool` annotation: the pool's subnet (Kube-OVN's getPodDefaultSubnet). */
function poolSubnet(ctx: Ctx, p: PodView): string | undefined {
  const pool = (p.annotations[A('ip_pool')] ?? '').trim();
  if (pool === '' || /[,;]/.test(pool) || tryParseIP(pool) !== undefined) return undefined;
  const o = ctx.cache('IPPool').get(pool);
  return o === undefined ? undefined : ctx.decode(o, decodeIPPool).value.subnet || undefined;
}

export function podSubnet(ctx: Ctx, p: PodView): string {
  return (
    p.annotations[A('logical_switch')] ||
    poolSubnet(ctx, p) ||
    namespaceSubnets(ctx, p.namespace)[0] ||
    ctx.settings.defaultLogicalSwitch
  );
}

const alive = (p: PodView) => !p.hostNetwork && p.phase !== 'Succeeded' && p.phase !== 'Failed' && !p.deleting;

function ipObjectName(pod: string, ns: string): string {
  return ownerKey(pod, ns);
}

/** The `ip_family` annotation (Kube-OVN's NormalizeIPFamily after ValidatePodNetwork). */
function ipFamily(v: string): 4 | 6 | 'invalid' | undefined {
  return v === '' ? undefined : v === 'ipv4' ? 4 : v === 'ipv6' ? 6 : 'invalid';
}

export async function reconcilePod(ctx: Ctx, key: ObjectKey): Promise<void> {
  const { name } = key;
  const ns = key.namespace ?? 'default';
  const owner = { kind: 'Pod', namespace: ns, name };
  const ipamOwner = ownerKey(name, ns);
  const o = ctx.cache('Pod').get(formatKey(key));
  const p = o ? ctx.decode(o, decodePod).value : undefined;
  if (p === undefined || !alive(p)) {
    // What its allocation said before (AcquireAddressFailed) no longer holds: it asks for nothing now.
    ctx.report(owner, 'reconcile', []);
    // A hostNetwork pod holds nothing; one re-created under the name of a pod that had a port lets it go here.
    ctx.committer.delete(owner);
    releaseAttachments(ctx, key);
    const ipObj = ctx.cache('IP').get(ipObjectName(name, ns));
    const sts = ipObj !== undefined && ctx.decode(ipObj, decodeIP).value.podType === 'StatefulSet';
    // A StatefulSet pod deleted (not finished) keeps its address for its successor.
    if (sts && p === undefined) return;
    const lease = ctx.ipam.release(ipamOwner);
    if (lease) ctx.enqueue('Subnet', { name: lease.subnet });
    if (ipObj) {
      await ctx.afterCommit('Pod', key, async () => {
        // Gone already is done; any other failure is retried (the pod's key runs again).
        await ctx.cluster.delete({ kind: 'IP', name: ipObj.metadata.name }).catch((e: unknown) => {
          if ((e as { reason?: string }).reason !== 'NotFound') throw e;
        });
      });
    }
    return;
  }
  const subnet = podSubnet(ctx, p);
  const subObj = ctx.cache('Subnet').get(subnet);
  const view = ctx.ipam.subnet(subnet);
  const ref = { kind: 'Pod', namespace: ns, name, uid: p.uid };
  const failed = (why: string) =>
    ctx.report(ref, 'reconcile', [
      {
        code: 'AcquireAddressFailed',
        field: '',
        message: `no address: ${why}`,
        scope: [{ kind: 'pod', namespace: ns, name }],
      },
    ]);
  if (subObj === undefined || view === undefined) {
    const why = subObj === undefined ? `subnet ${subnet} does not exist` : `subnet ${subnet} is not valid`;
    // No port without its subnet, as a controller starting now would make none.
    ctx.committer.delete(owner);
    failed(why);
    await ctx.event(ref, 'Warning', 'AcquireAddressFailed', why);
    throw new Error(`pod ${formatKey(key)}: ${why}`);
  }
  // Its attachment networks (attachment.ts): one that cannot be resolved fails the whole pod, as in Kube-OVN.
  const attachments = resolveAttachments(ctx, p);
  if (!attachments.ok) return refuseAttachments(ctx, key, ref, attachments.field, attachments.message);
  const sts = p.ownerReferences.some((r) => r.kind === 'StatefulSet');
  const ordinal = sts ? statefulSetOrdinal(name) : undefined;
  const { ips: askedIps, mac: askedMac, ipPool, portSecurity } = decodeAddressRequest(p.annotations);
  const family = ipFamily(p.annotations[A('ip_family')] ?? '');
  if (family === 'invalid') {
    // Kube-OVN's ValidatePodNetwork: only lowercase ipv4 or ipv6; the pod is not handled (what it had stays).
    const why = `${A('ip_family')}: ${JSON.stringify(p.annotations[A('ip_family')])} is not ipv4 or ipv6`;
    failed(why);
    await ctx.event(ref, 'Warning', 'ValidatePodNetworkFailed', why);
    throw new Error(`pod ${formatKey(key)}: ${why}`);
  }
  // A lease the pod was never annotated with (restored from its NB port: the controller that committed it
  // died before writing the annotations) binds it to nothing; in a subnet it no longer goes to, it is let go.
  const held = ctx.ipam.lookup(ipamOwner);
  if (held !== undefined && held.subnet !== subnet && p.annotations[A('allocated')] !== 'true') {
    ctx.ipam.release(ipamOwner);
    // The subnet it left may be a deleted one that this lease alone kept (its finalizer): it is judged again.
    ctx.enqueue('Subnet', { name: held.subnet });
  }
  const a = ctx.ipam.allocate({
    subnet,
    owner: ipamOwner,
    namespace: ns,
    ...(askedIps ? { ips: askedIps } : {}),
    ...(askedMac ? { mac: askedMac } : {}),
    ...(ipPool ? { ipPool } : {}),
    ...(ordinal !== undefined ? { ordinal } : {}),
    ...(family !== undefined ? { family } : {}),
  });
  if (!a.ok) {
    // A port whose lease is gone (its subnet's new spec dropped it) must not keep the address in NB.
    if (ctx.ipam.lookup(ipamOwner) === undefined) ctx.committer.delete(owner);
    failed(a.error.message);
    await ctx.event(ref, 'Warning', 'AcquireAddressFailed', a.error.message);
    throw a.error;
  }
  ctx.report(ref, 'reconcile', []);
  const { ips } = toRecord(a.lease);
  const mac = formatMAC(a.lease.mac);
  const cfg = view.config;
  // The VPC the subnet was accepted with: a subnet refused since (spec.vpc naming a missing Vpc) keeps its
  // switch as it was, and its pods their ports as they were.
  const router = cfg.vpc;
  const alloc = {
    pod: name,
    namespace: ns,
    subnet,
    router,
    mac,
    ips,
    cidrs: subnetCidrs(cfg),
    gateways: subnetGateways(cfg),
    portSecurity,
    securityGroups: podSecurityGroups(p.annotations[SECURITY_GROUPS_ANNOTATION]),
  };
  const port = podPortRow(alloc);
  const rows: TableRow[] = [{ table: 'switchPort', row: port }];
  const s = ctx.decode(subObj, decodeSubnet).value;
  const distributed =
    router === ctx.settings.clusterRouter &&
    s.gatewayType === 'distributed' &&
    subnet !== ctx.settings.nodeSwitch &&
    !physicalGateway(s);
  const contributions: Contribution[] = p.nodeName
    ? podNodeMemberships(port.name, p.nodeName, subnet, distributed)
    : [];
  const member = { namespace: ns, labels: p.labels, port: port.name, ips };
  contributions.push(...policyContributions(ctx, member, policiesFor(ctx, ns)));
  contributions.push(...securityGroupContributions(ctx, port, alloc.securityGroups));
  const attached = applyAttachments(ctx, key, o!, p, attachments.value);
  if (!attached.ok) return refuseAttachments(ctx, key, ref, NETWORKS_FIELD, attached.message);
  ctx.committer.set(owner, { rows, contributions });
  ctx.enqueue('Subnet', { name: subnet });
  const want: Record<string, string | null> = {
    ...attached.annotations,
    ...podAnnotations(alloc),
    [A('pod_nic_type')]: ctx.settings.podNicType,
  };
  if (!p.nodeName) want[A('routed')] = null;
  Object.assign(want, underlayPodAnnotations(ctx, s));
  await ctx.afterCommit('Pod', key, async () => {
    await patchAnnotations(ctx, o!, want);
    await ensureIpObject(ctx, p, subnet, ips, mac, sts);
  });
}

/** A pod whose attachments cannot be had: no ports at all, an AcquireAddressFailed event, retried. */
async function refuseAttachments(
  ctx: Ctx,
  key: ObjectKey,
  ref: { kind: string; namespace: string; name: string; uid: string },
  field: string,
  message: string,
): Promise<void> {
  ctx.committer.delete({ kind: 'Pod', namespace: ref.namespace, name: ref.name });
  releaseAttachments(ctx, key);
  ctx.report(ref, 'reconcile', [
    {
      code: 'AcquireAddressFailed',
      field,
      message: `no address: ${message}`,
      scope: [{ kind: 'pod', namespace: ref.namespace, name: ref.name }],
    },
  ]);
  await ctx.event(ref, 'Warning', 'AcquireAddressFailed', message);
  throw new Error(`pod ${formatKey(key)}: ${message}`);
}

async function ensureIpObject(
  ctx: Ctx,
  p: PodView,
  subnet: string,
  ips: readonly string[],
  mac: string,
  sts: boolean,
): Promise<void> {
  const name = ipObjectName(p.name, p.namespace);
  const spec = {
    podName: p.name,
    namespace: p.namespace,
    subnet,
    attachSubnets: [] as string[],
    nodeName: p.nodeName,
    ipAddress: ips.join(','),
    v4IpAddress: ips.find((i) => !i.includes(':')) ?? '',
    v6IpAddress: ips.find((i) => i.includes(':')) ?? '',
    macAddress: mac,
    podType: sts ? 'StatefulSet' : '',
  };
  const have = ctx.cache('IP').get(name);
  const labels = { 'ovn.kubernetes.io/subnet': subnet, [subnet]: '' };
  if (have === undefined) {
    await ctx.cluster
      .create({ apiVersion: 'kubeovn.io/v1', kind: 'IP', metadata: { name, labels }, spec })
      .catch(async (e: unknown) => {
        if ((e as { reason?: string }).reason !== 'AlreadyExists') throw e;
        await ctx.cluster.patch({ kind: 'IP', name }, { spec });
      });
    return;
  }
  if (!holds(have.spec, spec)) await ctx.cluster.patch({ kind: 'IP', name }, { spec });
}

/**
 * Whether `have` already holds every field of `want` (strings and string
 * lists; fields `want` does not set are left alone by its merge patch, so
 * they do not count), compared field by field: this runs once per pod.
 */
function holds(have: unknown, want: Readonly<Record<string, string | readonly string[]>>): boolean {
  if (typeof have !== 'object' || have === null) return false;
  const h = have as Readonly<Record<string, unknown>>;
  for (const [k, v] of Object.entries(want)) {
    const x = h[k];
    if (typeof v === 'string' ? x !== v : !Array.isArray(x) || x.length !== v.length || v.some((e, i) => x[i] !== e))
      return false;
  }
  return true;
}

/** The keys of the pods of one namespace. */
function* podsOf(ctx: Ctx, ns: string): Iterable<ObjectKey> {
  for (const p of ctx.cache('Pod').byIndex(NAMESPACE_INDEX, ns)) yield objectKey(p);
}

/**
 * A pod's reconcile; a new or released address changes the rows of the
 * policies with named ports that can see it (network-policy.ts).
 */
async function reconcileTracked(ctx: Ctx, key: ObjectKey): Promise<void> {
  const ns = key.namespace ?? 'default';
  const owner = ownerKey(key.name, ns);
  const before = ctx.ipam.lookup(owner);
  try {
    await reconcilePod(ctx, key);
  } finally {
    const after = ctx.ipam.lookup(owner);
    if (before?.v4 !== after?.v4 || before?.v6 !== after?.v6) requeueNamedPortPolicies(ctx, ns);
  }
}

export const podHandler: Handler = {
  kind: 'Pod',
  after: ['Subnet', 'IPPool', 'Vpc', 'Node', 'Namespace'],
  watches: [
    { kind: 'Pod' },
    // Its IP object deleted by hand: the pod writes it again or, gone, releases the address it kept.
    {
      kind: 'IP',
      map: (ctx, e) => {
        const ip = ctx.decode(e.object, decodeIP).value;
        return e.gone && ip.podName && ip.namespace ? [{ namespace: ip.namespace, name: ip.podName }] : [];
      },
    },
    // Its attachments' NetworkAttachmentDefinitions (attachment.ts).
    {
      kind: 'NetworkAttachmentDefinition',
      map: (ctx) =>
        ctx
          .cache('Pod')
          .list()
          .filter((x) => x.metadata.annotations?.[NETWORKS_ANNOTATION])
          .map(objectKey),
    },
    // Its namespace's labels decide its memberships in wider policies.
    { kind: 'Namespace', when: labelsChanged, map: (ctx, e) => podsOf(ctx, e.object.metadata.name) },
    // A security group created or deleted: the pods naming it join or leave the deny-all group.
    {
      kind: 'SecurityGroup',
      when: deletionChanged,
      map: (ctx, e) => [...ctx.cache('Pod').byIndex(SECURITY_GROUP_INDEX, e.object.metadata.name)].map(objectKey),
    },
    // The pods that can be members of a policy, before or after its change, recompute their memberships.
    {
      kind: 'NetworkPolicy',
      map: (ctx, e) =>
        (e.old !== undefined && reachesBeyondNamespace(ctx, e.old)) || reachesBeyondNamespace(ctx, e.object)
          ? ALL
          : podsOf(ctx, e.object.metadata.namespace ?? 'default'),
    },
  ],
  indexes: [
    {
      kind: 'Pod',
      name: SECURITY_GROUP_INDEX,
      values: (_ctx, o) => podSecurityGroups(o.metadata.annotations?.[SECURITY_GROUPS_ANNOTATION]),
    },
    {
      kind: 'Pod',
      name: LEASE_INDEX,
      values: (_ctx, o) => [ownerKey(o.metadata.name, o.metadata.namespace ?? 'default')],
    },
  ],
  reconcile: reconcileTracked,
  // Address allocation waits on little but the IPAM: a storm of pods is worth more workers than other kinds.
  workers: (s) => Math.max(16, s.workerNum),
};

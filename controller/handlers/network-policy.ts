/**
 * NetworkPolicy → port group `<np>.<ns>`, address sets and ACLs
 * (translate/network-policy.ts, Kube-OVN's pkg/controller/network_policy.go).
 * Selectors are resolved here against the caches: the pods a policy selects
 * and each peer's pods, with their allocated addresses and named container
 * ports. A policy is recomputed whenever a pod or a namespace it could match
 * changes (the controller enqueues every policy then: cheap next to a pod's
 * own work, and never wrong).
 */
import { formatIPv4, formatIPv6 } from '../../model/addr/index.ts';
import { ownerKey } from '../../model/ipam/index.ts';
import type { KubeObject } from '../cluster/types.ts';
import type { TableRow } from '../desired/store.ts';
import {
  decodeNamespace,
  decodeNetworkPolicy,
  decodePod,
  type LabelSelector,
  type PodView,
  selects,
} from '../kube/objects.ts';
import { podPort } from '../translate/names.ts';
import {
  type Family,
  networkPolicyRows,
  type PolicyPeerInput,
  type PolicyPod,
  type PolicyRuleInput,
} from '../translate/network-policy.ts';
import { type Ctx, describeIssues } from './context.ts';
import { namespaceSubnets } from './pod.ts';

interface Member extends PolicyPod {
  readonly view: PodView;
}

/** A pod as policies see it, memoized per pod object and lease (a storm decodes each pod once). */
const memo = new WeakMap<KubeObject, { readonly lease: string; readonly member: Member | undefined }>();

function memberOf(ctx: Ctx, o: KubeObject): Member | undefined {
  const view = ctx.decode(o, decodePod).value;
  const lease = ctx.ipam.lookup(ownerKey(view.name, view.namespace));
  const id = lease === undefined ? '' : `${lease.v4}/${lease.v6}`;
  const hit = memo.get(o);
  if (hit !== undefined && hit.lease === id) return hit.member;
  let member: Member | undefined;
  const gone = view.hostNetwork || view.deleting || view.phase === 'Succeeded' || view.phase === 'Failed';
  if (lease !== undefined && !gone) {
    const ips: string[] = [];
    if (lease.v4 !== undefined) ips.push(formatIPv4(lease.v4));
    if (lease.v6 !== undefined) ips.push(formatIPv6(lease.v6));
    const namedPorts = new Map<string, { protocol: 'TCP' | 'UDP' | 'SCTP'; port: number }>();
    for (const p of view.ports) if (p.name) namedPorts.set(p.name, { protocol: p.protocol, port: p.containerPort });
    member = { view, port: podPort(view.name, view.namespace), ips, namedPorts };
  }
  memo.set(o, { lease: id, member });
  return member;
}

/** The pods of a namespace with an address, in key order. */
function membersIn(ctx: Ctx, ns: string): Member[] {
  const out: Member[] = [];
  for (const o of ctx.podsIn(ns)) {
    const m = memberOf(ctx, o);
    if (m) out.push(m);
  }
  return out.sort((a, b) => (a.port < b.port ? -1 : a.port > b.port ? 1 : 0));
}

/** Labels of a namespace (its name label even without a Namespace object). */
export function namespaceLabels(ctx: Ctx, ns: string): Readonly<Record<string, string>> {
  const n = ctx.cache('Namespace').get(ns);
  return n ? ctx.decode(n, decodeNamespace).value.labels : { 'kubernetes.io/metadata.name': ns };
}

/** A policy whose peers select namespaces, or whose egress names ports (resolved over every pod). */
export function reachesBeyondNamespace(ctx: Ctx, np: KubeObject): boolean {
  const v = ctx.decode(np, decodeNetworkPolicy).value;
  if (v.egress.some((r) => r.ports.some((p) => typeof p.port === 'string'))) return true;
  return [...v.ingress, ...v.egress].some((r) => (r.peers ?? []).some((p) => p.namespaceSelector !== undefined));
}

/**
 * Whether a change of a pod in `ns` can change the policy: its own namespace,
 * or a namespace one of its peers' namespaceSelectors selects.
 */
export function policyMayMatch(ctx: Ctx, np: KubeObject, ns: string): boolean {
  if (np.metadata.namespace === ns) return true;
  // Memoized per policy object and namespace object: both are replaced, never changed, when they change.
  let byNs = mayMatchMemo.get(np);
  if (byNs === undefined) mayMatchMemo.set(np, (byNs = new Map()));
  const nsObj = ctx.cache('Namespace').get(ns);
  const hit = byNs.get(ns);
  if (hit !== undefined && hit.nsObj === nsObj) return hit.result;
  const result = computeMayMatch(ctx, np, ns);
  byNs.set(ns, { nsObj, result });
  return result;
}

const mayMatchMemo = new WeakMap<KubeObject, Map<string, { nsObj: KubeObject | undefined; result: boolean }>>();

function computeMayMatch(ctx: Ctx, np: KubeObject, ns: string): boolean {
  const v = ctx.decode(np, decodeNetworkPolicy).value;
  // Named ports on egress resolve over every pod of the cluster.
  if (v.egress.some((r) => r.ports.some((p) => typeof p.port === 'string'))) return true;
  const labels = namespaceLabels(ctx, ns);
  for (const r of [...v.ingress, ...v.egress])
    for (const p of r.peers ?? []) if (p.namespaceSelector && selects(p.namespaceSelector, labels)) return true;
  return false;
}

const all = (sel: LabelSelector | undefined, labels: Readonly<Record<string, string>>) =>
  sel === undefined || selects(sel, labels);

export async function reconcileNetworkPolicy(ctx: Ctx, key: string): Promise<void> {
  const owner = `NetworkPolicy/${key}`;
  const o = ctx.cache('NetworkPolicy').get(key);
  if (o === undefined || !ctx.settings.enableNP) {
    ctx.committer.delete(owner);
    return;
  }
  const d = ctx.decode(o, decodeNetworkPolicy);
  const np = d.value;
  const ref = { kind: 'NetworkPolicy', namespace: np.namespace, name: np.name, uid: np.uid };
  if (d.issues.length > 0) await ctx.event(ref, 'Warning', 'InvalidNetworkPolicy', describeIssues(d.issues));
  const byNs = new Map<string, Member[]>();
  const inNs = (ns: string) => {
    let m = byNs.get(ns);
    if (m === undefined) byNs.set(ns, (m = membersIn(ctx, ns)));
    return m;
  };
  const nsList = [...ctx.podNamespaces()].sort();
  const selected = inNs(np.namespace).filter((p) => selects(np.podSelector, p.view.labels));
  const peers = (list: (typeof np.ingress)[number]['peers']): PolicyRuleInput['peers'] =>
    list?.map((peer): PolicyPeerInput => {
      if (peer.ipBlock) return { kind: 'ipBlock', cidr: peer.ipBlock.cidr, except: peer.ipBlock.except };
      const spaces = peer.namespaceSelector
        ? nsList.filter((ns) => selects(peer.namespaceSelector, namespaceLabels(ctx, ns)))
        : [np.namespace];
      return {
        kind: 'pods',
        pods: spaces.flatMap((ns) => inNs(ns).filter((p) => all(peer.podSelector, p.view.labels))),
      };
    });
  // Named ports on egress name destination pods anywhere: only then is every pod needed.
  const namedEgress = np.egress.some((r) => r.ports.some((p) => typeof p.port === 'string'));
  const clusterPods = namedEgress ? nsList.flatMap((ns) => inNs(ns)) : [];
  const rules = (rs: typeof np.ingress): PolicyRuleInput[] =>
    rs.map((r) => ({ ...(r.peers ? { peers: peers(r.peers) } : {}), ports: r.ports }));
  const families = new Set<Family>();
  for (const p of selected) for (const ip of p.ips) families.add(ip.includes(':') ? 'IPv6' : 'IPv4');
  if (families.size === 0) {
    const subnet = namespaceSubnets(ctx, np.namespace)[0] ?? ctx.settings.defaultLogicalSwitch;
    const cfg = ctx.ipam.subnet(subnet)?.config;
    if (cfg?.v4) families.add('IPv4');
    if (cfg?.v6) families.add('IPv6');
  }
  const t = networkPolicyRows({
    name: np.name,
    namespace: np.namespace,
    selected,
    families: (['IPv4', 'IPv6'] as const).filter((f) => families.has(f)),
    clusterPods,
    ...(np.policyTypes.includes('Ingress') ? { ingress: rules(np.ingress) } : {}),
    ...(np.policyTypes.includes('Egress') ? { egress: rules(np.egress) } : {}),
  });
  if (t.issues.length > 0) await ctx.event(ref, 'Warning', 'InvalidNetworkPolicy', describeIssues(t.issues));
  const rows: TableRow[] = [
    { table: 'portGroup', row: t.value.portGroup },
    ...t.value.addressSets.map((row): TableRow => ({ table: 'addressSet', row })),
    ...t.value.acls.map((row): TableRow => ({ table: 'acl', row })),
  ];
  ctx.committer.set(owner, { rows });
}

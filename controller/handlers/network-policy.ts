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

/** Every pod with an address, as policies see it. */
function members(ctx: Ctx): Member[] {
  const out: Member[] = [];
  for (const o of ctx.cache('Pod').list()) {
    const view = ctx.decode(o, decodePod).value;
    if (view.hostNetwork || view.deleting || view.phase === 'Succeeded' || view.phase === 'Failed') continue;
    const lease = ctx.ipam.lookup(ownerKey(view.name, view.namespace));
    if (lease === undefined) continue;
    const ips: string[] = [];
    if (lease.v4 !== undefined) ips.push(formatIPv4(lease.v4));
    if (lease.v6 !== undefined) ips.push(formatIPv6(lease.v6));
    const namedPorts = new Map<string, { protocol: 'TCP' | 'UDP' | 'SCTP'; port: number }>();
    for (const p of view.ports) if (p.name) namedPorts.set(p.name, { protocol: p.protocol, port: p.containerPort });
    out.push({ view, port: podPort(view.name, view.namespace), ips, namedPorts });
  }
  return out;
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
  const pods = members(ctx);
  const nsLabels = new Map<string, Readonly<Record<string, string>>>();
  const labelsOf = (ns: string) => {
    let l = nsLabels.get(ns);
    if (l === undefined) {
      const n = ctx.cache('Namespace').get(ns);
      l = n ? ctx.decode(n, decodeNamespace).value.labels : { 'kubernetes.io/metadata.name': ns };
      nsLabels.set(ns, l);
    }
    return l;
  };
  const selected = pods.filter((p) => p.view.namespace === np.namespace && selects(np.podSelector, p.view.labels));
  const peers = (list: (typeof np.ingress)[number]['peers']): PolicyRuleInput['peers'] =>
    list?.map((peer): PolicyPeerInput => {
      if (peer.ipBlock) return { kind: 'ipBlock', cidr: peer.ipBlock.cidr, except: peer.ipBlock.except };
      const inNs = (p: Member) =>
        peer.namespaceSelector
          ? selects(peer.namespaceSelector, labelsOf(p.view.namespace))
          : p.view.namespace === np.namespace;
      return { kind: 'pods', pods: pods.filter((p) => inNs(p) && all(peer.podSelector, p.view.labels)) };
    });
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
    clusterPods: pods,
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

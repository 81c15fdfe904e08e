/**
 * NetworkPolicy → port group `<np>.<ns>`, address sets and ACLs
 * (translate/network-policy.ts, Kube-OVN's pkg/controller/network_policy.go).
 * Selectors are resolved here against the caches: the pods a policy selects
 * and each peer's pods, with their allocated addresses and named container
 * ports. Members are the pods' own contributions (pod.ts): a policy's own
 * rows depend on pods only through named ports, so a pod's change requeues
 * only the policies with named ports that can see it, gathered for
 * `policyDelayMs` (one recompute per window during a storm).
 */
import { ownerKey, toRecord } from '../../model/ipam/index.ts';
import { formatKey, type KubeObject, type ObjectKey, objectKey } from '../../kube/cluster/types.ts';
import { labelsChanged, specLabelsOrDeletion } from '../../kube/runtime/changes.ts';
import type { Contribution, TableRow } from '../desired/store.ts';
import {
  decodeNamespace,
  decodeNetworkPolicy,
  decodePod,
  type LabelSelector,
  type PodView,
  type PolicyRule,
  selects,
} from '../../kube/objects/objects.ts';
import { podPort } from '../translate/names.ts';
import {
  type Family,
  networkPolicyRows,
  policyAddressSetName,
  type PolicyLog,
  policyPortGroup,
  type PolicyPeerInput,
  type PolicyPod,
  type PolicyRuleInput,
} from '../translate/network-policy.ts';
import { isBlocking } from '../../kube/objects/decode.ts';
import { type Cache, type Ctx, describeIssues, NAMESPACE_INDEX } from './context.ts';
import { ALL, type Handler } from './handler.ts';
import { namespaceSubnets } from './pod.ts';

export interface Member extends PolicyPod {
  readonly view: PodView;
}

/** A pod as policies see it, memoized per pod object and lease (a storm decodes each pod once). */
const memo = new WeakMap<KubeObject, { readonly lease: string; readonly member: Member | undefined }>();

export function memberOf(ctx: Ctx, o: KubeObject): Member | undefined {
  const view = ctx.decode(o, decodePod).value;
  const lease = ctx.ipam.lookup(ownerKey(view.name, view.namespace));
  const id = lease === undefined ? '' : `${lease.v4}/${lease.v6}`;
  const hit = memo.get(o);
  if (hit !== undefined && hit.lease === id) return hit.member;
  let member: Member | undefined;
  const gone = view.hostNetwork || view.deleting || view.phase === 'Succeeded' || view.phase === 'Failed';
  if (lease !== undefined && !gone) {
    const { ips } = toRecord(lease);
    const namedPorts = new Map<string, { protocol: 'TCP' | 'UDP' | 'SCTP'; port: number }>();
    for (const p of view.ports) if (p.name) namedPorts.set(p.name, { protocol: p.protocol, port: p.containerPort });
    member = { view, port: podPort(view.name, view.namespace), ips, namedPorts };
  }
  memo.set(o, { lease: id, member });
  return member;
}

/** The pods of a namespace with an address, in key order. */
export function membersIn(ctx: Ctx, ns: string): Member[] {
  const out: Member[] = [];
  for (const o of ctx.cache('Pod').byIndex(NAMESPACE_INDEX, ns)) {
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

/** A policy whose peers select namespaces: pods of other namespaces can be its members. */
export function reachesBeyondNamespace(ctx: Ctx, np: KubeObject): boolean {
  const v = ctx.decode(np, decodeNetworkPolicy).value;
  return [...v.ingress, ...v.egress].some((r) => (r.peers ?? []).some((p) => p.namespaceSelector !== undefined));
}

/**
 * Which pods' changes make a policy's own rows change (beyond the members
 * pods contribute): named ports resolve to numbers per pod, on ingress over
 * the selected pods (`own` namespace), on egress over every pod (`all`).
 */
export function namedPortDependence(ctx: Ctx, np: KubeObject): 'none' | 'own' | 'all' {
  const v = ctx.decode(np, decodeNetworkPolicy).value;
  const named = (rs: typeof v.ingress) => rs.some((r) => r.ports.some((p) => typeof p.port === 'string'));
  if (v.policyTypes.includes('Egress') && named(v.egress)) return 'all';
  if (v.policyTypes.includes('Ingress') && named(v.ingress)) return 'own';
  return 'none';
}

/**
 * Whether a pod in `ns` can be a member of the policy: its own namespace, or
 * a namespace one of its peers' namespaceSelectors selects.
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
  const labels = namespaceLabels(ctx, ns);
  for (const r of [...v.ingress, ...v.egress])
    for (const p of r.peers ?? []) if (p.namespaceSelector && selects(p.namespaceSelector, labels)) return true;
  return false;
}

const all = (sel: LabelSelector | undefined, labels: Readonly<Record<string, string>>) =>
  sel === undefined || selects(sel, labels);

export async function reconcileNetworkPolicy(ctx: Ctx, key: ObjectKey): Promise<void> {
  const owner = { kind: 'NetworkPolicy', ...key };
  const o = ctx.cache('NetworkPolicy').get(formatKey(key));
  if (o === undefined || !ctx.settings.enableNP) {
    ctx.committer.delete(owner);
    return;
  }
  const d = ctx.decode(o, decodeNetworkPolicy);
  const np = d.value;
  const ref = { kind: 'NetworkPolicy', namespace: np.namespace, name: np.name, uid: np.uid };
  const invalid = d.issues.filter(isBlocking);
  if (invalid.length > 0) await ctx.event(ref, 'Warning', 'InvalidNetworkPolicy', describeIssues(invalid));
  const byNs = new Map<string, Member[]>();
  const inNs = (ns: string) => {
    let m = byNs.get(ns);
    if (m === undefined) byNs.set(ns, (m = membersIn(ctx, ns)));
    return m;
  };
  const dependence = namedPortDependence(ctx, o);
  // Members come from the pods themselves (policyContributions); the rows need pods only for named ports.
  const selected =
    dependence === 'none' ? [] : inNs(np.namespace).filter((p) => selects(np.podSelector, p.view.labels));
  const clusterPods =
    dependence === 'all' ? [...ctx.cache('Pod').indexValues(NAMESPACE_INDEX)].sort().flatMap((ns) => inNs(ns)) : [];
  const peers = (list: (typeof np.ingress)[number]['peers']): PolicyRuleInput['peers'] =>
    list?.map(
      (peer): PolicyPeerInput =>
        peer.ipBlock
          ? { kind: 'ipBlock', cidr: peer.ipBlock.cidr, except: peer.ipBlock.except }
          : { kind: 'pods', pods: [] },
    );
  const rules = (rs: typeof np.ingress): PolicyRuleInput[] =>
    rs.map((r) => ({ ...(r.peers ? { peers: peers(r.peers) } : {}), ports: r.ports }));
  const families = policyFamilies(ctx, np.namespace);
  const { log, problem: logProblem } = policyLog(np.annotations);
  const input = (closed: boolean) => ({
    log,
    lax: np.annotations[ENFORCEMENT] === 'lax',
    name: np.name,
    namespace: np.namespace,
    selected,
    families,
    clusterPods,
    podMembers: 'contributed' as const,
    ...(np.policyTypes.includes('Ingress') ? { ingress: closed ? [] : rules(np.ingress) } : {}),
    ...(np.policyTypes.includes('Egress') ? { egress: closed ? [] : rules(np.egress) } : {}),
  });
  let t = networkPolicyRows(input(np.failClosed));
  // A rule that does not translate fails the whole policy closed, as an invalid spec does: what the user
  // meant by it is unknown, and the one answer that cannot open anything is isolation.
  const untranslated = t.issues;
  if (untranslated.length > 0) {
    await ctx.event(ref, 'Warning', 'InvalidNetworkPolicy', describeIssues(untranslated));
    t = networkPolicyRows(input(true));
  }
  const failed = [...invalid, ...untranslated];
  const dirs = np.policyTypes.map((x) => x.toLowerCase()).join(' and ');
  if (logProblem !== undefined) await ctx.event(ref, 'Warning', 'InvalidNetworkPolicy', logProblem.message);
  ctx.report(ref, 'reconcile', [
    ...(failed.length === 0
      ? []
      : [
          {
            code: 'InvalidNetworkPolicy',
            field: failed[0]!.field,
            message: `not translated (${failed.map((i) => i.message).join('; ')}): the pods it selects are isolated for ${dirs} (fail closed)`,
            scope: [{ kind: 'policy' as const, namespace: np.namespace, name: np.name }],
          },
        ]),
    ...(logProblem === undefined ? [] : [logProblem]),
  ]);
  const rows: TableRow[] = [
    { table: 'portGroup', row: t.value.portGroup },
    ...t.value.addressSets.map((row): TableRow => ({ table: 'addressSet', row })),
    ...t.value.acls.map((row): TableRow => ({ table: 'acl', row })),
  ];
  ctx.committer.set(owner, { rows });
}

const ENFORCEMENT = 'ovn.kubernetes.io/network_policy_enforcement';
const METER_RATE = 'ovn.kubernetes.io/acl_log_meter_rate';

/**
 * The logging annotations as Kube-OVN reads them (network_policy.go): `enable_log` is on only
 * when "true"; `log_acl_actions` defaults to `drop`; `acl_log_meter_rate` not a positive integer
 * is taken as none (Kube-OVN logs a warning; kovn reports it on the policy, no verdict depends on it).
 */
function policyLog(annotations: Readonly<Record<string, string>>): {
  log: PolicyLog;
  problem?: { code: string; field: string; message: string };
} {
  const actions = annotations['ovn.kubernetes.io/log_acl_actions'];
  const rateText = (annotations[METER_RATE] ?? '').trim();
  const rate = /^\d+$/.test(rateText) ? Number(rateText) : 0;
  const log: PolicyLog = {
    enable: annotations['ovn.kubernetes.io/enable_log'] === 'true',
    actions: actions ? actions.split(',') : ['drop'],
    meterRate: rate,
  };
  if (rateText === '' || rate > 0) return { log };
  const field = `metadata.annotations[${METER_RATE}]`;
  const message = `${field} ${JSON.stringify(rateText)} is not a positive integer: no meter`;
  return { log, problem: { code: 'InvalidAnnotation', field, message } };
}

/** The families of a namespace's subnets: the address sets and ACLs a policy there gets. */
function policyFamilies(ctx: Ctx, ns: string): Family[] {
  const names = namespaceSubnets(ctx, ns);
  const out = new Set<Family>();
  for (const name of names.length > 0 ? names : [ctx.settings.defaultLogicalSwitch]) {
    const cfg = ctx.ipam.subnet(name)?.config;
    if (cfg?.v4) out.add('IPv4');
    if (cfg?.v6) out.add('IPv6');
  }
  return (['IPv4', 'IPv6'] as const).filter((f) => out.has(f));
}

/** A pod as its policy memberships see it. */
export interface MemberPod {
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly port: string;
  readonly ips: readonly string[];
}

/**
 * A pod's own memberships in the policies that can reach it: its port in the
 * port group of each policy selecting it, its addresses in the allow address
 * set of each rule with a peer selecting it. Contributed by the pod, so a
 * pod's change costs its own members whatever the size of the policies.
 */
/** Allow-set names by policy (its decoded view, one per version): every pod of a storm asks for the same few. */
const allowSetNames = new WeakMap<object, Map<number, string>>();

function allowSetName(
  np: { readonly name: string; readonly namespace: string },
  dir: 'ingress' | 'egress',
  family: Family,
  idx: number,
): string {
  let names = allowSetNames.get(np);
  if (names === undefined) allowSetNames.set(np, (names = new Map()));
  const slot = idx * 4 + (dir === 'ingress' ? 0 : 2) + (family === 'IPv4' ? 0 : 1);
  let name = names.get(slot);
  if (name === undefined)
    names.set(slot, (name = policyAddressSetName(np.name, np.namespace, dir, 'allow', family, idx)));
  return name;
}

/** The address sets of `rules` whose peers select the pod: its addresses, one set per family. */
function peerContributions(
  np: { readonly name: string; readonly namespace: string },
  dir: 'ingress' | 'egress',
  rules: readonly PolicyRule[],
  pod: MemberPod,
  nsLabels: Readonly<Record<string, string>>,
  out: Contribution[],
): void {
  for (let idx = 0; idx < rules.length; idx++) {
    const peers = rules[idx]!.peers ?? [];
    let hit = false;
    for (const peer of peers) {
      hit =
        !peer.ipBlock &&
        (peer.namespaceSelector ? selects(peer.namespaceSelector, nsLabels) : np.namespace === pod.namespace) &&
        all(peer.podSelector, pod.labels);
      if (hit) break;
    }
    if (!hit) continue;
    for (const ip of pod.ips) {
      const family: Family = ip.includes(':') ? 'IPv6' : 'IPv4';
      out.push({ table: 'addressSet', key: allowSetName(np, dir, family, idx), column: 'addresses', members: [ip] });
    }
  }
}

export function policyContributions(ctx: Ctx, pod: MemberPod, policies: Iterable<KubeObject>): Contribution[] {
  if (!ctx.settings.enableNP) return [];
  const out: Contribution[] = [];
  const nsLabels = namespaceLabels(ctx, pod.namespace);
  for (const o of policies) {
    const np = ctx.decode(o, decodeNetworkPolicy).value;
    if (np.namespace === pod.namespace && selects(np.podSelector, pod.labels))
      out.push({
        table: 'portGroup',
        key: policyPortGroup(np.name, np.namespace),
        column: 'ports',
        members: [pod.port],
      });
    if (np.policyTypes.includes('Ingress')) peerContributions(np, 'ingress', np.ingress, pod, nsLabels, out);
    if (np.policyTypes.includes('Egress')) peerContributions(np, 'egress', np.egress, pod, nsLabels, out);
  }
  return out;
}

/** Policies whose peers select namespaces (`wide`), and those whose rows depend on pods' named ports. */
const WIDE_INDEX = 'wide';
const NAMED_PORTS_INDEX = 'namedPorts';
/** The named-ports value of the policies that depend on every pod (`*` is no namespace's name). */
const EVERY_NAMESPACE = '*';

/**
 * The NetworkPolicies a pod in `ns` can be a member of: its namespace's, and
 * the wide ones of other namespaces whose namespaceSelectors select `ns`
 * (policyMayMatch is memoized per policy and namespace object).
 */
export function* policiesFor(ctx: Ctx, ns: string): Iterable<KubeObject> {
  const cache = ctx.cache('NetworkPolicy');
  yield* cache.byIndex(NAMESPACE_INDEX, ns);
  yield* widePoliciesOf(ctx, cache, ns);
}

/**
 * The wide policies of other namespaces that may select pods of `ns`, kept
 * per namespace while neither the policies nor the namespace object change:
 * a pod's reconcile reads a short list instead of asking every wide policy
 * of the cluster (at 40k pods that walk was the controller's largest cost).
 */
function widePoliciesOf(ctx: Ctx, cache: Cache, ns: string): readonly KubeObject[] {
  let byNs = wideMemo.get(ctx);
  if (byNs === undefined) wideMemo.set(ctx, (byNs = new Map()));
  const nsObj = ctx.cache('Namespace').get(ns);
  const hit = byNs.get(ns);
  if (hit !== undefined && hit.nsObj === nsObj && hit.revision === cache.revision) return hit.list;
  const list: KubeObject[] = [];
  for (const np of cache.byIndex(WIDE_INDEX, WIDE_INDEX))
    if (np.metadata.namespace !== ns && policyMayMatch(ctx, np, ns)) list.push(np);
  byNs.set(ns, { nsObj, revision: cache.revision, list });
  return list;
}

const wideMemo = new WeakMap<
  Ctx,
  Map<string, { nsObj: KubeObject | undefined; revision: number; list: readonly KubeObject[] }>
>();

/** The policies whose own rows a change of a pod in `ns` can change (namedPortDependence). */
function* namedPortPolicies(ctx: Ctx, ns: string): Iterable<ObjectKey> {
  const cache = ctx.cache('NetworkPolicy');
  for (const value of [EVERY_NAMESPACE, ns])
    for (const np of cache.byIndex(NAMED_PORTS_INDEX, value)) yield objectKey(np);
}

/** Queues, after `policyDelayMs`, the policies whose own rows a change of a pod in `ns` can change. */
export function requeueNamedPortPolicies(ctx: Ctx, ns: string): void {
  for (const key of namedPortPolicies(ctx, ns)) ctx.enqueueAfter('NetworkPolicy', key, ctx.policyDelayMs);
}

export const networkPolicyHandler: Handler = {
  kind: 'NetworkPolicy',
  after: ['Pod', 'Namespace'],
  watches: [
    { kind: 'NetworkPolicy' },
    // The subnets a namespace is bound to decide its policies' address families.
    { kind: 'Subnet', when: specLabelsOrDeletion, map: () => ALL },
    // A pod added, gone or relabelled; its address changing is the pod handler's to say (pod.ts).
    {
      kind: 'Pod',
      when: labelsChanged,
      map: (ctx, e) => namedPortPolicies(ctx, e.object.metadata.namespace ?? 'default'),
      delayMs: (ctx) => ctx.policyDelayMs,
    },
  ],
  indexes: [
    {
      kind: 'NetworkPolicy',
      name: WIDE_INDEX,
      values: (ctx, np) => (reachesBeyondNamespace(ctx, np) ? [WIDE_INDEX] : []),
    },
    {
      kind: 'NetworkPolicy',
      name: NAMED_PORTS_INDEX,
      values: (ctx, np) => {
        const dep = namedPortDependence(ctx, np);
        return dep === 'all' ? [EVERY_NAMESPACE] : dep === 'own' ? [np.metadata.namespace ?? 'default'] : [];
      },
    },
  ],
  reconcile: reconcileNetworkPolicy,
};

/**
 * AdminNetworkPolicy and BaselineAdminNetworkPolicy → port group, address
 * sets and ACLs (translate/admin-network-policy.ts; Kube-OVN's
 * pkg/controller/admin_network_policy.go, baseline_admin_network_policy.go).
 * Subjects and peers are resolved here against the caches. An ANP's ACLs
 * depend on the Pass rules of every ANP before it (a smaller priority), so
 * a change of one ANP requeues them all; a pod or namespace change requeues
 * every ANP and BANP (after `policyDelayMs`, gathered).
 *
 * What Kube-OVN refuses is refused here too, reported on the object and
 * applied not at all (never half): a priority above 99 (AnpMaxPriority), more
 * than 100 rules a direction (AnpMaxRules), a priority another ANP already
 * has (Kube-OVN keeps the one it saw first; kovn, with no arrival order to
 * go by, the one whose name sorts first), a BANP not named `default`.
 */
import { type KubeObject, type ObjectKey, objectKey } from '../../kube/cluster/types.ts';
import {
  type AdminNetworkPolicyView,
  type AnpPeer,
  type AnpPods,
  type AnpRule,
  decodeAdminNetworkPolicy,
  decodeBaselineAdminNetworkPolicy,
  decodeNode,
  selects,
} from '../../kube/objects/objects.ts';
import { isBlocking } from '../../kube/objects/decode.ts';
import type { TableRow } from '../desired/store.ts';
import { type AnpInput, type AnpRuleInput, anpRows, type PassMatch } from '../translate/admin-network-policy.ts';
import { type Ctx, describeIssues, NAMESPACE_INDEX } from './context.ts';
import { ALL, type Handler, type WatchEvent } from './handler.ts';
import { type Member, membersIn, namespaceLabels } from './network-policy.ts';

type AnpKind = 'AdminNetworkPolicy' | 'BaselineAdminNetworkPolicy';

/** Kube-OVN's limits (pkg/util/const.go AnpMaxPriority, AnpMaxRules). */
const MAX_PRIORITY = 99;
const MAX_RULES = 100;

const decoderOf = (kind: AnpKind) =>
  kind === 'AdminNetworkPolicy' ? decodeAdminNetworkPolicy : decodeBaselineAdminNetworkPolicy;

/** Every namespace that has a Namespace object or a pod, sorted. */
function namespaces(ctx: Ctx): string[] {
  const out = new Set<string>(
    ctx
      .cache('Namespace')
      .list()
      .map((n) => n.metadata.name),
  );
  for (const ns of ctx.cache('Pod').indexValues(NAMESPACE_INDEX)) out.add(ns);
  return [...out].sort();
}

/** The pods a subject or a pod peer selects, in namespace then port order. */
function podsOf(ctx: Ctx, sel: AnpPods): Member[] {
  return namespaces(ctx)
    .filter((ns) => selects(sel.namespaces, namespaceLabels(ctx, ns)))
    .flatMap((ns) => membersIn(ctx, ns))
    .filter((m) => sel.kind === 'namespaces' || selects(sel.pods, m.view.labels));
}

/** A peer's addresses: its pods', its CIDRs, its nodes' InternalIPs (Kube-OVN's fetch*SelectedAddresses). */
function peerAddresses(ctx: Ctx, peer: AnpPeer): string[] {
  if (peer.kind === 'networks') return [...peer.cidrs];
  if (peer.kind === 'nodes')
    return ctx
      .cache('Node')
      .list()
      .filter((n) => selects(peer.nodes, n.metadata.labels ?? {}))
      .flatMap((n) => ctx.decode(n, decodeNode).value.internalIPs);
  return podsOf(ctx, peer).flatMap((m) => m.ips);
}

/** What Kube-OVN would refuse of a valid-looking policy: a message, or undefined. */
function refusal(v: AdminNetworkPolicyView, priorityHolder: string | undefined): string | undefined {
  if (v.baseline && v.name !== 'default') return `a BaselineAdminNetworkPolicy must be named default, not ${v.name}`;
  if (!v.baseline && v.priority > MAX_PRIORITY)
    return `spec.priority ${v.priority} is greater than Kube-OVN's maximum ${MAX_PRIORITY}`;
  if (v.ingress.length > MAX_RULES || v.egress.length > MAX_RULES)
    return `at most ${MAX_RULES} rules a direction, got ${v.ingress.length} ingress and ${v.egress.length} egress`;
  if (priorityHolder !== undefined && priorityHolder !== v.name)
    return `spec.priority ${v.priority} is already held by AdminNetworkPolicy ${priorityHolder}`;
  return undefined;
}

/** The ANPs in force, by priority: valid, not refused, the first name of each priority. */
function anpsInForce(ctx: Ctx): AdminNetworkPolicyView[] {
  const views = ctx
    .cache('AdminNetworkPolicy')
    .list()
    .map((o) => ctx.decode(o, decodeAdminNetworkPolicy).value)
    .filter((v) => !v.invalid && !v.deleting)
    .sort((a, b) => a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const holder = new Map<number, string>();
  for (const v of views) if (!holder.has(v.priority)) holder.set(v.priority, v.name);
  return views.filter((v) => refusal(v, holder.get(v.priority)) === undefined);
}

function ruleInputs(ctx: Ctx, rules: readonly AnpRule[]): AnpRuleInput[] {
  return rules.map((r) => ({
    name: r.name,
    action: r.action,
    addresses: r.peers.flatMap((p) => peerAddresses(ctx, p)),
    ...(r.ports ? { ports: r.ports } : {}),
  }));
}

function inputOf(ctx: Ctx, v: AdminNetworkPolicyView, passesBefore: readonly PassMatch[]): AnpInput {
  const named = [...v.ingress, ...v.egress].some((r) => (r.ports ?? []).some((p) => p.kind === 'named'));
  const log = v.annotations['ovn.kubernetes.io/log_acl_actions'] ?? '';
  return {
    baseline: v.baseline,
    name: v.name,
    priority: v.priority,
    selected: v.subject ? podsOf(ctx, v.subject) : [],
    ingress: ruleInputs(ctx, v.ingress),
    egress: ruleInputs(ctx, v.egress),
    clusterPods: named ? namespaces(ctx).flatMap((ns) => membersIn(ctx, ns)) : [],
    logActions: log === '' ? [] : log.split(',').map((s) => s.trim()),
    passesBefore,
  };
}

/** The Pass matches of the ANPs in force before `v` (a smaller priority). */
function passesBefore(ctx: Ctx, v: AdminNetworkPolicyView): PassMatch[] {
  const out: PassMatch[] = [];
  for (const other of anpsInForce(ctx)) {
    if (other.priority >= v.priority) break;
    if (![...other.ingress, ...other.egress].some((r) => r.action === 'Pass')) continue;
    out.push(...anpRows(inputOf(ctx, other, [])).passes);
  }
  return out;
}

async function reconcileAnp(ctx: Ctx, kind: AnpKind, key: ObjectKey): Promise<void> {
  const owner = { kind, name: key.name };
  const o = ctx.cache(kind).get(key.name);
  if (o === undefined) {
    ctx.committer.delete(owner);
    return;
  }
  const d = ctx.decode(o, decoderOf(kind));
  const v = d.value;
  const ref = { kind, namespace: '', name: v.name, uid: v.uid };
  const invalid = d.issues.filter(isBlocking);
  const holder = v.baseline ? undefined : anpsInForce(ctx).find((x) => x.priority === v.priority)?.name;
  const refused = v.invalid ? undefined : refusal(v, holder ?? v.name);
  if (invalid.length > 0 || refused !== undefined) {
    const message = invalid.length > 0 ? describeIssues(invalid) : refused!;
    await ctx.event(ref, 'Warning', 'InvalidAdminNetworkPolicy', message);
    const field = invalid[0]?.field ?? 'spec.priority';
    ctx.report(ref, 'reconcile', [
      { code: 'InvalidAdminNetworkPolicy', field, message: `not applied: ${message}`, scope: [{ kind: 'cluster' }] },
    ]);
    ctx.committer.delete(owner);
    return;
  }
  ctx.report(ref, 'reconcile', []);
  const t = anpRows(inputOf(ctx, v, v.baseline ? [] : passesBefore(ctx, v)));
  const rows: TableRow[] = [
    { table: 'portGroup', row: t.portGroup },
    ...t.addressSets.map((row): TableRow => ({ table: 'addressSet', row })),
    ...t.acls.map((row): TableRow => ({ table: 'acl', row })),
  ];
  ctx.committer.set(owner, { rows });
}

const every = () => ALL;

/** The event's own object (a deleted one is in no list, and its rows must go) and every other of its kind. */
const itselfAndEvery =
  (kind: AnpKind) =>
  (ctx: Ctx, e: WatchEvent): ObjectKey[] => [
    objectKey(e.object),
    ...ctx
      .cache(kind)
      .list()
      .filter((o) => o.metadata.name !== e.object.metadata.name)
      .map(objectKey),
  ];

function handlerOf(kind: AnpKind): Handler {
  return {
    kind,
    after: ['Pod', 'Namespace', 'Node'],
    watches: [
      // One ANP's Pass rules and priority change the ACLs of the ANPs after it.
      { kind, ...(kind === 'AdminNetworkPolicy' ? { map: itselfAndEvery(kind) } : {}) },
      { kind: 'Pod', map: every, delayMs: (ctx: Ctx) => ctx.policyDelayMs },
      { kind: 'Namespace', map: every },
      { kind: 'Node', map: every },
    ],
    reconcile: (ctx, key) => reconcileAnp(ctx, kind, key),
  };
}

/** @example HANDLERS.includes(adminNetworkPolicyHandler) */
export const adminNetworkPolicyHandler: Handler = handlerOf('AdminNetworkPolicy');
export const baselineAdminNetworkPolicyHandler: Handler = handlerOf('BaselineAdminNetworkPolicy');

/** Whether any ANP or BANP exists (the node port groups' ACLs, node.ts, keep the switches stateful). */
export const adminPolicyExists = (ctx: Ctx): boolean =>
  [...ctx.cache('AdminNetworkPolicy').list(), ...ctx.cache('BaselineAdminNetworkPolicy').list()].some(
    (o: KubeObject) => o.metadata.deletionTimestamp === undefined,
  );

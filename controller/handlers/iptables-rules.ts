/**
 * IptablesEIP, IptablesFIPRule, IptablesSnatRule and IptablesDnatRule: the
 * rules Kube-OVN runs in a VPC NAT gateway's pod (nat-gateway.sh eip-add,
 * floating-ip-add, snat-add, dnat-add). kovn writes no NB row for them (nor
 * does Kube-OVN: they live in the pod's iptables); it checks them as
 * Kube-OVN's handlers do (controller/translate/iptables-rules.ts) and writes
 * their statuses (ready, ip/v4ip, natGwDp, the rule's fields; an EIP's
 * `nat`: which kinds use it). The appliance model and the lab read the
 * ready ones (scenarios/natgw.ts): what the gateway pod holds.
 *
 * An EIP is ready when its gateway's pod has its address (Kube-OVN execs
 * into the pod then); a rule when its EIP is ready and it is well-formed.
 */
import type { KubeObject } from '../../kube/cluster/types.ts';
import { decodeIptablesEIP, decodeIptablesRule, type IptablesRuleView } from '../../kube/objects/vpc-nat-gateway.ts';
import { decodePodNetwork } from '../../kube/annotations.ts';
import { eipIssues, ruleIssues } from '../translate/iptables-rules.ts';
import { NAT_GW_ANNOTATION, natGwPodName } from '../translate/vpc-nat-gateway.ts';
import type { TranslateIssue } from '../translate/issues.ts';

/** A problem found in an object: its field and why. */
type Issue = Pick<TranslateIssue, 'field' | 'message'>;
import { ALL, type Handler } from './handler.ts';
import { blocking, type Ctx, describeIssues, sameJson } from './context.ts';

type RuleKind = 'IptablesFIPRule' | 'IptablesSnatRule' | 'IptablesDnatRule';
const RULE_KINDS: readonly RuleKind[] = ['IptablesFIPRule', 'IptablesSnatRule', 'IptablesDnatRule'];
const NAT_OF: Readonly<Record<RuleKind, string>> = {
  IptablesFIPRule: 'fip',
  IptablesSnatRule: 'snat',
  IptablesDnatRule: 'dnat',
};

/** The gateway's pod has its address (the pod handler wrote it). */
function gatewayPodReady(ctx: Ctx, gw: string): boolean {
  return ctx
    .cache('Pod')
    .list()
    .some((p) => {
      if (p.metadata.name !== natGwPodName(gw) || p.metadata.annotations?.[NAT_GW_ANNOTATION] !== gw) return false;
      const n = decodePodNetwork(p.metadata.annotations ?? {});
      return n.ok && n.value.ips.length > 0;
    });
}

/** The EIP's address when it is ready, its issues otherwise. */
function eipState(ctx: Ctx, name: string): { ip?: string; gw?: string; issues: Issue[] } {
  const o = ctx.cache('IptablesEIP').get(name);
  if (o === undefined) return { issues: [] };
  const d = ctx.decode(o, decodeIptablesEIP);
  const e = d.value;
  const gwExists = ctx.cache('VpcNatGateway').get(e.natGwDp) !== undefined;
  const issues = [...blocking(d.issues), ...eipIssues(e, { gatewayExists: gwExists })];
  if (issues.length > 0 || !gatewayPodReady(ctx, e.natGwDp)) return { issues };
  return { ip: e.v4ip, gw: e.natGwDp, issues };
}

async function report(ctx: Ctx, o: KubeObject, issues: readonly Issue[], scope: readonly string[]) {
  const ref = { kind: o.kind, name: o.metadata.name };
  ctx.report(
    ref,
    'reconcile',
    issues.map((i) => ({
      code: 'InvalidNatRule',
      field: i.field,
      message: `${i.message}: not put in the gateway`,
      scope: scope.length > 0 ? [{ kind: 'addresses' as const, cidrs: scope }] : [],
    })),
  );
  if (issues.length > 0)
    await ctx.event({ ...ref, uid: o.metadata.uid ?? '' }, 'Warning', 'InvalidNatRule', describeIssues(issues));
}

async function writeStatus(ctx: Ctx, o: KubeObject, status: Record<string, unknown>): Promise<void> {
  const have = (o.status ?? {}) as Record<string, unknown>;
  if (sameJson(Object.fromEntries(Object.keys(status).map((k) => [k, have[k]])), status)) return;
  const ref = { kind: o.kind, name: o.metadata.name };
  await ctx.afterCommit(o.kind as 'IptablesEIP', { name: o.metadata.name }, () =>
    ctx.cluster.patch(ref, { status }, { subresource: 'status' }).then(() => {}),
  );
}

export async function reconcileIptablesEIP(ctx: Ctx, name: string): Promise<void> {
  const o = ctx.cache('IptablesEIP').get(name);
  if (o === undefined) {
    ctx.report({ kind: 'IptablesEIP', name }, 'reconcile', []);
    return;
  }
  const s = eipState(ctx, name);
  const v4ip = ctx.decode(o, decodeIptablesEIP).value.v4ip;
  await report(ctx, o, s.issues, v4ip ? [v4ip] : []);
  const nat = RULE_KINDS.filter((k) =>
    ctx
      .cache(k)
      .list()
      .some((r) => ctx.decode(r, decodeIptablesRule).value.eip === name),
  ).map((k) => NAT_OF[k]);
  await writeStatus(ctx, o, { ready: s.ip !== undefined, ip: s.ip ?? '', nat: nat.join(','), redo: '', qosPolicy: '' });
}

/** The rule's own fields as Kube-OVN copies them into its status. */
function ruleFields(r: IptablesRuleView): Record<string, string> {
  switch (r.kind) {
    case 'IptablesFIPRule':
      return { internalIp: r.internalIp };
    case 'IptablesSnatRule':
      return { internalCIDR: r.internalCIDR };
    case 'IptablesDnatRule':
      return {
        protocol: r.protocol,
        internalIp: r.internalIp,
        internalPort: r.internalPort,
        externalPort: r.externalPort,
      };
  }
}

/**
 * Oldest first, then by name: the rule that keeps a contested EIP. Not the
 * resourceVersion, which a status write moves (the first rule would lose its
 * EIP to a newer one after its own status was written).
 */
function olderFirst(list: readonly KubeObject[]): KubeObject[] {
  const key = (o: KubeObject) => `${o.metadata.creationTimestamp ?? ''}\u0000${o.metadata.name}`;
  return [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

export async function reconcileIptablesRule(ctx: Ctx, kind: RuleKind, name: string): Promise<void> {
  const o = ctx.cache(kind).get(name);
  if (o === undefined) {
    ctx.report({ kind, name }, 'reconcile', []);
    return;
  }
  const d = ctx.decode(o, decodeIptablesRule);
  const r = d.value;
  const eip = eipState(ctx, r.eip);
  const older: { rule: IptablesRuleView; ip: string }[] = [];
  for (const x of olderFirst(ctx.cache(kind).list())) {
    if (x.metadata.name === name) break;
    const v = ctx.decode(x, decodeIptablesRule).value;
    const ip = eipState(ctx, v.eip).ip;
    if (ip !== undefined) older.push({ rule: v, ip });
  }
  const issues = [...blocking(d.issues), ...ruleIssues(r, eip.ip !== undefined ? { ip: eip.ip } : undefined, older)];
  await report(ctx, o, issues, eip.ip ? [eip.ip] : []);
  const ready = issues.length === 0;
  await writeStatus(ctx, o, {
    ready,
    v4ip: ready ? eip.ip! : '',
    v6ip: '',
    natGwDp: ready ? eip.gw! : '',
    redo: '',
    ...ruleFields(r),
  });
}

/** Every object of the handler's kind: an EIP's or gateway pod's change may change any rule's readiness. */
const all = () => ALL;
const gatewayPod = (_: Ctx, e: { object: KubeObject }) =>
  e.object.metadata.annotations?.[NAT_GW_ANNOTATION] !== undefined ? ALL : [];

export const iptablesEipHandler: Handler = {
  kind: 'IptablesEIP',
  after: ['VpcNatGateway', 'Pod'],
  watches: [
    { kind: 'IptablesEIP' },
    { kind: 'VpcNatGateway', map: all },
    { kind: 'Pod', map: gatewayPod },
    ...RULE_KINDS.map((k) => ({ kind: k, map: all })),
  ],
  reconcile: (ctx, key) => reconcileIptablesEIP(ctx, key.name),
};

function ruleHandler(kind: RuleKind): Handler {
  return {
    kind,
    after: ['IptablesEIP'],
    watches: [
      { kind },
      // An older rule of the kind going away may free its EIP for this one.
      { kind, map: all },
      { kind: 'IptablesEIP', map: all },
      { kind: 'VpcNatGateway', map: all },
      { kind: 'Pod', map: gatewayPod },
    ],
    reconcile: (ctx, key) => reconcileIptablesRule(ctx, kind, key.name),
  };
}

export const iptablesFipHandler = ruleHandler('IptablesFIPRule');
export const iptablesSnatHandler = ruleHandler('IptablesSnatRule');
export const iptablesDnatHandler = ruleHandler('IptablesDnatRule');

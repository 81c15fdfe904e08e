/**
 * SwitchLBRule (kubeovn.io/v1) → its headless Service `slr-<name>` and, for
 * `spec.endpoints`, the EndpointSlices its Endpoints mirror to
 * (translate/switch-lb-rule.ts; Kube-OVN's pkg/controller/switch_lb_rule.go);
 * the Service handler turns that Service into VIPs on the VPC's load
 * balancers. Status `service` and `ports` as Kube-OVN writes them. A rule
 * with a malformed field writes nothing new (its Service stays as it was, or
 * is not created) and is reported, its VIP's probes unsure.
 */
import { type KubeObject, refOf } from '../../kube/cluster/types.ts';
import { decodeSwitchLBRule, type SwitchLBRuleView } from '../../kube/objects/services.ts';
import {
  anyOf,
  type ChangePredicate,
  deletionChanged,
  sameStringMap,
  specChanged,
} from '../../kube/runtime/changes.ts';
import {
  MIRRORED_BY,
  SWITCH_LB_VIP_ANNOTATION,
  slrEndpointSlices,
  slrService,
  slrServiceName,
  slrStatus,
} from '../translate/switch-lb-rule.ts';
import type { Handler } from './handler.ts';
import { blocking, type Ctx, describeIssues, sameJson } from './context.ts';

const annotationsChanged: ChangePredicate = (o, old) =>
  old === undefined || !sameStringMap(o.metadata.annotations, old.metadata.annotations);

/** The Services and slices a rule named `name` made, wherever they are (a rule's namespace may have changed). */
function made(ctx: Ctx, name: string): { services: KubeObject[]; slices: KubeObject[] } {
  const svc = slrServiceName(name);
  return {
    services: ctx
      .cache('Service')
      .list()
      .filter((s) => s.metadata.name === svc && s.metadata.annotations?.[SWITCH_LB_VIP_ANNOTATION] !== undefined),
    slices: ctx
      .cache('EndpointSlice')
      .list()
      .filter(
        (s) =>
          s.metadata.labels?.['kubernetes.io/service-name'] === svc &&
          s.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === MIRRORED_BY,
      ),
  };
}

export async function reconcileSwitchLBRule(ctx: Ctx, name: string): Promise<void> {
  const o = ctx.cache('SwitchLBRule').get(name);
  const ref = { kind: 'SwitchLBRule', name };
  if (o === undefined) {
    // Kube-OVN deletes the Service (handleDelSwitchLBRule); Kubernetes then deletes its Endpoints and their slices.
    const { services, slices } = made(ctx, name);
    for (const x of [...services, ...slices]) await ctx.cluster.delete(refOf(x));
    return;
  }
  const d = ctx.decode(o, decodeSwitchLBRule);
  const rule = d.value;
  const bad = blocking(d.issues);
  ctx.report(
    ref,
    'reconcile',
    bad.map((i) => ({
      code: 'InvalidSwitchLBRule',
      field: i.field,
      message: `${i.message}: the rule's Service is not written`,
      scope: rule.vip ? [{ kind: 'addresses' as const, cidrs: rule.vip.split(',').map((v) => v.trim()) }] : [],
    })),
  );
  if (bad.length > 0) {
    await ctx.event({ ...ref, uid: rule.uid }, 'Warning', 'InvalidSwitchLBRule', describeIssues(bad));
    return;
  }
  await ctx.afterCommit('SwitchLBRule', { name }, () => write(ctx, o, rule));
}

/** Creates or updates the rule's Service and slices, removes what it no longer wants, and writes its status. */
async function write(ctx: Ctx, o: KubeObject, rule: SwitchLBRuleView): Promise<void> {
  const { services, slices } = made(ctx, rule.name);
  const want = slrService(rule);
  for (const s of services) if (s.metadata.namespace !== rule.ruleNamespace) await ctx.cluster.delete(refOf(s));
  const have = services.find((s) => s.metadata.namespace === rule.ruleNamespace);
  if (have === undefined) await ctx.cluster.create(want);
  else if (!sameJson(have.spec, want.spec) || !sameOwnAnnotations(have, want)) {
    const annotations = { ...have.metadata.annotations, ...want.metadata.annotations };
    await ctx.cluster.update({ ...have, metadata: { ...have.metadata, annotations }, spec: want.spec });
  }
  const wantSlices = slrEndpointSlices(rule);
  for (const s of slices)
    if (!wantSlices.some((w) => w.metadata.name === s.metadata.name && w.metadata.namespace === s.metadata.namespace))
      await ctx.cluster.delete(refOf(s));
  for (const w of wantSlices) {
    const h = slices.find((s) => s.metadata.name === w.metadata.name && s.metadata.namespace === w.metadata.namespace);
    if (h === undefined) await ctx.cluster.create(w);
    else if (!sameJson({ p: h.ports, e: h.endpoints }, { p: w.ports, e: w.endpoints }))
      await ctx.cluster.update({ ...w, metadata: { ...h.metadata, labels: w.metadata.labels } });
  }
  const status = slrStatus(rule);
  const st = (o.status ?? {}) as Record<string, unknown>;
  if (st.service !== status.service || st.ports !== status.ports)
    await ctx.cluster.patch({ kind: 'SwitchLBRule', name: rule.name }, { status }, { subresource: 'status' });
}

function sameOwnAnnotations(have: KubeObject, want: KubeObject): boolean {
  const h = have.metadata.annotations ?? {};
  return Object.entries(want.metadata.annotations ?? {}).every(([k, v]) => h[k] === v);
}

export const switchLBRuleHandler: Handler = {
  kind: 'SwitchLBRule',
  after: ['Vpc'],
  watches: [
    { kind: 'SwitchLBRule', when: anyOf(specChanged, deletionChanged, annotationsChanged) },
    // Its Service changed or deleted behind its back is put back.
    {
      kind: 'Service',
      map: (_ctx, e) => {
        const n = e.object.metadata.name;
        return n.startsWith('slr-') && e.object.metadata.annotations?.[SWITCH_LB_VIP_ANNOTATION] !== undefined
          ? [{ name: n.slice(4) }]
          : [];
      },
    },
  ],
  reconcile: (ctx, key) => reconcileSwitchLBRule(ctx, key.name),
};

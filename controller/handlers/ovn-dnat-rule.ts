/**
 * OvnDnatRule (kubeovn.io/v1) → a load balancer named after the rule on its
 * VPC's router (translate/ovn-nat.ts dnatLoadBalancer; Kube-OVN's
 * AddDnatRule): `eip:externalPort` → `internal:internalPort`; status ready,
 * vpc, v4Eip, v6Eip, v4Ip, v6Ip, externalPort, internalPort, protocol, ipName.
 */
import { decodeOvnDnatRule } from '../../kube/objects/ovn-nat.ts';
import { specLabelsOrDeletion } from '../../kube/runtime/changes.ts';
import { dnatLoadBalancer } from '../translate/ovn-nat.ts';
import type { Handler } from './handler.ts';
import type { Ctx } from './context.ts';
import { applyRule, bindRule, boundStatus, NAT_RULE_WATCHES, refuseNoFamily } from './ovn-nat-common.ts';

export async function reconcileOvnDnatRule(ctx: Ctx, name: string): Promise<void> {
  const r = await bindRule(ctx, 'OvnDnatRule', name, decodeOvnDnatRule);
  if (r === undefined) return;
  const { o, spec: d, eip, inner, scope } = r;
  const t = dnatLoadBalancer({
    name,
    eip,
    internal: inner,
    externalPort: d.externalPort,
    internalPort: d.internalPort,
    protocol: d.protocol,
  });
  const bad = t.issues[0];
  if (bad !== undefined || t.value === undefined)
    return applyRule(ctx, o, 'OvnDnatRule', {
      ok: false,
      refusal: bad ?? { field: 'spec.ovnEip', message: 'no address' },
      scope,
    });
  if (Object.keys(t.value.vips).length === 0) return refuseNoFamily(ctx, 'OvnDnatRule', r);
  await applyRule(ctx, o, 'OvnDnatRule', {
    ok: true,
    rows: [{ table: 'loadBalancer', row: t.value }],
    contributions: [{ table: 'router', key: inner.vpc, column: 'loadBalancers', members: [name] }],
    status: {
      ...boundStatus(r),
      externalPort: d.externalPort,
      internalPort: d.internalPort,
      protocol: d.protocol,
      ipName: d.ipName,
    },
  });
}

export const ovnDnatRuleHandler: Handler = {
  kind: 'OvnDnatRule',
  after: ['OvnEip', 'Vpc', 'Pod'],
  watches: [{ kind: 'OvnDnatRule', when: specLabelsOrDeletion }, ...NAT_RULE_WATCHES],
  reconcile: (ctx, key) => reconcileOvnDnatRule(ctx, key.name),
};

/**
 * OvnSnatRule (kubeovn.io/v1) → `snat` rows on its VPC's router
 * (translate/ovn-nat.ts snatNats; Kube-OVN's handleAddOvnSnatRule): the
 * internal side is `v4IpCidr`/`v6IpCidr` when given, else the CIDRs of
 * `vpcSubnet` (and its VPC), else the IP object `ipName`'s addresses; status
 * ready, vpc, v4Eip, v6Eip, v4IpCidr, v6IpCidr.
 */
import { decodeOvnSnatRule, type OvnSnatRuleView } from '../../kube/objects/ovn-nat.ts';
import { specLabelsOrDeletion } from '../../kube/runtime/changes.ts';
import { snatNats } from '../translate/ovn-nat.ts';
import type { TableRow } from '../desired/store.ts';
import type { Handler } from './handler.ts';
import type { Ctx } from './context.ts';
import { eipForNat } from './ovn-eip.ts';
import {
  applyRule,
  type Internal,
  internalOf,
  NAT_RULE_WATCHES,
  type NatRefusal,
  subnetCidrsOf,
  vpcOf,
} from './ovn-nat-common.ts';

/** Kube-OVN's order: the CIDRs given, then the subnet's, then the IP object's. */
function snatInternal(ctx: Ctx, s: OvnSnatRuleView): Internal | NatRefusal {
  if (s.v4IpCidr === '' && s.vpcSubnet !== '') {
    const sub = subnetCidrsOf(ctx, s.vpcSubnet);
    if (sub === undefined) return { field: 'spec.vpcSubnet', message: `subnet ${s.vpcSubnet} does not exist` };
    const vpc = vpcOf(ctx, sub.vpc);
    return typeof vpc === 'string'
      ? { vpc, v4: sub.v4, v6: sub.v6 }
      : { field: 'spec.vpcSubnet', message: vpc.message };
  }
  if (s.v4IpCidr === '' && s.ipName !== '') return internalOf(ctx, { ...s, ipType: '', v4Ip: '', v6Ip: '' });
  const vpc = vpcOf(ctx, s.vpc);
  if (typeof vpc !== 'string') return vpc;
  if (s.v4IpCidr === '' && s.v6IpCidr === '')
    return {
      field: 'spec.v4IpCidr',
      message: 'no internal addresses: set spec.vpcSubnet, spec.ipName or spec.v4IpCidr',
    };
  return { vpc, v4: s.v4IpCidr, v6: s.v6IpCidr };
}

export async function reconcileOvnSnatRule(ctx: Ctx, name: string): Promise<void> {
  const o = ctx.cache('OvnSnatRule').get(name);
  if (o === undefined) {
    ctx.committer.delete({ kind: 'OvnSnatRule', name });
    ctx.report({ kind: 'OvnSnatRule', name }, 'reconcile', []);
    return;
  }
  const s = ctx.decode(o, decodeOvnSnatRule).value;
  const eip = eipForNat(ctx, s.ovnEip);
  const inner = snatInternal(ctx, s);
  const scope =
    'vpc' in inner ? [{ kind: 'vpc' as const, name: inner.vpc }] : s.vpc ? [{ kind: 'vpc' as const, name: s.vpc }] : [];
  if (typeof eip === 'string')
    return applyRule(ctx, o, 'OvnSnatRule', { ok: false, refusal: { field: 'spec.ovnEip', message: eip }, scope });
  if (!('vpc' in inner)) return applyRule(ctx, o, 'OvnSnatRule', { ok: false, refusal: inner, scope });
  const t = snatNats({ name, router: inner.vpc, eip, internal: inner });
  const bad = t.issues[0];
  if (bad !== undefined) return applyRule(ctx, o, 'OvnSnatRule', { ok: false, refusal: bad, scope });
  if (t.value.length === 0)
    return applyRule(ctx, o, 'OvnSnatRule', {
      ok: false,
      refusal: { field: 'spec.ovnEip', message: `OvnEip ${s.ovnEip} has no address of the internal addresses' family` },
      scope,
    });
  await applyRule(ctx, o, 'OvnSnatRule', {
    ok: true,
    rows: t.value.map((row): TableRow => ({ table: 'nat', row })),
    status: { vpc: inner.vpc, v4Eip: eip.v4, v6Eip: eip.v6, v4IpCidr: inner.v4, v6IpCidr: inner.v6 },
  });
}

export const ovnSnatRuleHandler: Handler = {
  kind: 'OvnSnatRule',
  after: ['OvnEip', 'Vpc', 'Pod'],
  watches: [{ kind: 'OvnSnatRule', when: specLabelsOrDeletion }, ...NAT_RULE_WATCHES],
  reconcile: (ctx, key) => reconcileOvnSnatRule(ctx, key.name),
};

/**
 * OvnFip (kubeovn.io/v1) → `dnat_and_snat` rows on its VPC's router
 * (translate/ovn-nat.ts fipNats; Kube-OVN's handleAddOvnFip): the EIP's
 * address one-to-one with the internal one, and the status Kube-OVN writes
 * (ready, vpc, v4Eip, v6Eip, v4Ip, v6Ip).
 */
import { decodeOvnFip } from '../../kube/objects/ovn-nat.ts';
import { specLabelsOrDeletion } from '../../kube/runtime/changes.ts';
import { fipNats } from '../translate/ovn-nat.ts';
import type { TableRow } from '../desired/store.ts';
import type { Handler } from './handler.ts';
import type { Ctx } from './context.ts';
import { applyRule, bindRule, boundStatus, NAT_RULE_WATCHES, refuseNoFamily } from './ovn-nat-common.ts';

export async function reconcileOvnFip(ctx: Ctx, name: string): Promise<void> {
  const r = await bindRule(ctx, 'OvnFip', name, decodeOvnFip);
  if (r === undefined) return;
  const { o, spec: f, eip, inner, scope } = r;
  const t = fipNats({
    name,
    router: inner.vpc,
    eip,
    internal: inner,
    ...(inner.port ? { logicalPort: inner.port } : {}),
    ...(inner.mac ? { mac: inner.mac } : {}),
    // Kube-OVN: `distributed` is stateless; unset follows the ovn-external-gw-config ConfigMap's type, which kovn does not read (centralized).
    stateless: f.type === 'distributed',
  });
  const bad = t.issues[0];
  if (bad !== undefined) return applyRule(ctx, o, 'OvnFip', { ok: false, refusal: bad, scope });
  if (t.value.length === 0) return refuseNoFamily(ctx, 'OvnFip', r);
  await applyRule(ctx, o, 'OvnFip', {
    ok: true,
    rows: t.value.map((row): TableRow => ({ table: 'nat', row })),
    status: { ...boundStatus(r), macAddress: inner.mac ?? '' },
  });
}

export const ovnFipHandler: Handler = {
  kind: 'OvnFip',
  after: ['OvnEip', 'Vpc', 'Pod'],
  watches: [{ kind: 'OvnFip', when: specLabelsOrDeletion }, ...NAT_RULE_WATCHES],
  reconcile: (ctx, key) => reconcileOvnFip(ctx, key.name),
};

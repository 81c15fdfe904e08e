/**
 * QoSPolicy (kubeovn.io/v1): checked as Kube-OVN's validateQosPolicy checks
 * it, and its status written as its patchQoSStatus writes it (shared,
 * bindingType, the rules sorted by name). No NB row: Kube-OVN applies the
 * rules as tc rules in the VPC NAT gateway pod for both binding types
 * (pkg/controller/vpc_nat_gw_eip.go addEipQoSInPod, vpc_nat_gateway.go
 * execNatGwQoSInPod), never as NB QoS rows. A policy that does not check is
 * reported (`InvalidQoSPolicy`, an event) and its status is left as it was,
 * as Kube-OVN leaves it. Kube-OVN's finalizer (kept while an EIP or gateway
 * uses the policy) is not written: kovn deletes nothing the policy holds.
 */
import { decodeQoSPolicy } from '../../kube/objects/objects.ts';
import { isBlocking } from '../../kube/objects/decode.ts';
import { type Ctx, describeIssues, sameJson } from './context.ts';
import type { Handler } from './handler.ts';

export async function reconcileQoSPolicy(ctx: Ctx, name: string): Promise<void> {
  const o = ctx.cache('QoSPolicy').get(name);
  if (o === undefined) return;
  const d = ctx.decode(o, decodeQoSPolicy);
  const q = d.value;
  const ref = { kind: 'QoSPolicy', name, uid: q.uid };
  const invalid = d.issues.filter(isBlocking);
  ctx.report(
    ref,
    'reconcile',
    invalid.map((i) => ({ code: 'InvalidQoSPolicy', field: i.field, message: `refused: ${i.message}` })),
  );
  if (invalid.length > 0) {
    await ctx.event(ref, 'Warning', 'InvalidQoSPolicy', describeIssues(invalid));
    return;
  }
  const status = {
    shared: q.shared,
    bindingType: q.bindingType,
    bandwidthLimitRules: [...q.bandwidthLimitRules].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  };
  const h = (typeof o.status === 'object' && o.status !== null ? o.status : {}) as Record<string, unknown>;
  if (sameJson(Object.fromEntries(Object.keys(status).map((k) => [k, h[k]])), status)) return;
  await ctx.afterCommit('QoSPolicy', { name }, () =>
    ctx.cluster.patch({ kind: 'QoSPolicy', name }, { status }, { subresource: 'status' }).then(() => {}),
  );
}

export const qosPolicyHandler: Handler = {
  kind: 'QoSPolicy',
  after: [],
  watches: [{ kind: 'QoSPolicy' }],
  reconcile: (ctx, key) => reconcileQoSPolicy(ctx, key.name),
};

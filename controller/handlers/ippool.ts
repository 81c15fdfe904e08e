/**
 * IPPool (kubeovn.io/v1) → a pool in its subnet's IPAM (model/ipam/pool-spec.ts);
 * a bad pool gets an event and changes nothing. Deleting a pool gives its
 * addresses back to the subnet's default pool.
 */
import { decodeIPPool } from '../../kube/objects/objects.ts';
import type { Handler } from './handler.ts';
import { type Ctx, ipamIssueField } from './context.ts';

/** Pools by name → subnet, to delete a pool whose object is gone. */
const known = new WeakMap<Ctx, Map<string, string>>();

export async function reconcileIPPool(ctx: Ctx, name: string): Promise<void> {
  let pools = known.get(ctx);
  if (pools === undefined) known.set(ctx, (pools = new Map()));
  const o = ctx.cache('IPPool').get(name);
  if (o === undefined) {
    const subnet = pools.get(name);
    if (subnet !== undefined) ctx.ipam.deletePool(subnet, name);
    pools.delete(name);
    return;
  }
  const p = ctx.decode(o, decodeIPPool).value;
  const r = ctx.ipam.setPool({ name, subnet: p.subnet, ips: p.ips, namespaces: p.namespaces });
  const ref = { kind: 'IPPool', name };
  ctx.report(
    ref,
    'reconcile',
    r.ok
      ? []
      : r.issues.map((i) => ({
          code: 'InvalidIPPool',
          field: ipamIssueField(i, 'ips'),
          message: `refused (no address is taken from it): ${i.message}`,
          scope: p.subnet ? [{ kind: 'subnet' as const, name: p.subnet }] : [],
        })),
  );
  if (!r.ok) {
    const message = r.issues.map((i) => i.message).join('; ');
    await ctx.event({ kind: 'IPPool', name, uid: p.uid }, 'Warning', 'InvalidIPPool', message);
    throw new Error(`IPPool ${name}: ${message}`);
  }
  pools.set(name, p.subnet);
}

export const ippoolHandler: Handler = {
  kind: 'IPPool',
  after: ['Subnet'],
  watches: [{ kind: 'IPPool' }],
  reconcile: (ctx, key) => reconcileIPPool(ctx, key.name),
};

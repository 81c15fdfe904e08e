/**
 * IPPool (kubeovn.io/v1) → a pool in its subnet's IPAM (model/ipam/pool-spec.ts)
 * and, with `enableAddressSet`, the address set Kube-OVN keeps for it
 * (translate/ippool.ts); a bad pool gets an event and changes nothing (its
 * leases and its set stay as they were). Deleting a pool gives its addresses
 * back to the subnet's default pool and deletes its set.
 */
import { decodeIPPool } from '../../kube/objects/objects.ts';
import { ippoolAddressSet } from '../translate/ippool.ts';
import type { IPAM } from '../../model/ipam/index.ts';
import type { Handler } from './handler.ts';
import { type Ctx, ipamIssueField } from './context.ts';

/** Pools by name → subnet, to delete a pool whose object is gone. */
const known = new WeakMap<Ctx, Map<string, string>>();

export async function reconcileIPPool(ctx: Ctx, name: string): Promise<void> {
  const owner = { kind: 'IPPool', name };
  let pools = known.get(ctx);
  if (pools === undefined) known.set(ctx, (pools = new Map()));
  const o = ctx.cache('IPPool').get(name);
  if (o === undefined) {
    const subnet = pools.get(name);
    if (subnet !== undefined) ctx.ipam.deletePool(subnet, name);
    pools.delete(name);
    ctx.committer.delete(owner);
    return;
  }
  const p = ctx.decode(o, decodeIPPool).value;
  const scope = p.subnet ? [{ kind: 'subnet' as const, name: p.subnet }] : [];
  // Kube-OVN reconciles the set before the IPAM: a set it cannot write refuses the whole pool.
  const set = p.enableAddressSet ? ippoolAddressSet(name, p.ips) : undefined;
  const r =
    set !== undefined && set.issues.length > 0
      ? { ok: false as const, issues: set.issues.map((i) => ({ field: i.field, message: i.message })) }
      : ipamResult(ctx.ipam.setPool({ name, subnet: p.subnet, ips: p.ips, namespaces: p.namespaces }));
  const ref = { kind: 'IPPool', name };
  ctx.report(
    ref,
    'reconcile',
    r.ok
      ? []
      : r.issues.map((i) => ({
          code: 'InvalidIPPool',
          field: i.field,
          message: `refused (no address is taken from it): ${i.message}`,
          scope,
        })),
  );
  if (!r.ok) {
    const message = r.issues.map((i) => i.message).join('; ');
    await ctx.event({ kind: 'IPPool', name, uid: p.uid }, 'Warning', 'InvalidIPPool', message);
    throw new Error(`IPPool ${name}: ${message}`);
  }
  pools.set(name, p.subnet);
  if (set?.value === undefined) ctx.committer.delete(owner);
  else ctx.committer.set(owner, { rows: [{ table: 'addressSet', row: set.value }] });
}

/** The IPAM's answer with each issue's spec field. */
function ipamResult(r: ReturnType<IPAM['setPool']>) {
  return r.ok
    ? { ok: true as const }
    : { ok: false as const, issues: r.issues.map((i) => ({ field: ipamIssueField(i, 'ips'), message: i.message })) };
}

export const ippoolHandler: Handler = {
  kind: 'IPPool',
  after: ['Subnet'],
  watches: [{ kind: 'IPPool' }],
  reconcile: (ctx, key) => reconcileIPPool(ctx, key.name),
};

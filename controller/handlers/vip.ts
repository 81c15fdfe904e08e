/**
 * Vip (kubeovn.io/v1) → an address reserved in its subnet's IPAM (as given
 * in `spec.v4ip`/`v6ip`/`macAddress`, else allocated: Kube-OVN's
 * handleAddVirtualIP, owner `<name>.<namespace>`), its virtual switch port
 * when it has a namespace (translate/vip.ts), and its status (`v4ip`,
 * `v6ip`, `mac`, `type`). A Vip that is malformed, or whose address cannot
 * be had, reserves nothing new and is reported.
 */
import { formatMAC } from '../../model/addr/index.ts';
import { ownerKey, toRecord } from '../../model/ipam/index.ts';
import { decodeVip, type VipView } from '../../kube/objects/services.ts';
import { selects } from '../../kube/objects/objects.ts';
import { specLabelsOrDeletion } from '../../kube/runtime/changes.ts';
import { podPort } from '../translate/names.ts';
import { vipPortRow } from '../translate/vip.ts';
import { ALL, type Handler } from './handler.ts';
import { blocking, type Ctx, describeIssues, NAMESPACE_INDEX } from './context.ts';

/** The IPAM owner of each Vip by name, to let its address go when the object is gone. */
const owners = new WeakMap<Ctx, Map<string, string>>();

const AAPS = 'ovn.kubernetes.io/aaps';

export async function reconcileVip(ctx: Ctx, name: string): Promise<void> {
  let known = owners.get(ctx);
  if (known === undefined) owners.set(ctx, (known = new Map()));
  const owner = { kind: 'Vip', name };
  const o = ctx.cache('Vip').get(name);
  if (o === undefined) {
    const lease = known.has(name) ? ctx.ipam.release(known.get(name)!) : undefined;
    if (lease) ctx.enqueue('Subnet', { name: lease.subnet });
    known.delete(name);
    ctx.committer.delete(owner);
    return;
  }
  const d = ctx.decode(o, decodeVip);
  const vip = d.value;
  const ref = { kind: 'Vip', name, uid: vip.uid };
  const scope = [vip.v4ip, vip.v6ip].filter((a) => a !== '');
  const refuse = async (code: string, field: string, message: string) => {
    ctx.report(ref, 'reconcile', [
      { code, field, message, ...(scope.length > 0 ? { scope: [{ kind: 'addresses' as const, cidrs: scope }] } : {}) },
    ]);
    await ctx.event(ref, 'Warning', code, message);
  };
  const bad = blocking(d.issues);
  if (bad.length > 0) return refuse('InvalidVip', bad[0]!.field, `${describeIssues(bad)}: nothing reserved`);
  const ipamOwner = ownerKey(name, vip.vipNamespace);
  const status = (o.status ?? {}) as Record<string, unknown>;
  // Kube-OVN sets the addresses once: a Vip allocated before keeps what its status says.
  const asked = [vip.v4ip || str(status.v4ip), vip.v6ip || str(status.v6ip)].filter((a) => a !== '').join(',');
  const mac = vip.macAddress || str(status.mac);
  const a = ctx.ipam.allocate({
    subnet: vip.subnet,
    owner: ipamOwner,
    ...(asked ? { ips: asked } : {}),
    ...(mac ? { mac } : {}),
  });
  if (!a.ok) return refuse('AcquireAddressFailed', 'spec.subnet', `Vip ${name}: ${a.error.message}`);
  ctx.report(ref, 'reconcile', []);
  known.set(name, ipamOwner);
  const { ips } = toRecord(a.lease);
  const rows =
    vip.vipNamespace === ''
      ? []
      : [
          {
            table: 'switchPort' as const,
            row: vipPortRow({ name, subnet: vip.subnet, ips, parents: parents(ctx, vip) }),
          },
        ];
  ctx.committer.set(owner, { rows });
  const v4 = ips.find((i) => !i.includes(':')) ?? '';
  const v6 = ips.find((i) => i.includes(':')) ?? '';
  const want = { v4ip: v4, v6ip: v6, mac: formatMAC(a.lease.mac), type: vip.type };
  if (
    want.v4ip !== str(status.v4ip) ||
    want.v6ip !== str(status.v6ip) ||
    want.mac !== str(status.mac) ||
    want.type !== str(status.type)
  ) {
    await ctx.afterCommit('Vip', { name }, () =>
      ctx.cluster.patch({ kind: 'Vip', name }, { status: want }, { subresource: 'status' }).then(() => {}),
    );
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The ports of the pods of the Vip's namespace its selector picks that name it in `ovn.kubernetes.io/aaps`. */
function parents(ctx: Ctx, vip: VipView): string[] {
  if (vip.type === 'switch_lb_vip') return [];
  const sel = { matchLabels: vip.selector, matchExpressions: [] };
  const out: string[] = [];
  for (const p of ctx.cache('Pod').byIndex(NAMESPACE_INDEX, vip.vipNamespace)) {
    const aaps = (p.metadata.annotations?.[AAPS] ?? '').split(',').map((s) => s.trim());
    if (!aaps.includes(vip.name) || !selects(sel, p.metadata.labels ?? {})) continue;
    if (p.metadata.annotations?.['ovn.kubernetes.io/logical_switch'] !== vip.subnet) continue;
    out.push(podPort(p.metadata.name, vip.vipNamespace));
  }
  return out;
}

export const vipHandler: Handler = {
  kind: 'Vip',
  after: ['Subnet', 'IPPool'],
  watches: [
    { kind: 'Vip', when: specLabelsOrDeletion },
    // A subnet made or fixed lets a waiting Vip have its address.
    { kind: 'Subnet', when: specLabelsOrDeletion, map: () => ALL },
    // Virtual parents: pods naming a Vip in their aaps annotation.
    {
      kind: 'Pod',
      map: (_ctx, e) =>
        [e.object, e.old].flatMap((p) =>
          (p?.metadata.annotations?.[AAPS] ?? '')
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== '')
            .map((n) => ({ name: n })),
        ),
    },
  ],
  reconcile: (ctx, key) => reconcileVip(ctx, key.name),
};

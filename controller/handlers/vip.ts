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
  // A pod naming the Vip holds its address now (takeVipAddress): the Vip keeps its status and waits for it back.
  const first = asked.split(',')[0] ?? '';
  if (ctx.ipam.lookup(ipamOwner) === undefined && heldByPod(ctx, vip, first)) {
    ctx.report(ref, 'reconcile', []);
    return;
  }
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

/** Kube-OVN's VipAnnotation: a pod naming a Vip takes its addresses (pod.go acquireAddress, podReuseVip). */
export const POD_VIP = 'ovn.kubernetes.io/vip';

/**
 * The addresses a pod asks for through `ovn.kubernetes.io/vip`: the named
 * Vip's (its status, as Kube-OVN reads it), whose lease is handed to the pod
 * (`podOwner`); nothing when the pod names none. A Vip that does not exist or
 * has no address yet is an error, as in Kube-OVN.
 *
 * @example takeVipAddress(ctx, pod, 'web-0.default') // { ok: true, ips: '10.16.0.50', mac: '00:00:00:..' }
 */
export function takeVipAddress(
  ctx: Ctx,
  p: { readonly annotations: Readonly<Record<string, string>> },
  podOwner: string,
): { ok: true; ips?: string; mac?: string } | { ok: false; message: string } {
  const name = p.annotations[POD_VIP];
  if (!name) return { ok: true };
  const o = ctx.cache('Vip').get(name);
  const st = (o?.status ?? {}) as Record<string, unknown>;
  const ips = [str(st.v4ip), str(st.v6ip)].filter((a) => a !== '');
  if (o === undefined || ips.length === 0)
    return { ok: false, message: `vip ${name} does not exist or has no address yet` };
  const vip = ctx.decode(o, decodeVip).value;
  const vipOwner = ownerKey(name, vip.vipNamespace);
  const lease = ctx.ipam.lookup(vipOwner);
  if (lease !== undefined && ctx.ipam.lookup(podOwner) === undefined) ctx.ipam.release(vipOwner);
  return { ok: true, ips: ips.join(','), ...(str(st.mac) ? { mac: str(st.mac) } : {}) };
}

/** The pod holding the Vip's address because it names the Vip (`ovn.kubernetes.io/vip`), if any. */
function heldByPod(ctx: Ctx, vip: VipView, ip: string): boolean {
  const holder = ip === '' ? undefined : ctx.ipam.ownerOf(vip.subnet, ip);
  const who = holder === undefined ? undefined : ctx.leaseHolder(holder);
  if (who?.kind !== 'Pod') return false;
  const pod = ctx.cache('Pod').get(`${who.key.namespace}/${who.key.name}`);
  return pod?.metadata.annotations?.[POD_VIP] === vip.name;
}

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
    // Virtual parents (pods naming a Vip in their aaps annotation), and pods taking a Vip's address.
    {
      kind: 'Pod',
      map: (_ctx, e) =>
        [e.object, e.old].flatMap((p) =>
          [...(p?.metadata.annotations?.[AAPS] ?? '').split(','), p?.metadata.annotations?.[POD_VIP] ?? '']
            .map((s) => s.trim())
            .filter((s) => s !== '')
            .map((n) => ({ name: n })),
        ),
    },
  ],
  reconcile: (ctx, key) => reconcileVip(ctx, key.name),
};

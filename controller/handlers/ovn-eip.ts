/**
 * OvnEip (kubeovn.io/v1) → an address of an external subnet, held in IPAM,
 * as Kube-OVN's handleAddOvnEip (pkg/controller/ovn_eip.go) takes it: from
 * `spec.externalSubnet` (default the `--external-gateway-switch` subnet),
 * the address asked for or the lowest free one; written back to the spec
 * (v4Ip, v6Ip, macAddress, type `nat` when unset) and the status (ready,
 * type, nat: which of dnat, fip, snat use it). An EIP writes no NB row of
 * its own: the NAT rules that name it do (ovn-fip.ts, ovn-snat-rule.ts,
 * ovn-dnat-rule.ts), and a VPC's gateway port takes the `lrp` EIP
 * `<vpc>-<subnet>` (vpc-external.ts), which the Vpc handler allocates under
 * the same IPAM owner and creates as Kube-OVN does.
 */
import { decodeOvnDnatRule, decodeOvnEip, decodeOvnFip, decodeOvnSnatRule } from '../../kube/objects/ovn-nat.ts';
import { specLabelsOrDeletion } from '../../kube/runtime/changes.ts';
import { formatIPv4, formatIPv6, formatMAC } from '../../model/addr/index.ts';
import type { Lease } from '../../model/ipam/index.ts';
import { ALL, type Handler } from './handler.ts';
import { type Ctx, sameJson } from './context.ts';
import { vpcExternalPorts } from './vpc-external.ts';

/** The IPAM owner of an EIP's address (`:` is in no object name, so no pod or node key is one). */
export const ovnEipOwner = (name: string): string => `ovn-eip:${name}`;

/** An EIP's addresses as a NAT rule uses them. */
export interface EipAddresses {
  readonly subnet: string;
  readonly v4: string;
  readonly v6: string;
  readonly mac: string;
}

/** The lease's addresses. */
export function leaseAddresses(lease: Lease): EipAddresses {
  return {
    subnet: lease.subnet,
    v4: lease.v4 === undefined ? '' : formatIPv4(lease.v4),
    v6: lease.v6 === undefined ? '' : formatIPv6(lease.v6),
    mac: formatMAC(lease.mac),
  };
}

/**
 * The addresses of the EIP a NAT rule names, or why there are none (a
 * message for the rule's status): no such EIP, one of type `lsp` (Kube-OVN
 * refuses it for NAT), or one without an address yet.
 */
export function eipForNat(ctx: Ctx, name: string): EipAddresses | string {
  if (name === '') return 'spec.ovnEip is empty: a NAT rule needs an EIP';
  const o = ctx.cache('OvnEip').get(name);
  const lease = ctx.ipam.lookup(ovnEipOwner(name));
  if (o === undefined && lease === undefined) return `OvnEip ${name} does not exist`;
  if (o !== undefined && ctx.decode(o, decodeOvnEip).value.type === 'lsp')
    return `OvnEip ${name} is of type lsp, which NAT cannot use`;
  if (lease === undefined) return `OvnEip ${name} has no address yet`;
  return leaseAddresses(lease);
}

/** Which kinds of NAT use the EIP, in Kube-OVN's order (status.nat). */
function natUsers(ctx: Ctx, name: string): string {
  const uses = (kind: 'OvnDnatRule' | 'OvnFip' | 'OvnSnatRule', eip: (o: never) => string) =>
    ctx
      .cache(kind)
      .list()
      .some((o) => eip(o as never) === name);
  const out: string[] = [];
  if (uses('OvnDnatRule', (o) => ctx.decode(o, decodeOvnDnatRule).value.ovnEip)) out.push('dnat');
  if (uses('OvnFip', (o) => ctx.decode(o, decodeOvnFip).value.ovnEip)) out.push('fip');
  if (uses('OvnSnatRule', (o) => ctx.decode(o, decodeOvnSnatRule).value.ovnEip)) out.push('snat');
  return out.join(',');
}

export async function reconcileOvnEip(ctx: Ctx, name: string): Promise<void> {
  const ref = { kind: 'OvnEip', name };
  const o = ctx.cache('OvnEip').get(name);
  if (o === undefined) {
    // A VPC's gateway port keeps its lrp EIP's address while it is connected (the Vpc handler holds it).
    if (!vpcExternalPorts(ctx).has(name)) ctx.ipam.release(ovnEipOwner(name));
    ctx.report(ref, 'reconcile', []);
    return;
  }
  const e = ctx.decode(o, decodeOvnEip).value;
  const subnet = e.externalSubnet || ctx.settings.externalGatewaySwitch;
  const held = ctx.ipam.lookup(ovnEipOwner(name));
  if (held !== undefined && held.subnet !== subnet) ctx.ipam.release(ovnEipOwner(name));
  const ips = [e.v4Ip, e.v6Ip].filter(Boolean).join(',');
  const a = ctx.ipam.allocate({
    subnet,
    owner: ovnEipOwner(name),
    ...(ips ? { ips } : {}),
    ...(ips && e.macAddress ? { mac: e.macAddress } : {}),
  });
  if (!a.ok) {
    const field = ips ? (e.v4Ip ? 'spec.v4Ip' : 'spec.v6Ip') : 'spec.externalSubnet';
    const message = `no address from subnet ${subnet}: ${a.error.message}`;
    ctx.report(ref, 'reconcile', [
      { code: 'AcquireAddressFailed', field, message, scope: [{ kind: 'subnet', name: subnet }] },
    ]);
    await ctx.event({ kind: 'OvnEip', name, uid: e.uid }, 'Warning', 'AcquireAddressFailed', message);
    await writeEipStatus(ctx, name, o.status, { ready: false, nat: natUsers(ctx, name) });
    return;
  }
  ctx.report(ref, 'reconcile', []);
  const got = leaseAddresses(a.lease);
  const type = e.type || 'nat';
  const spec = { externalSubnet: subnet, v4Ip: got.v4, v6Ip: got.v6, macAddress: got.mac, type };
  if (!sameJson(pick(o.spec, Object.keys(spec)), spec)) {
    await ctx.afterCommit('OvnEip', { name }, () =>
      ctx.cluster.patch({ kind: 'OvnEip', name }, { spec }).then(() => {}),
    );
  }
  await writeEipStatus(ctx, name, o.status, {
    ready: type !== 'lsp',
    v4Ip: got.v4,
    v6Ip: got.v6,
    macAddress: got.mac,
    type,
    nat: natUsers(ctx, name),
  });
}

async function writeEipStatus(ctx: Ctx, name: string, have: unknown, status: Record<string, unknown>) {
  if (sameJson(pick(have, Object.keys(status)), status)) return;
  await ctx.afterCommit('OvnEip', { name }, () =>
    ctx.cluster.patch({ kind: 'OvnEip', name }, { status }, { subresource: 'status' }).then(() => {}),
  );
}

/** The keys of `v` (an object's spec or status) named. */
export function pick(v: unknown, keys: readonly string[]): Record<string, unknown> {
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}

/** The EIP a NAT rule names changed: the rules of all EIPs are few, so every rule of the kind is looked at again. */
const byEip = { kind: 'OvnEip' as const, when: specLabelsOrDeletion, map: () => ALL };

export const ovnEipHandler: Handler = {
  kind: 'OvnEip',
  after: ['Subnet'],
  watches: [
    { kind: 'OvnEip', when: specLabelsOrDeletion },
    // The subnet's IPAM comes and goes with it.
    { kind: 'Subnet', when: specLabelsOrDeletion, map: () => ALL },
    // status.nat: which rules use the EIP.
    { kind: 'OvnFip', when: specLabelsOrDeletion, map: () => ALL },
    { kind: 'OvnSnatRule', when: specLabelsOrDeletion, map: () => ALL },
    { kind: 'OvnDnatRule', when: specLabelsOrDeletion, map: () => ALL },
  ],
  reconcile: (ctx, key) => reconcileOvnEip(ctx, key.name),
};

/** Watches a NAT rule handler declares: its EIPs (their addresses) and its own kind. */
export const EIP_WATCH = byEip;

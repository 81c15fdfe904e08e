/**
 * What the OvnFip, OvnSnatRule and OvnDnatRule handlers share: the VPC and
 * internal addresses a rule names (an IP object by `ipName`, else `vpc` and
 * the addresses given), and applying a rule's rows or refusing it. A rule
 * that cannot be applied writes nothing (it fails closed: no way in from
 * outside), says why on its status (`ready: false`), in an event and in the
 * warnings of the answers built on it; Kube-OVN logs and retries instead.
 */
import type { KubeObject } from '../../kube/cluster/types.ts';
import type { Decoded } from '../../kube/objects/meta.ts';
import { decodeIP, decodeSubnet } from '../../kube/objects/objects.ts';
import { ALL, type Watch } from './handler.ts';
import type { TableRow, Contribution } from '../desired/store.ts';
import { type Ctx, sameJson } from './context.ts';
import { type EipAddresses, eipForNat, pick } from './ovn-eip.ts';
import { subnetVpc } from './vpc.ts';

export type NatKind = 'OvnFip' | 'OvnSnatRule' | 'OvnDnatRule';

/** Why a rule is not applied: the field at fault and the message. */
export interface NatRefusal {
  readonly field: string;
  readonly message: string;
}

/** The internal side of a rule: its VPC and addresses, and the IP object's port and MAC when named. */
export interface Internal {
  readonly vpc: string;
  readonly v4: string;
  readonly v6: string;
  readonly port?: string;
  readonly mac?: string;
}

const family = (ips: readonly string[], v6: boolean) => ips.find((i) => i.includes(':') === v6) ?? '';

/** The VPC a rule applies to, checked to exist. */
export function vpcOf(ctx: Ctx, vpc: string): string | NatRefusal {
  if (vpc === '') return { field: 'spec.vpc', message: 'no VPC: set spec.vpc or name an IP object (spec.ipName)' };
  if (vpc !== ctx.settings.clusterRouter && ctx.cache('Vpc').get(vpc) === undefined)
    return { field: 'spec.vpc', message: `Vpc ${vpc} does not exist` };
  return vpc;
}

/**
 * The internal addresses of a FIP or DNAT rule (Kube-OVN: the IP object's
 * when `ipName` is set, its subnet's VPC; else `vpc`, `v4Ip`, `v6Ip`).
 */
export function internalOf(
  ctx: Ctx,
  spec: { ipType: string; ipName: string; vpc: string; v4Ip: string; v6Ip: string },
): Internal | NatRefusal {
  if (spec.ipName !== '' && spec.ipType === 'vip')
    return { field: 'spec.ipType', message: `Vip ${spec.ipName}: a Vip's address is not acted on yet` };
  if (spec.ipName !== '') {
    const o = ctx.cache('IP').get(spec.ipName);
    if (o === undefined) return { field: 'spec.ipName', message: `IP ${spec.ipName} does not exist` };
    const ip = ctx.decode(o, decodeIP).value;
    const subnet = ctx.cache('Subnet').get(ip.subnet);
    if (subnet === undefined)
      return { field: 'spec.ipName', message: `subnet ${ip.subnet} of IP ${spec.ipName} does not exist` };
    const vpc = vpcOf(ctx, subnetVpc(ctx, subnet));
    if (typeof vpc !== 'string') return { field: 'spec.ipName', message: vpc.message };
    const ips = ip.ipAddress.split(',').filter(Boolean);
    if (ips.length === 0) return { field: 'spec.ipName', message: `IP ${spec.ipName} has no address yet` };
    return {
      vpc,
      v4: family(ips, false),
      v6: family(ips, true),
      port: spec.ipName,
      ...(ip.macAddress ? { mac: ip.macAddress } : {}),
    };
  }
  const vpc = vpcOf(ctx, spec.vpc);
  if (typeof vpc !== 'string') return vpc;
  if (spec.v4Ip === '' && spec.v6Ip === '')
    return { field: 'spec.v4Ip', message: 'no internal address: set spec.v4Ip/v6Ip or spec.ipName' };
  return { vpc, v4: spec.v4Ip, v6: spec.v6Ip };
}

/** A rule bound to an EIP and an internal address (OvnFip, OvnDnatRule), both resolved. */
export interface BoundRule<S> {
  readonly o: KubeObject;
  readonly spec: S;
  readonly eip: EipAddresses;
  readonly inner: Internal;
  readonly scope: readonly { kind: 'vpc'; name: string }[];
}

type BoundSpec = Parameters<typeof internalOf>[1] & { readonly ovnEip: string };

/**
 * The start the OvnFip and OvnDnatRule handlers share: the rule's rows go with it when it is
 * deleted; an EIP or internal address that does not resolve refuses it (undefined: done).
 *
 * @example const r = await bindRule(ctx, 'OvnFip', name, decodeOvnFip); if (r) ...
 */
export async function bindRule<S extends BoundSpec>(
  ctx: Ctx,
  kind: 'OvnFip' | 'OvnDnatRule',
  name: string,
  decode: (o: KubeObject) => Decoded<S>,
): Promise<BoundRule<S> | undefined> {
  const o = ctx.cache(kind).get(name);
  if (o === undefined) {
    ctx.committer.delete({ kind, name });
    ctx.report({ kind, name }, 'reconcile', []);
    return undefined;
  }
  const spec = ctx.decode(o, decode).value;
  const eip = eipForNat(ctx, spec.ovnEip);
  const inner = internalOf(ctx, spec);
  const vpc = 'vpc' in inner ? inner.vpc : spec.vpc;
  const scope = vpc ? [{ kind: 'vpc' as const, name: vpc }] : [];
  if (typeof eip === 'string') {
    await applyRule(ctx, o, kind, { ok: false, refusal: { field: 'spec.ovnEip', message: eip }, scope });
    return undefined;
  }
  if (!('vpc' in inner)) {
    await applyRule(ctx, o, kind, { ok: false, refusal: inner, scope });
    return undefined;
  }
  return { o, spec, eip, inner, scope };
}

/** The status fields a bound rule shares (Kube-OVN's OvnFip and OvnDnatRule status: vpc, EIP and internal addresses). */
export function boundStatus(r: BoundRule<unknown>): Record<string, unknown> {
  return { vpc: r.inner.vpc, v4Eip: r.eip.v4, v6Eip: r.eip.v6, v4Ip: r.inner.v4, v6Ip: r.inner.v6 };
}

/** Refuses a bound rule whose EIP has no address of its internal address's family. */
export function refuseNoFamily(ctx: Ctx, kind: 'OvnFip' | 'OvnDnatRule', r: BoundRule<BoundSpec>): Promise<void> {
  const message = `OvnEip ${r.spec.ovnEip} has no address of the internal address's family`;
  return applyRule(ctx, r.o, kind, { ok: false, refusal: { field: 'spec.ovnEip', message }, scope: r.scope });
}

/** Applies a rule's rows, or refuses it; then writes its status. */
export async function applyRule(
  ctx: Ctx,
  o: KubeObject,
  kind: NatKind,
  outcome:
    | { ok: true; rows: readonly TableRow[]; contributions?: readonly Contribution[]; status: Record<string, unknown> }
    | { ok: false; refusal: NatRefusal; scope: readonly { kind: 'vpc'; name: string }[] },
): Promise<void> {
  const name = o.metadata.name;
  const owner = { kind, name };
  if (outcome.ok) {
    ctx.committer.set(owner, {
      rows: outcome.rows,
      ...(outcome.contributions ? { contributions: outcome.contributions } : {}),
    });
    ctx.report(owner, 'reconcile', []);
    await writeStatus(ctx, o, kind, { ...outcome.status, ready: true });
    return;
  }
  ctx.committer.delete(owner);
  const { field, message } = outcome.refusal;
  ctx.report(owner, 'reconcile', [
    { code: 'InvalidNatRule', field, message: `not applied: ${message}`, scope: outcome.scope },
  ]);
  await ctx.event({ kind, name, uid: o.metadata.uid ?? '' }, 'Warning', 'InvalidNatRule', `${field}: ${message}`);
  await writeStatus(ctx, o, kind, { ready: false });
}

async function writeStatus(ctx: Ctx, o: KubeObject, kind: NatKind, status: Record<string, unknown>): Promise<void> {
  if (sameJson(pick(o.status, Object.keys(status)), status)) return;
  const name = o.metadata.name;
  await ctx.afterCommit(kind, { name }, () =>
    ctx.cluster.patch({ kind, name }, { status }, { subresource: 'status' }).then(() => {}),
  );
}

/**
 * What every NAT rule handler watches besides its own kind: EIPs (every
 * event: an address comes with the EIP's status), IP objects, subnets and
 * VPCs. Rules are few, so each such event looks at every rule again.
 */
export const NAT_RULE_WATCHES: readonly Watch[] = [
  { kind: 'OvnEip', map: () => ALL },
  { kind: 'IP', map: () => ALL },
  { kind: 'Subnet', map: () => ALL },
  { kind: 'Vpc', map: () => ALL },
];

/** The subnet's CIDRs per family (an SNAT rule's `vpcSubnet`). */
export function subnetCidrsOf(ctx: Ctx, name: string): { vpc: string; v4: string; v6: string } | undefined {
  const o = ctx.cache('Subnet').get(name);
  if (o === undefined) return undefined;
  const cidrs = ctx
    .decode(o, decodeSubnet)
    .value.cidrBlock.split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  return { vpc: subnetVpc(ctx, o), v4: family(cidrs, false), v6: family(cidrs, true) };
}

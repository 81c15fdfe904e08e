/**
 * ProviderNetwork and Vlan (kubeovn.io/v1) → their statuses, as Kube-OVN's
 * pkg/controller/provider-network.go and vlan.go keep them: a ProviderNetwork
 * is ready on every node (kovn wires no node bridge: every node is on the
 * network) and lists the Vlans on it; a Vlan lists the Subnets using it and
 * whether another Vlan has its provider and id (`conflict`, with an event).
 * Neither writes NB rows: an underlay subnet's localnet port is the Subnet's
 * (handlers/subnet-underlay.ts), which watches both kinds.
 */
import { decodeSubnet, decodeVlan } from '../../kube/objects/objects.ts';
import { ALL, type Handler } from './handler.ts';
import { type Ctx, sameJson } from './context.ts';
import { vlanConflict } from './subnet-underlay.ts';

const sorted = (xs: Iterable<string>) => [...xs].sort();

async function patchStatus(
  ctx: Ctx,
  kind: 'ProviderNetwork' | 'Vlan',
  name: string,
  have: unknown,
  status: Record<string, unknown>,
): Promise<void> {
  const old = (typeof have === 'object' && have !== null ? have : {}) as Record<string, unknown>;
  const now = Object.fromEntries(Object.keys(status).map((k) => [k, old[k]]));
  if (sameJson(now, status)) return;
  await ctx.cluster.patch({ kind, name }, { status }, { subresource: 'status' });
}

export async function reconcileProviderNetwork(ctx: Ctx, name: string): Promise<void> {
  const o = ctx.cache('ProviderNetwork').get(name);
  if (o === undefined) return;
  const nodes = sorted(
    ctx
      .cache('Node')
      .list()
      .map((n) => n.metadata.name),
  );
  const vlans = sorted(
    ctx
      .cache('Vlan')
      .list()
      .filter((v) => ctx.decode(v, decodeVlan).value.provider === name)
      .map((v) => v.metadata.name),
  );
  await patchStatus(ctx, 'ProviderNetwork', name, o.status, { ready: true, readyNodes: nodes, vlans });
}

export async function reconcileVlan(ctx: Ctx, name: string): Promise<void> {
  const o = ctx.cache('Vlan').get(name);
  if (o === undefined) return;
  const v = ctx.decode(o, decodeVlan).value;
  const ref = { kind: 'Vlan', name, uid: v.uid };
  const subnets = sorted(
    ctx
      .cache('Subnet')
      .list()
      .filter((s) => ctx.decode(s, decodeSubnet).value.vlan === name)
      .map((s) => s.metadata.name),
  );
  const other = vlanConflict(ctx, name, v.provider, v.id);
  const problems = [
    ...(other !== undefined
      ? [{ field: 'spec.id', message: `provider ${v.provider} vlan ${v.id} conflicts with Vlan ${other}` }]
      : []),
    ...(ctx.cache('ProviderNetwork').get(v.provider) === undefined
      ? [{ field: 'spec.provider', message: `provider network ${v.provider} does not exist` }]
      : []),
  ];
  ctx.report(
    ref,
    'reconcile',
    problems.map((p) => ({
      code: 'InvalidVlan',
      ...p,
      message: `its subnets are refused: ${p.message}`,
      scope: subnets.map((s) => ({ kind: 'subnet' as const, name: s })),
    })),
  );
  if (problems.length > 0) await ctx.event(ref, 'Warning', 'InvalidVlan', problems.map((p) => p.message).join('; '));
  await patchStatus(ctx, 'Vlan', name, o.status, { subnets, conflict: other !== undefined });
}

export const providerNetworkHandler: Handler = {
  kind: 'ProviderNetwork',
  after: [],
  watches: [{ kind: 'ProviderNetwork' }, { kind: 'Vlan', map: () => ALL }, { kind: 'Node', map: () => ALL }],
  reconcile: (ctx, key) => reconcileProviderNetwork(ctx, key.name),
};

export const vlanHandler: Handler = {
  kind: 'Vlan',
  after: [],
  watches: [
    { kind: 'Vlan', map: () => ALL },
    { kind: 'ProviderNetwork', map: () => ALL },
    { kind: 'Subnet', map: () => ALL },
  ],
  reconcile: (ctx, key) => reconcileVlan(ctx, key.name),
};

/**
 * Namespace → the annotations Kube-OVN writes on it (pkg/controller/namespace.go):
 * `ovn.kubernetes.io/logical_switch` (the subnets its pods use, comma
 * separated), `ovn.kubernetes.io/cidr` and `ovn.kubernetes.io/exclude_ips`
 * of those subnets. Nothing in NB belongs to a namespace.
 */
import { decodeSubnet } from '../../kube/objects/objects.ts';
import { specLabelsOrDeletion } from '../../kube/runtime/changes.ts';
import { ALL, type Handler } from './handler.ts';
import { type Ctx, patchAnnotations } from './context.ts';
import { namespaceSubnets } from './pod.ts';

export async function reconcileNamespace(ctx: Ctx, name: string): Promise<void> {
  const o = ctx.cache('Namespace').get(name);
  if (o === undefined) return;
  const subnets = namespaceSubnets(ctx, name);
  const names = subnets.length > 0 ? subnets : [ctx.settings.defaultLogicalSwitch];
  const views = names.flatMap((n) => {
    const s = ctx.cache('Subnet').get(n);
    return s ? [ctx.decode(s, decodeSubnet).value] : [];
  });
  if (views.length === 0) return;
  await patchAnnotations(ctx, o, {
    'ovn.kubernetes.io/logical_switch': views.map((v) => v.name).join(','),
    'ovn.kubernetes.io/cidr': views.map((v) => v.cidrBlock).join(';'),
    'ovn.kubernetes.io/exclude_ips': views.map((v) => v.excludeIps.join(',')).join(';'),
  });
}

export const namespaceHandler: Handler = {
  kind: 'Namespace',
  after: ['Subnet', 'Vpc'],
  watches: [
    { kind: 'Namespace' },
    // A VPC's namespaces and defaultSubnet, and a Subnet's namespaces, decide where its pods go.
    { kind: 'Vpc', when: specLabelsOrDeletion, map: () => ALL },
    { kind: 'Subnet', when: specLabelsOrDeletion, map: () => ALL },
  ],
  reconcile: (ctx, key) => reconcileNamespace(ctx, key.name),
};

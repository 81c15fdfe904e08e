/**
 * VpcNatGateway → its gateway pod's StatefulSet (controller/translate/
 * vpc-nat-gateway.ts), whose pod the pod handler puts on the VPC subnet with
 * the `lanIp`, and the gateway's status (lanIp, externalSubnets, selector,
 * tolerations, affinity, replicas) as Kube-OVN's patchNatGwStatus writes it (not
 * its `workload` nor `ready`, which follow the pod's readiness there).
 *
 * As in Kube-OVN's StatefulSet mode, no NB route is written here: the VPC's
 * traffic reaches the gateway by the Vpc's own `staticRoutes` (0.0.0.0/0 via
 * the lanIp, as Kube-OVN's documentation has users write), which the Vpc
 * handler writes. A gateway that does not validate (no such Vpc or Subnet, a
 * lanIp outside the subnet) makes nothing new and keeps what it had, with an
 * event and a warning naming the field.
 */
import type { KubeObject } from '../../kube/cluster/types.ts';
import { decodeSubnet } from '../../kube/objects/objects.ts';
import { decodeVpcNatGateway } from '../../kube/objects/vpc-nat-gateway.ts';
import { specLabelsOrDeletion } from '../../kube/runtime/changes.ts';
import { natGatewayStatefulSet } from '../translate/vpc-nat-gateway.ts';
import type { Handler, WatchEvent } from './handler.ts';
import { blocking, type Ctx, describeIssues, sameJson } from './context.ts';
import { subnetVpc } from './vpc.ts';

/** The controller's own namespace, where Kube-OVN puts gateways without spec.namespace. */
const POD_NAMESPACE = 'kube-system';

/** StatefulSets made, by gateway name → namespace (to delete one whose gateway is gone). */
const made = new WeakMap<Ctx, Map<string, string>>();

export async function reconcileVpcNatGateway(ctx: Ctx, name: string): Promise<void> {
  let mine = made.get(ctx);
  if (mine === undefined) made.set(ctx, (mine = new Map()));
  const ref = { kind: 'VpcNatGateway', name };
  const o = ctx.cache('VpcNatGateway').get(name);
  if (o === undefined || o.metadata.deletionTimestamp !== undefined) {
    const ns = mine.get(name);
    if (ns !== undefined) await deleteStatefulSet(ctx, ns, `vpc-nat-gw-${name}`);
    mine.delete(name);
    ctx.report(ref, 'reconcile', []);
    return;
  }
  const d = ctx.decode(o, decodeVpcNatGateway);
  const gw = d.value;
  const subnet = ctx.cache('Subnet').get(gw.subnet);
  const t = natGatewayStatefulSet(gw, {
    vpcExists: ctx.cache('Vpc').get(gw.vpc) !== undefined,
    ...(subnet !== undefined
      ? {
          subnet: {
            vpc: subnetVpc(ctx, subnet),
            cidrs: ctx
              .decode(subnet, decodeSubnet)
              .value.cidrBlock.split(',')
              .map((c) => c.trim()),
          },
        }
      : {}),
    podNamespace: POD_NAMESPACE,
  });
  const issues = [...blocking(d.issues), ...t.issues];
  ctx.report(
    ref,
    'reconcile',
    issues.map((i) => ({
      code: 'InvalidVpcNatGateway',
      field: i.field,
      message: `${i.message}: the gateway is not made or changed`,
      scope: gw.vpc ? [{ kind: 'vpc' as const, name: gw.vpc }] : [],
    })),
  );
  if (issues.length > 0 || t.value === undefined) {
    await ctx.event(
      { kind: 'VpcNatGateway', name, uid: gw.uid },
      'Warning',
      'InvalidVpcNatGateway',
      describeIssues(issues),
    );
    return;
  }
  await applyStatefulSet(ctx, t.value);
  mine.set(name, t.value.metadata.namespace!);
  const status = {
    lanIp: gw.lanIp,
    externalSubnets: gw.externalSubnets,
    selector: gw.selector,
    tolerations: gw.tolerations,
    affinity: gw.affinity ?? {},
    replicas: gw.replicas,
  };
  const have = (o.status ?? {}) as Record<string, unknown>;
  if (!sameJson(Object.fromEntries(Object.keys(status).map((k) => [k, have[k]])), status))
    await ctx.afterCommit('VpcNatGateway', { name }, () =>
      ctx.cluster.patch(ref, { status }, { subresource: 'status' }).then(() => {}),
    );
}

/** Creates the StatefulSet, or replaces its spec where it differs (Kube-OVN updates the template: the pod is remade). */
async function applyStatefulSet(ctx: Ctx, want: KubeObject): Promise<void> {
  const key = { kind: 'StatefulSet', namespace: want.metadata.namespace!, name: want.metadata.name };
  const have = await ctx.cluster.get(key);
  if (have === undefined) {
    await ctx.cluster.create(want);
    return;
  }
  const spec = (x: KubeObject) => (x as unknown as { spec?: unknown }).spec;
  if (sameJson(spec(have), spec(want))) return;
  await ctx.cluster.update({ ...have, spec: spec(want) } as KubeObject);
}

async function deleteStatefulSet(ctx: Ctx, namespace: string, name: string): Promise<void> {
  const ref = { kind: 'StatefulSet', namespace, name };
  if ((await ctx.cluster.get(ref)) !== undefined) await ctx.cluster.delete(ref);
}

/** Gateways naming the object (a Vpc or Subnet) the event is about. */
function naming(field: 'vpc' | 'subnet') {
  return (ctx: Ctx, e: WatchEvent) =>
    ctx
      .cache('VpcNatGateway')
      .list()
      .filter((g) => ctx.decode(g, decodeVpcNatGateway).value[field] === e.object.metadata.name)
      .map((g) => ({ name: g.metadata.name }));
}

export const vpcNatGatewayHandler: Handler = {
  kind: 'VpcNatGateway',
  after: ['Vpc', 'Subnet'],
  watches: [
    { kind: 'VpcNatGateway', when: specLabelsOrDeletion },
    { kind: 'Vpc', when: specLabelsOrDeletion, map: naming('vpc') },
    { kind: 'Subnet', when: specLabelsOrDeletion, map: naming('subnet') },
  ],
  reconcile: (ctx, key) => reconcileVpcNatGateway(ctx, key.name),
};

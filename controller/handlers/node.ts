/**
 * Node → its join address (IPAM owner `node-<node>` on the join subnet),
 * the join port, the 30000/29000 router policies and port groups
 * (translate/node.ts), and the Node annotations Kube-OVN writes
 * (pkg/controller/node.go handleAddNode): `ovn.kubernetes.io/ip_address`,
 * `mac_address`, `cidr`, `gateway`, `logical_switch`, `port_name`,
 * `allocated`. Deleting a Node releases all of it.
 */
import { decodeAddressRequest, encodeNodeNetwork } from '../../kube/annotations.ts';
import { formatMAC } from '../../model/addr/index.ts';
import type { TableRow } from '../desired/store.ts';
import { adminPolicyExists } from './admin-network-policy.ts';
import { decodeNetworkPolicy, decodeNode, decodeSubnet } from '../../kube/objects/objects.ts';
import { nodePort } from '../translate/names.ts';
import { nodeRows } from '../translate/node.ts';
import { subnetCidrs, subnetGateways } from '../translate/subnet.ts';
import { toRecord } from '../../model/ipam/index.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { anyOf, specLabelsOrDeletion } from '../../kube/runtime/changes.ts';
import { type Ctx, LEASE_INDEX, patchAnnotations } from './context.ts';
import { ALL, type Handler } from './handler.ts';
import { physicalGateway } from './subnet-underlay.ts';
import { subnetVpc } from './vpc.ts';

/** Default-VPC subnets with a distributed gateway (the join subnet excluded), valid in IPAM. */
export function distributedSubnets(ctx: Ctx): { name: string; cidrs: string[] }[] {
  const out: { name: string; cidrs: string[] }[] = [];
  for (const s of ctx.cache('Subnet').list()) {
    const name = s.metadata.name;
    if (name === ctx.settings.nodeSwitch || subnetVpc(ctx, s) !== ctx.settings.clusterRouter) continue;
    const view = ctx.decode(s, decodeSubnet).value;
    // An underlay subnet with the physical gateway (u2o or not) gets no distributed policies (reconcileOvnDefaultVpcRoute).
    if (view.gatewayType !== 'distributed' || physicalGateway(view)) continue;
    const held = ctx.ipam.subnet(name);
    if (held) out.push({ name, cidrs: subnetCidrs(held.config) });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

export const networkPolicyExists = (ctx: Ctx): boolean =>
  ctx.settings.enableNP &&
  ctx
    .cache('NetworkPolicy')
    .list()
    .some((np) => !ctx.decode(np, decodeNetworkPolicy).value.deleting);

export async function reconcileNode(ctx: Ctx, name: string): Promise<void> {
  const owner = { kind: 'Node', name };
  const ipamOwner = nodePort(name);
  const o = ctx.cache('Node').get(name);
  if (o === undefined) {
    ctx.committer.delete(owner);
    ctx.ipam.release(ipamOwner);
    ctx.enqueue('Subnet', { name: ctx.settings.nodeSwitch });
    return;
  }
  const n = ctx.decode(o, decodeNode).value;
  const join = ctx.settings.nodeSwitch;
  const asked = decodeAddressRequest(n.annotations);
  const a = ctx.ipam.allocate({
    subnet: join,
    owner: ipamOwner,
    ...(asked.ips ? { ips: asked.ips } : {}),
    ...(asked.mac ? { mac: asked.mac } : {}),
  });
  ctx.report(
    { kind: 'Node', name },
    'reconcile',
    a.ok
      ? []
      : [
          {
            code: 'AcquireAddressFailed',
            field: '',
            message: `no join address: ${a.error.message}`,
            scope: [{ kind: 'cluster' }],
          },
        ],
  );
  if (!a.ok) {
    await ctx.event({ kind: 'Node', name, uid: n.uid }, 'Warning', 'AcquireAddressFailed', a.error.message);
    throw a.error;
  }
  const { ips } = toRecord(a.lease);
  const mac = formatMAC(a.lease.mac);
  const t = nodeRows({
    name,
    joinSwitch: join,
    router: ctx.settings.clusterRouter,
    joinMac: mac,
    joinIps: ips,
    internalIps: n.internalIPs,
    distributedSubnets: distributedSubnets(ctx),
    // Kube-OVN counts NetworkPolicies only (node.go); its switches are stateful anyway through the
    // kubernetes Service's VIP on every switch. kovn's scenarios may have no Service, and an ANP or BANP
    // of Deny rules alone would drop the replies of allowed connections on a stateless switch.
    networkPolicyExists: networkPolicyExists(ctx) || adminPolicyExists(ctx),
  });
  const rows: TableRow[] = [
    { table: 'switchPort', row: t.port },
    ...t.policies.map((row): TableRow => ({ table: 'routerPolicy', row })),
    ...t.acls.map((row): TableRow => ({ table: 'acl', row })),
    ...t.portGroups.map((row): TableRow => ({ table: 'portGroup', row })),
  ];
  ctx.committer.set(owner, { rows });
  const cfg = ctx.ipam.subnet(join)?.config;
  const cidrs = cfg ? subnetCidrs(cfg) : [];
  const gateways = cfg ? subnetGateways(cfg) : [];
  await ctx.afterCommit('Node', { name }, () =>
    patchAnnotations(
      ctx,
      o,
      encodeNodeNetwork({ ips, mac, cidrs, gateways, logicalSwitch: join, portName: nodePort(name) }),
    ),
  );
}

/** The addresses of a Node's status (its InternalIPs are what the handler reads from status). */
function addressesChanged(o: KubeObject, old: KubeObject | undefined): boolean {
  const list = (x: KubeObject | undefined) => {
    const st = x?.status as { addresses?: unknown } | undefined;
    return Array.isArray(st?.addresses) ? (st.addresses as { type?: unknown; address?: unknown }[]) : [];
  };
  const a = list(o);
  const b = list(old);
  return a.length !== b.length || a.some((x, i) => x?.type !== b[i]?.type || x?.address !== b[i]?.address);
}

/**
 * Its `*.kubernetes.io/` annotations changed (Kube-OVN's kubeOvnAnnotationsChanged
 * in pkg/controller/node.go): a Node replaced without them gets them back.
 */
function kubeOvnAnnotationsChanged(o: KubeObject, old: KubeObject | undefined): boolean {
  const ours = (x: KubeObject | undefined) =>
    Object.entries(x?.metadata.annotations ?? {})
      .filter(([k]) => k.includes('.kubernetes.io/'))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const a = ours(o);
  const b = ours(old);
  return a.length !== b.length || a.some(([k, v], i) => b[i]![0] !== k || b[i]![1] !== v);
}

export const nodeHandler: Handler = {
  kind: 'Node',
  after: ['Subnet'],
  watches: [
    { kind: 'Node', when: anyOf(specLabelsOrDeletion, addressesChanged, kubeOvnAnnotationsChanged) },
    // Its distributed subnets' routes and policies.
    { kind: 'Subnet', when: specLabelsOrDeletion, map: () => ALL },
    // Whether any policy exists decides its port group ACLs: a policy added or deleted only.
    { kind: 'NetworkPolicy', when: () => false, map: () => ALL },
    { kind: 'AdminNetworkPolicy', when: () => false, map: () => ALL },
    { kind: 'BaselineAdminNetworkPolicy', when: () => false, map: () => ALL },
  ],
  indexes: [{ kind: 'Node', name: LEASE_INDEX, values: (_ctx, o) => [nodePort(o.metadata.name)] }],
  reconcile: (ctx, key) => reconcileNode(ctx, key.name),
};

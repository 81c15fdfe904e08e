/**
 * `ovn0`, the node's port on the join switch (Kube-OVN pkg/daemon init.go
 * InitNodeGateway, ovs_linux.go configureNodeNic, controller_linux.go
 * reconcileRouters): the logical port `node-<node>` the controller created,
 * with the join address and MAC it wrote on the Node, the MTU, and routes
 * to the default VPC's pod CIDRs and to the service CIDRs via the join
 * subnet's gateway (from the node's InternalIP), so that the node reaches
 * its pods and Services through OVN.
 *
 * The plan is pure (planNodeNic); it is applied in one of two forms:
 * - `internal` (a real node): an OVS internal port `ovn0` on br-int in the
 *   host namespace; OVS sets its MAC and MTU (Interface `mac`,
 *   `mtu_request`), netlink its addresses and routes;
 * - `veth` (the lab, where a node is a network namespace): a veth pair
 *   whose one end is `ovn0` inside the node's namespace and the other a
 *   br-int port with the same iface-id.
 */
import { OvsdbTimedOutError } from '../../backends/ovn/ovsdb/index.ts';
import { type CIDR, containsIP, formatCIDR, networkOf, tryParseCIDR, tryParseIP } from '../../model/addr/index.ts';
import { OVN_PROVIDER, annotationKey, decodeNodeNetwork } from '../../kube/annotations.ts';
import type { SubnetView } from '../../kube/objects/kubeovn.ts';
import type { Netlink } from '../netlink/types.ts';
import {
  type CommitOptions,
  INTEGRATION_BRIDGE,
  OvsError,
  type Vswitch,
  addPortOps,
  deletePort,
  getPort,
  setInterfaceOps,
} from '../ovs/index.ts';
import { type Planned, SetupError } from './errors.ts';
import { readProfile } from './node-ovs.ts';
import { type DatapathProfile, profileSettings } from './profile.ts';

/** Kube-OVN's util.NodeNic. */
export const NODE_NIC = 'ovn0';

/** The default VPC's router (Kube-OVN's --cluster-router default). */
export const CLUSTER_ROUTER = 'ovn-cluster';

export interface NodeNicInput {
  readonly node: string;
  /** The Node's annotations, as the controller wrote them (kube/annotations.ts encodeNodeNetwork). */
  readonly annotations: Readonly<Record<string, string | undefined>>;
  readonly mtu: number;
  /** The cluster's Subnets: the default VPC's overlay subnets give the pod CIDRs routed via ovn0. */
  readonly subnets: readonly Pick<SubnetView, 'name' | 'cidrBlock' | 'vpc' | 'provider'>[];
  /** `--service-cluster-ip-range`, one CIDR per family. */
  readonly serviceCidrs: readonly string[];
  /**
   * The Node's InternalIPs: the routes' preferred source of their family (the router's policy at 30000
   * reroutes the replies to the join address), and a subnet containing one is not routed via ovn0
   * (Kube-OVN skips it too).
   */
  readonly internalIps?: readonly string[];
  /** Default `ovn-cluster`. */
  readonly clusterRouter?: string;
}

export interface NodeRoute {
  readonly dst: string;
  readonly gw: string;
  /** The node's InternalIP of the family, when it has one: node → pod traffic leaves from it (Kube-OVN routeDiff). */
  readonly src?: string;
}

export interface NodeNicPlan {
  readonly name: string;
  /** The logical port: the `port_name` annotation, or `node-<node>`. */
  readonly ifaceId: string;
  readonly mac: string;
  readonly mtu: number;
  /** The join addresses with the join subnet's prefix, one per family. */
  readonly addresses: readonly string[];
  /** Pod and service CIDRs via the join gateway of their family (the join CIDR itself is on-link). */
  readonly routes: readonly NodeRoute[];
  /**
   * CIDRs not routed, and why: those of a family the node has no join address of (ovn0 cannot
   * carry that family; e.g. dual-stack pod subnets beside a v4-only join subnet).
   */
  readonly unrouted: readonly { readonly dst: string; readonly reason: string }[];
  /** What Kube-OVN records on the interface: `ip` (the join addresses, comma separated). */
  readonly externalIds: Readonly<Record<string, string>>;
}

/**
 * ovn0 as the Node's annotations and the cluster's subnets describe it.
 *
 * @example
 * planNodeNic({ node: 'n1', annotations: node.metadata.annotations, mtu: 1400,
 *   subnets: [{ name: 'ovn-default', cidrBlock: '10.16.0.0/16', vpc: '', provider: 'ovn' }], serviceCidrs: ['10.96.0.0/12'] })
 * // { ok: true, value: { name: 'ovn0', ifaceId: 'node-n1', addresses: ['100.64.0.2/16'],
 * //   routes: [{ dst: '10.16.0.0/16', gw: '100.64.0.1' }, { dst: '10.96.0.0/12', gw: '100.64.0.1' }], ... } }
 */
export function planNodeNic(input: NodeNicInput): Planned<NodeNicPlan> {
  const d = decodeNodeNetwork(input.annotations);
  if (!d.ok) return { ok: false, issue: { ...d.issue, code: 'no-node-network' } };
  const net = d.value;
  const key = (k: 'mac_address' | 'cidr') => `metadata.annotations[${annotationKey(OVN_PROVIDER, k)}]`;
  if (net.mac === undefined) return noNetwork(key('mac_address'), 'the join port has no MAC');
  const joinCidrs = net.cidrs.map((c) => tryParseCIDR(c));
  const addresses: string[] = [];
  for (const ip of net.ips) {
    const parsed = tryParseIP(ip);
    const cidr = joinCidrs.find((c) => c !== undefined && parsed !== undefined && containsIP(c, parsed));
    if (cidr === undefined) return noNetwork(key('cidr'), `no join CIDR contains ${ip}`);
    addresses.push(`${ip}/${cidr.prefix}`);
  }
  const routed = planRoutes(input, net, joinCidrs);
  if (!routed.ok) return routed;
  const portName = input.annotations[annotationKey(OVN_PROVIDER, 'port_name')];
  return {
    ok: true,
    value: {
      name: NODE_NIC,
      ifaceId: portName || `node-${input.node}`,
      mac: net.mac,
      mtu: input.mtu,
      addresses,
      ...routed.value,
      externalIds: { ip: net.ips.join(',') },
    },
  };
}

/** Each routed CIDR via the join gateway of its family, from the node's InternalIP of it; other families reported. */
function planRoutes(
  input: NodeNicInput,
  net: { readonly ips: readonly string[]; readonly gateways: readonly string[] },
  joinCidrs: readonly (CIDR | undefined)[],
): Planned<Pick<NodeNicPlan, 'routes' | 'unrouted'>> {
  const familyOf = (texts: readonly string[]) =>
    texts.flatMap((t) => {
      const ip = tryParseIP(t.trim());
      return ip === undefined ? [] : [{ text: t.trim(), family: ip.family }];
    });
  const joined = new Set(familyOf(net.ips).map((a) => a.family));
  const gateways = familyOf(net.gateways);
  const internal = familyOf(input.internalIps ?? []);
  const routes: NodeRoute[] = [];
  const unrouted: { dst: string; reason: string }[] = [];
  for (const dst of routedCidrs(input, joinCidrs)) {
    if (!joined.has(dst.family)) {
      unrouted.push({ dst: formatCIDR(dst), reason: `the node has no IPv${dst.family} join address` });
      continue;
    }
    const gw = gateways.find((g) => g.family === dst.family)?.text;
    const path = `metadata.annotations[${annotationKey(OVN_PROVIDER, 'gateway')}]`;
    if (gw === undefined) return noNetwork(path, `no IPv${dst.family} join gateway for ${formatCIDR(dst)}`);
    const src = internal.find((a) => a.family === dst.family)?.text;
    routes.push({ dst: formatCIDR(dst), gw, ...(src === undefined ? {} : { src }) });
  }
  return { ok: true, value: { routes, unrouted } };
}

function noNetwork(path: string, message: string): Planned<never> {
  return { ok: false, issue: { code: 'no-node-network', path, message } };
}

/** The default VPC's overlay CIDRs (not the join's, not one holding the node's own address), then the service CIDRs. */
function routedCidrs(input: NodeNicInput, joinCidrs: readonly (CIDR | undefined)[]): CIDR[] {
  const router = input.clusterRouter ?? CLUSTER_ROUTER;
  const internal = (input.internalIps ?? []).flatMap((ip) => tryParseIP(ip) ?? []);
  const seen = new Set(joinCidrs.flatMap((c) => (c === undefined ? [] : [formatCIDR(networkOf(c))])));
  const out: CIDR[] = [];
  const add = (c: CIDR) => {
    const k = formatCIDR(networkOf(c));
    if (seen.has(k)) return;
    seen.add(k);
    out.push(networkOf(c));
  };
  for (const s of input.subnets) {
    if ((s.vpc || router) !== router || s.provider !== OVN_PROVIDER) continue;
    for (const text of s.cidrBlock.split(',')) {
      const c = tryParseCIDR(text.trim());
      if (c !== undefined && !internal.some((ip) => containsIP(c, ip))) add(c);
    }
  }
  for (const text of input.serviceCidrs) {
    const c = tryParseCIDR(text.trim());
    if (c !== undefined) add(c);
  }
  return out;
}

/** Where ovn0 lives: the host namespace (an OVS internal port), or a node's namespace at the end of a veth. */
export type NodeNicForm =
  | { readonly kind: 'internal' }
  | {
      readonly kind: 'veth';
      /** The node's namespace (a path, e.g. /run/netns/<name>). */
      readonly netns: string;
      /** The br-int end, in the host namespace (at most 15 bytes; unique per node and run). */
      readonly hostIfName: string;
    };

export interface NodeNicContext {
  readonly vs: Vswitch;
  readonly netlink: Netlink;
  /**
   * The node's datapath: on a userspace one, the veth form's ovn0 gets its tx checksum offload off.
   * Default: what the database says (readProfile: br-int's `datapath_type`, `netdev` is userspace).
   */
  readonly profile?: DatapathProfile;
  /** Default br-int. */
  readonly bridge?: string;
  readonly commit?: CommitOptions;
}

function userspace(ctx: NodeNicContext): boolean {
  const profile = ctx.profile ?? readProfile(ctx.vs, ctx.bridge);
  return profile !== undefined && profileSettings(profile).userspace;
}

/** The OVS port of ovn0 in this form: its name and type. */
function portOf(plan: NodeNicPlan, form: NodeNicForm): { name: string; type: 'internal' | 'system' } {
  return form.kind === 'internal' ? { name: plan.name, type: 'internal' } : { name: form.hostIfName, type: 'system' };
}

/**
 * Makes ovn0 as planned, in the given form; calling it again converges the
 * same port (a changed MAC or address is written again).
 *
 * @example
 * await ensureNodeNic({ vs, netlink, profile: 'netdev' }, plan, { kind: 'veth', netns: '/run/netns/lab-n1', hostIfName: 'n1-ovn0' });
 */
export async function ensureNodeNic(ctx: NodeNicContext, plan: NodeNicPlan, form: NodeNicForm): Promise<void> {
  const { name, type } = portOf(plan, form);
  if (form.kind === 'veth') {
    // The pod end of a veth is made afresh: one left by an earlier run is deleted first.
    await ctx.netlink.deleteLink(form.hostIfName);
    await ctx.netlink.addPodLink({
      hostIfName: form.hostIfName,
      netns: form.netns,
      ifName: plan.name,
      mac: plan.mac,
      mtu: plan.mtu,
      addresses: plan.addresses,
      routes: plan.routes,
      ...(userspace(ctx) ? { txChecksumOff: true } : {}),
    });
  }
  try {
    await ctx.vs.commit(nodeNicPortOps(ctx, plan, { name, type }), ctx.commit);
  } catch (e) {
    // The pair goes again: a half-made ovn0 is worse than none (the next ensure makes it whole).
    if (form.kind === 'veth') await ctx.netlink.deleteLink(form.hostIfName).catch(() => false);
    const bridge = ctx.bridge ?? INTEGRATION_BRIDGE;
    if (e instanceof OvsdbTimedOutError && e.opIndex === 0)
      throw new OvsError('no-bridge', `Port ${name}: bridge ${bridge} does not exist`, { cause: e });
    throw e;
  }
  if (form.kind === 'internal') {
    if (ctx.netlink.configureHostLink === undefined)
      throw new SetupError('netlink-unsupported', `${plan.name}: the Netlink implementation has no configureHostLink`);
    await ctx.netlink.configureHostLink({
      name: plan.name,
      addresses: plan.addresses,
      routes: plan.routes,
      up: true,
    });
  }
}

/** The port and interface rows: added when missing, else their interface set to the plan. */
function nodeNicPortOps(ctx: NodeNicContext, plan: NodeNicPlan, port: { name: string; type: 'internal' | 'system' }) {
  const { vs } = ctx;
  const bridge = ctx.bridge ?? INTEGRATION_BRIDGE;
  const had = getPort(vs, port.name);
  if (had !== undefined && had.bridge !== bridge)
    throw new OvsError('exists', `Port ${port.name}: already on bridge ${had.bridge ?? '(none)'}, not ${bridge}`);
  const iface = {
    type: port.type === 'internal' ? 'internal' : '',
    // vswitchd applies `mac` to internal interfaces only; the veth's MAC is the pod end's, set by netlink.
    mac: port.type === 'internal' ? plan.mac : undefined,
    mtu_request: port.type === 'internal' ? plan.mtu : undefined,
  };
  const add =
    had === undefined ? addPortOps(vs, { name: port.name, bridge, ifaceId: plan.ifaceId, type: port.type }) : [];
  return [
    ...add,
    vs.ops.update('Interface', [['name', '==', port.name]], iface),
    // A mutation, not an update: ovn-controller's ovn-installed mark stays.
    ...setInterfaceOps(vs, port.name, { externalIds: { ...plan.externalIds, 'iface-id': plan.ifaceId } }),
  ];
}

/**
 * Removes ovn0 in that form (its port, and in the veth form the pair); false when there was nothing.
 *
 * @example await removeNodeNic({ vs, netlink }, { kind: 'veth', netns: '/run/netns/lab-n1', hostIfName: 'n1-ovn0' }) // true
 */
export async function removeNodeNic(ctx: NodeNicContext, form: NodeNicForm, name: string = NODE_NIC): Promise<boolean> {
  const port = form.kind === 'internal' ? name : form.hostIfName;
  const hadPort = await deletePort(ctx.vs, port, ctx.commit);
  const hadLink = form.kind === 'veth' ? await ctx.netlink.deleteLink(form.hostIfName) : false;
  return hadPort || hadLink;
}

/**
 * Subnet (kubeovn.io/v1) → IPAM subnet, logical switch, router port, ACLs,
 * router policies; status with Kube-OVN's names (`v4availableIPs`,
 * `v4usingIPs`, their v6 twins) and `Validated`/`Ready` conditions; the
 * finalizer `kubeovn.io/kube-ovn-controller` while any address of it is in
 * use (pkg/controller/subnet.go).
 *
 * An invalid spec (bad CIDR, overlap within its VPC or with the join
 * subnet or the service CIDR, a bad ACL) gets `Validated=False` naming the
 * field and an event; whatever the subnet had before stays as it was (its
 * leases, its rows): nothing allocated is lost to a typo.
 */
import { containsIP, formatIP, formatMAC, type IP, nthIP, tryParseCIDR, tryParseIP } from '../../model/addr/index.ts';
import { parseSubnetSpec, type SubnetConfig, type SubnetSpec } from '../../model/ipam/index.ts';
import type { TableRow } from '../desired/store.ts';
import { annotationKey, OVN_PROVIDER } from '../../kube/annotations.ts';
import { type KubeObject, objectKey } from '../../kube/cluster/types.ts';
import { decodeNode, decodeSubnet } from '../../kube/objects/objects.ts';
import { vpcLoadBalancers } from '../translate/names.ts';
import { subnetRows } from '../translate/subnet.ts';
import { centralizedGateways, egressStatus, gatewayProblem, tableConflict } from './subnet-gateway.ts';
import { anyOf, type ChangePredicate, labelsChanged, specLabelsOrDeletion } from '../../kube/runtime/changes.ts';
import { ALL, type Handler } from './handler.ts';
import {
  blocking,
  creationOrder,
  type Ctx,
  describeIssues,
  ipamIssueField,
  sameJson,
  setConditions,
} from './context.ts';
import { subnetVpc } from './vpc.ts';
import {
  checkU2o,
  heldU2o,
  physicalGateway,
  subnetVlan,
  type UnderlayPlan,
  underlayPlan,
  underlayRows,
} from './subnet-underlay.ts';
import { u2oOwner } from '../translate/underlay.ts';

export const FINALIZER = 'kubeovn.io/kube-ovn-controller';

/** A subnet spec as the IPAM sees it, for "did it change". */
function normalSpec(s: SubnetSpec): unknown {
  return { c: s.cidrBlock, g: s.gateway ?? '', e: s.excludeIps ?? [], v: s.vpc ?? '' };
}

/** A stable router-port MAC from the gateway address (Kube-OVN draws a random one once and keeps it). */
export function gatewayMac(config: SubnetConfig): string {
  const low = config.v4 ? config.v4.gateway : Number((config.v6?.gateway ?? 0n) & 0xffffffffn);
  return formatMAC(0x0a5800000000 + (low >>> 0));
}

/**
 * Kube-OVN's checks beyond the IPAM's overlap within a VPC (pkg/util/validator.go
 * ValidateSubnet, pkg/controller/subnet.go checkSubnetConflict), no stricter:
 * a default-VPC subnet may not contain the API server's service address (the
 * first address of the service CIDR, the `kubernetes` Service's) nor a node's
 * InternalIP. A custom VPC's subnet may lie anywhere, the service CIDR included.
 */
function extraOverlaps(ctx: Ctx, name: string, config: SubnetConfig, vpc: string): string[] {
  const out: string[] = [];
  if (vpc !== ctx.settings.clusterRouter || name === ctx.settings.nodeSwitch) return out;
  const mine = [config.v4?.cidr, config.v6?.cidr].filter((c) => c !== undefined);
  const holds = (ip: IP | undefined) => ip !== undefined && mine.some((c) => containsIP(c, ip));
  for (const text of ctx.settings.serviceClusterIPRange.split(',')) {
    const svc = tryParseCIDR(text.trim());
    const apiserver = svc === undefined ? undefined : nthIP(svc, 1);
    if (apiserver !== undefined && holds(apiserver))
      out.push(
        `spec.cidrBlock ${config.spec.cidrBlock} conflicts with the API server's service address ${formatIP(apiserver)} (the first address of the service CIDR ${text.trim()})`,
      );
  }
  for (const n of ctx.cache('Node').list()) {
    for (const { text, ip } of nodeAddresses(ctx, n))
      if (holds(ip))
        out.push(`spec.cidrBlock ${config.spec.cidrBlock} conflicts with node ${n.metadata.name}'s address ${text}`);
  }
  return out;
}

/** A node's InternalIPs, parsed once per node version (every pod's subnet status update checks them all). */
const parsedNodeIps = new WeakMap<KubeObject, readonly { text: string; ip: IP | undefined }[]>();

function nodeAddresses(ctx: Ctx, n: KubeObject): readonly { text: string; ip: IP | undefined }[] {
  let hit = parsedNodeIps.get(n);
  if (hit === undefined)
    parsedNodeIps.set(
      n,
      (hit = ctx.decode(n, decodeNode).value.internalIPs.map((text) => ({ text, ip: tryParseIP(text) }))),
    );
  return hit;
}

/** What refuses a Subnet, by field: the decoder's malformed values (`decoded`), then Kube-OVN's checks. */
export interface SubnetCheck {
  /** The spec as the IPAM takes it. */
  readonly spec: SubnetSpec;
  /** Its parsed form, when it parses. */
  readonly parsed?: SubnetConfig;
  readonly bad: { field: string; message: string; decoded?: true }[];
}

/**
 * Every check a Subnet passes before it holds addresses (the IPAM's overlap
 * within its VPC aside, which `setSubnet` makes): the handler and the
 * start-up restore both ask this, so an invalid Subnet holds no addresses
 * either way.
 */
export function checkSubnet(ctx: Ctx, o: KubeObject): SubnetCheck {
  const d = ctx.decode(o, decodeSubnet);
  const s = d.value;
  const name = o.metadata.name;
  const vpc = subnetVpc(ctx, o);
  const bad: SubnetCheck['bad'] = blocking(d.issues).map((i) => ({
    field: i.field,
    message: i.message,
    decoded: true,
  }));
  if (s.vpc !== '' && s.vpc === name)
    bad.push({ field: 'spec.vpc', message: `a Subnet and its Vpc cannot have the same name (${name})` });
  else if (ctx.cache('Vpc').get(vpc) === undefined)
    bad.push({ field: 'spec.vpc', message: `spec.vpc: Vpc ${vpc} does not exist` });
  const spec = {
    name,
    cidrBlock: s.cidrBlock,
    vpc,
    excludeIps: s.excludeIps,
    ...(s.gateway ? { gateway: s.gateway } : {}),
  };
  if (bad.length > 0) return { spec, bad };
  const parsed = parseSubnetSpec(spec);
  if (!parsed.ok) {
    bad.push(...parsed.issues.map((i) => ({ field: ipamIssueField(i, 'cidrBlock'), message: i.message })));
    return { spec, bad };
  }
  bad.push(...extraOverlaps(ctx, name, parsed.value, vpc).map((message) => ({ field: 'spec.cidrBlock', message })));
  const table = tableConflict(ctx, s);
  if (table !== undefined) bad.push({ field: 'spec.policyRoutingTableID', message: table });
  if (s.vlan !== '') {
    const vlan = subnetVlan(ctx, s);
    if ('field' in vlan) bad.push(vlan);
  }
  bad.push(...checkU2o(s, parsed.value));
  return { spec, parsed: parsed.value, bad };
}

/**
 * Subnets in the order they claim addresses: the join subnet, then the
 * default subnet (both exist from the controller's first start, before any
 * user object), then oldest first. Of two overlapping subnets the later one
 * is refused, as Kube-OVN refuses the one that conflicts with an existing one.
 */
export function subnetsInOrder(ctx: Ctx, list: readonly KubeObject[]): KubeObject[] {
  const rank = (o: KubeObject) =>
    o.metadata.name === ctx.settings.nodeSwitch ? 0 : o.metadata.name === ctx.settings.defaultLogicalSwitch ? 1 : 2;
  const ordered = creationOrder(list);
  return [0, 1, 2].flatMap((r) => ordered.filter((o) => rank(o) === r));
}

/**
 * What reads the IPAM's subnets, computed again once they change: a policy's
 * address families (its namespace's subnets'), a node's routes and port
 * groups (its distributed subnets'). Their watches on Subnet may run before
 * this reconcile changed the IPAM.
 */
function requeueReaders(ctx: Ctx): void {
  for (const np of ctx.cache('NetworkPolicy').list()) ctx.enqueue('NetworkPolicy', objectKey(np));
  for (const n of ctx.cache('Node').list()) ctx.enqueue('Node', objectKey(n));
}

export async function reconcileSubnet(ctx: Ctx, name: string): Promise<void> {
  const owner = { kind: 'Subnet', name };
  const o = ctx.cache('Subnet').get(name);
  if (o === undefined) {
    // Gone without our finalizer (or after it): release what is left.
    ctx.ipam.deleteSubnet(name);
    ctx.committer.delete(owner);
    requeueReaders(ctx);
    return;
  }
  const d = ctx.decode(o, decodeSubnet);
  const s = d.value;
  const ref = { kind: 'Subnet', name, uid: s.uid };
  // Held by addresses in use, it keeps its rows as a controller starting now builds them (its pods' ports are on it).
  if (s.deleting && (await finalize(ctx, name, o.metadata.finalizers ?? []))) return;
  const vpc = subnetVpc(ctx, o);
  const { spec, parsed, bad } = checkSubnet(ctx, o);
  let config: SubnetConfig | undefined;
  if (bad.length === 0 && parsed !== undefined) {
    const have = ctx.ipam.subnet(name);
    // Unchanged: the IPAM keeps its allocator (re-setting a subnet re-walks every lease in it).
    if (have !== undefined && sameJson(normalSpec(have.config.spec), normalSpec(spec))) config = have.config;
    else {
      const r = ctx.ipam.setSubnet(spec);
      if (!r.ok) bad.push(...r.issues.map((i) => ({ field: ipamIssueField(i, 'cidrBlock'), message: i.message })));
      else {
        config = parsed;
        requeueReaders(ctx);
        for (const lost of r.dropped) {
          // Leases the new spec no longer allows: their pods (and nodes) are reconciled again.
          const holder = ctx.leaseHolder(lost.owner);
          if (holder !== undefined) ctx.enqueue(holder.kind, holder.key);
        }
      }
    }
  }
  const unknown = d.issues.filter((i) => i.code === 'unknown-field').map((i) => i.message);
  let underlay: UnderlayPlan | undefined;
  if (bad.length === 0 && config !== undefined && s.vlan !== '') {
    const plan = underlayPlan(ctx, s, config, vpc, heldU2o(o, vpc));
    if ('field' in plan) bad.push(plan);
    else underlay = plan;
  }
  if (bad.length > 0 || config === undefined) {
    // Refused (a typo in spec.vpc, say): one accepted before keeps its rows and leases, so its pods keep
    // their ports (Kube-OVN returns the error and leaves the switch as it was; docs/architecture.md, "Fail
    // closed"). One never accepted holds nothing. Only its delete releases what it holds.
    const kept = ctx.ipam.subnet(name) !== undefined;
    if (!kept) ctx.committer.delete(owner);
    const message = describeIssues(bad);
    // The decoder's issues are reported as the object's decode problems (diagnostics.ts); the rest here.
    ctx.report(
      ref,
      'reconcile',
      bad
        .filter((b) => !b.decoded)
        .map((b) => ({
          code: 'ValidateLogicalSwitchFailed',
          field: b.field,
          message: `refused (${kept ? 'it keeps what it had' : 'its pods get no address'}): ${b.message}`,
          scope: [{ kind: 'subnet', name }],
        })),
    );
    await ctx.event(ref, 'Warning', 'ValidateLogicalSwitchFailed', message);
    await writeStatus(ctx, o, [
      { type: 'Validated', status: 'False', reason: 'ValidateLogicalSwitchFailed', message },
      { type: 'Ready', status: 'False', reason: 'ValidateLogicalSwitchFailed', message },
    ]);
    return;
  }
  if (unknown.length > 0) await ctx.event(ref, 'Warning', 'UnknownField', unknown.join('; '));
  const lbs = vpcLoadBalancers(vpc, ctx.settings.clusterRouter, ctx.clusterLbs);
  const gateways = centralizedGateways(ctx, s, o, vpc);
  const t = subnetRows({
    config,
    router: vpc,
    gatewayMac: gatewayMac(config),
    private: s.private,
    allowSubnets: s.allowSubnets,
    acls: s.acls,
    allowEWTraffic: s.allowEWTraffic,
    enableLb: s.enableLb && ctx.settings.enableLb,
    nodeSwitchCidr: ctx.settings.nodeSwitchCIDR,
    loadBalancers: ctx.settings.enableLb
      ? [lbs.tcp, lbs.udp, lbs.sctp, lbs.tcpSession, lbs.udpSession, lbs.sctpSession]
      : [],
    // An underlay subnet with the physical gateway has none of the default VPC's subnet policies.
    defaultVpc: vpc === ctx.settings.clusterRouter && !physicalGateway(s),
    centralizedGateways: gateways?.hops ?? [],
    routeTable: s.routeTable,
  });
  const u2o = underlay?.u2o;
  const rows: TableRow[] = [
    { table: 'switch', row: t.value.switch },
    ...underlayRows(t.value, underlay),
    ...t.value.acls.map((row): TableRow => ({ table: 'acl', row })),
    ...t.value.policies.map((row): TableRow => ({ table: 'routerPolicy', row })),
  ];
  ctx.committer.set(owner, { rows });
  const aclIssues = t.issues.map((i) => i.message);
  ctx.report(
    ref,
    'reconcile',
    t.issues.map((i) => ({
      code: 'InvalidSubnetACL',
      field: i.field,
      message: `${i.message}: the ACL is left out`,
      scope: [{ kind: 'subnet', name }],
    })),
  );
  if (aclIssues.length > 0) await ctx.event(ref, 'Warning', 'InvalidSubnetACL', aclIssues.join('; '));
  if (!(o.metadata.finalizers ?? []).includes(FINALIZER)) {
    await ctx.cluster.patch(
      { kind: 'Subnet', name },
      { metadata: { finalizers: [...(o.metadata.finalizers ?? []), FINALIZER] } },
    );
  }
  const gwProblem = gatewayProblem(s, gateways);
  await ctx.afterCommit('Subnet', { name }, () =>
    writeStatus(
      ctx,
      o,
      [
        { type: 'Validated', status: 'True', reason: 'ValidatedLogicalSwitch', message: '' },
        aclIssues.length > 0
          ? { type: 'Ready', status: 'False', reason: 'InvalidSubnetACL', message: aclIssues.join('; ') }
          : gwProblem !== undefined
            ? { type: 'Ready', status: 'False', ...gwProblem }
            : { type: 'Ready', status: 'True', reason: 'ResourceCreated', message: '' },
      ],
      {
        ...egressStatus(s, gateways),
        u2oInterconnectionIP: u2o?.ips.join(',') ?? '',
        u2oInterconnectionMAC: u2o?.mac ?? '',
        u2oInterconnectionVPC: u2o ? vpc : '',
      },
    ),
  );
}

/** A deleted Subnet's rows and finalizer go, unless addresses of it are in use (false then: it stays). */
async function finalize(ctx: Ctx, name: string, finalizers: readonly string[]): Promise<boolean> {
  // Its u2o address is its own, not a user's (releaseU2OIP runs before the subnet goes).
  const vpc = ctx.ipam.subnet(name)?.config.vpc;
  if (vpc !== undefined) ctx.ipam.release(u2oOwner(vpc, name));
  const counters = ctx.ipam.counters(name);
  const inUse = Number(counters?.v4?.used ?? 0) + Number(counters?.v6?.used ?? 0);
  if (inUse > 0) {
    // Kube-OVN keeps the subnet while any address of it is held; the last pod's release requeues it.
    await ctx.event({ kind: 'Subnet', name }, 'Warning', 'SubnetInUse', `${inUse} addresses are still in use`);
    return false;
  }
  ctx.ipam.deleteSubnet(name);
  ctx.committer.delete({ kind: 'Subnet', name });
  if (finalizers.includes(FINALIZER)) {
    await ctx.afterCommit('Subnet', { name }, async () => {
      await ctx.cluster.patch(
        { kind: 'Subnet', name },
        { metadata: { finalizers: finalizers.filter((f) => f !== FINALIZER) } },
      );
    });
  }
  return true;
}

async function writeStatus(
  ctx: Ctx,
  o: { readonly metadata: { readonly name: string }; readonly status?: unknown },
  conditions: Parameters<typeof setConditions>[1],
  extra: Record<string, unknown> = {},
): Promise<void> {
  const name = o.metadata.name;
  const have = (typeof o.status === 'object' && o.status !== null ? o.status : {}) as Record<string, unknown>;
  const c = ctx.ipam.counters(name);
  const status: Record<string, unknown> = {
    conditions: setConditions(have.conditions, conditions, ctx.now()),
    v4availableIPs: Number(c?.v4?.available ?? 0),
    v4usingIPs: Number(c?.v4?.used ?? 0),
    v6availableIPs: Number(c?.v6?.available ?? 0n),
    v6usingIPs: Number(c?.v6?.used ?? 0n),
    // u2o fields: written when set, cleared when they were (an overlay subnet's status has none).
    ...Object.fromEntries(
      Object.entries(extra).filter(([k, v]) => !k.startsWith('u2o') || v !== '' || have[k] !== undefined),
    ),
  };
  const now = Object.fromEntries(Object.keys(status).map((k) => [k, have[k]]));
  if (sameJson(now, status)) return;
  await ctx.cluster.patch({ kind: 'Subnet', name }, { status }, { subresource: 'status' });
}

/** The node got (or changed) its join address: a centralized subnet's gateway is a next hop only with one. */
const joinAddressChanged: ChangePredicate = (o, old) =>
  old === undefined || o.metadata.annotations?.[JOIN_ADDRESS] !== old.metadata.annotations?.[JOIN_ADDRESS];
const JOIN_ADDRESS = annotationKey(OVN_PROVIDER, 'ip_address');

/** Kube-OVN's nodeReady changed (a new node counts, as labelsChanged counts it). */
const nodeReadyChanged: ChangePredicate = (o, old) =>
  old === undefined || decodeNode(o).value.ready !== decodeNode(old).value.ready;

export const subnetHandler: Handler = {
  kind: 'Subnet',
  after: [],
  watches: [
    { kind: 'Subnet', when: specLabelsOrDeletion },
    { kind: 'Vpc', when: specLabelsOrDeletion, map: () => ALL },
    // A new node, new labels (gatewayNodeSelectors) or readiness may change a centralized subnet's gateways.
    { kind: 'Node', when: anyOf(labelsChanged, nodeReadyChanged, joinAddressChanged), map: () => ALL },
    // An underlay subnet's localnet port and validity follow its Vlan and ProviderNetwork.
    { kind: 'Vlan', map: () => ALL },
    { kind: 'ProviderNetwork', map: () => ALL },
  ],
  reconcile: (ctx, key) => reconcileSubnet(ctx, key.name),
  startOrder: subnetsInOrder,
};

/**
 * Compiling one logical router: routes (routes.ts), policies with resolved
 * reroute next hops, NAT rules checked as northd's lrouter_check_nat_entry
 * does (and bound to their gateway port on distributed routers), load
 * balancer VIPs, and the address sets the ingress stages consult.
 */
import { formatIPv4, formatIPv6, tryParseCIDR, tryParseIP, tryParseMAC } from '../../model/addr/index.ts';
import type { Issue } from '../../model/issues.ts';
import { printMatch, type MatchEnv } from '../../model/match/index.ts';
import {
  keyOf,
  type LogicalRouter,
  type NAT,
  type RouterPolicy,
  type StaticRoute,
  type Topology,
} from '../../model/topology/index.ts';
import { broadcastOf, inNetwork, type IpKey, ipKey, linkLocalOf } from './addresses.ts';
import { aclRequirement, indexAcls } from './acl-index.ts';
import { compileVips, indexVips } from './lb.ts';
import { compilePredicate } from './match.ts';
import { firstRefused, routerEmptyVipActions } from './northd-text.ts';
import { compileRoutes, portForNexthop } from './routes.ts';
import type { CompileStats, RowsByDatapath } from './by-datapath.ts';
import type { LbVip, NatRule, PolicyRule, RouteTarget, RouterDp, RouterPortInfo } from './types.ts';
import { appendAll } from '../../model/append.ts';
import { matchDeps, RuleMemo } from './remember.ts';

function policyTargets(ports: readonly RouterPortInfo[], p: RouterPolicy): RouteTarget[] | undefined {
  const targets: RouteTarget[] = [];
  for (const nh of p.nexthops) {
    const ip = tryParseIP(nh);
    const target = ip === undefined ? undefined : portForNexthop(ports, ip.value);
    if (target === undefined) return undefined;
    targets.push(target);
  }
  const fams = new Set(targets.map((t) => (typeof t.nexthop === 'bigint' ? 6 : 4)));
  return fams.size > 1 ? undefined : targets;
}

/** A router has no port groups (`@pg` never matches there). */
const NO_PORT_GROUPS: ReadonlyMap<string, readonly string[]> = new Map();

/** Router policy matches by row, kept across compiles while what they read is unchanged (remember.ts). */
const policyMatches = new RuleMemo<RouterPolicy, Pick<PolicyRule, 'test' | 'matchText' | 'req'>>();

function compilePolicies(
  t: Topology,
  r: LogicalRouter,
  ports: readonly RouterPortInfo[],
  env: MatchEnv,
  issues: Issue[],
  own: readonly RouterPolicy[],
): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const p of own) {
    if (p.router !== r.name) continue;
    const key = keyOf('routerPolicy', p);
    let targets: RouteTarget[] = [];
    if (p.action === 'reroute') {
      const resolved = policyTargets(ports, p);
      if (resolved === undefined || resolved.length === 0) {
        issues.push({
          code: 'sim-policy-ignored',
          path: ['routerPolicy', key],
          message: `router policy ${key}: no router port reaches next hop(s) ${p.nexthops.join(',')}; ignored as northd does`,
        });
        continue;
      }
      targets = resolved;
    }
    // The targets come from the router's ports, not the match: computed every time, the match remembered.
    const compiled = policyMatches.get(p, r.name, matchDeps(p.match, t, env), issues, () => ({
      // A router has no port groups in OVN (they are per switch): `@pg` here never matches.
      test: compilePredicate(p.match, env, ['routerPolicy', key, 'match'], issues, {
        datapath: `router ${r.name}`,
        groupExists: (n) => t.portGroup.has(n),
      }),
      matchText: printMatch(p.match),
      req: aclRequirement(p.match, NO_PORT_GROUPS, env),
    }));
    out.push({ key, policy: p, priority: p.priority, ...compiled, targets });
  }
  return out.sort((a, b) => b.priority - a.priority || (a.key < b.key ? -1 : 1));
}

function hostIP(text: string): { family: 4 | 6; ip: number | bigint } | undefined {
  const c = tryParseCIDR(text, { allowBare: true });
  if (c === undefined || c.prefix !== (c.family === 4 ? 32 : 128)) return undefined;
  return { family: c.family, ip: c.ip };
}

function gatewayPortFor(
  nat: NAT,
  dgps: readonly RouterPortInfo[],
  ext: number | bigint,
): RouterPortInfo | undefined | null {
  if (nat.gatewayPort !== undefined) return dgps.find((p) => p.name === nat.gatewayPort) ?? null;
  if (dgps.length === 0) return undefined;
  if (dgps.length === 1) return dgps[0];
  return dgps.find((p) => p.networks.some((n) => inNetwork(n, ext))) ?? null;
}

function parsePortRange(text: string | undefined): NatRule['portRange'] {
  const m = text === undefined ? null : /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!m) return undefined;
  const lo = Number(m[1]);
  return { lo, hi: m[2] === undefined ? lo : Number(m[2]) };
}

/** lrouter_check_nat_entry, plus the router-level condition (gateway router or a gateway port). */
function compileNat(nat: NAT, gw: boolean, dgps: readonly RouterPortInfo[], issues: Issue[]): NatRule | undefined {
  const key = keyOf('nat', nat);
  const bad = (why: string): undefined => {
    issues.push({ code: 'sim-nat-ignored', path: ['nat', key], message: `NAT ${key}: ${why}; ignored as northd does` });
    return undefined;
  };
  if (!gw && dgps.length === 0) return bad('the router is neither a gateway router nor has a distributed gateway port');
  const ext = hostIP(nat.externalIp);
  if (ext === undefined) return bad('bad external_ip');
  const logical = tryParseCIDR(nat.logicalIp, { allowBare: true });
  if (logical === undefined || logical.family !== ext.family) return bad('bad logical_ip');
  if (nat.type !== 'snat' && logical.prefix !== (logical.family === 4 ? 32 : 128))
    return bad('logical_ip must be an address for dnat');
  const gwPort = gw ? undefined : gatewayPortFor(nat, dgps, ext.ip);
  if (gwPort === null) return bad('no distributed gateway port for it');
  const mac = nat.externalMac === undefined ? undefined : tryParseMAC(nat.externalMac);
  if (nat.externalMac !== undefined && mac === undefined && dgps.length > 0) return bad('bad external_mac');
  const distributed =
    dgps.length > 0 && nat.type === 'dnat_and_snat' && nat.logicalPort !== undefined && mac !== undefined;
  const range = parsePortRange(nat.externalPortRange);
  return {
    key,
    nat,
    family: ext.family,
    externalIp: ext.ip,
    logicalIp: logical.ip,
    logicalPlen: logical.prefix,
    stateless: nat.type === 'dnat_and_snat' && nat.options['stateless'] === 'true',
    distributed,
    ...(distributed ? { externalMac: mac } : {}),
    ...(gwPort ? { gatewayPort: gwPort.name } : {}),
    ...(range ? { portRange: range } : {}),
  };
}

/**
 * `*_force_snat_ip` as get_force_snat_ip reads it (extract_ip_address):
 * addresses up to the first word that is none, at least one, at most one
 * per family, each a host address; anything else is no address at all.
 */
function forceSnat(text: string | undefined): { v4?: number; v6?: bigint } | undefined {
  if (text === undefined) return undefined;
  const out: { v4?: number; v6?: bigint } = {};
  for (const w of text.trim().split(/\s+/)) {
    const c = tryParseCIDR(w, { allowBare: true });
    if (c === undefined) break;
    if (c.prefix !== (c.family === 4 ? 32 : 128)) return undefined;
    if ((c.family === 4 ? out.v4 : out.v6) !== undefined) return undefined;
    if (c.family === 4) out.v4 = c.ip;
    else out.v6 = c.ip;
  }
  return out.v4 === undefined && out.v6 === undefined ? undefined : out;
}

/**
 * The lr_in_dnat flows of VIPs without backends that OVN refuses: with
 * skip_snat or a force-SNAT router, northd writes `flags.…_for_lb = 1;
 * drop;` (northd-text.ts). Those VIPs are left out of `dnatVips`: new
 * connections to them pass lr_in_dnat untouched.
 */
function dnatVipsOf(r: LogicalRouter, vips: readonly LbVip[], isGateway: boolean, issues: Issue[]): LbVip[] {
  const lbOpt = r.options['lb_force_snat_ip'];
  // lrouter_nat_lb_flow_type: `router_ip` counts on a gateway router only, an address on any router.
  const force = (lbOpt === 'router_ip' && isGateway) || forceSnat(lbOpt) !== undefined;
  return vips.filter((v) => {
    if (v.backends.length > 0) return true;
    const type = v.skipSnat ? 'skip_snat' : force ? 'force_snat' : 'normal';
    const ip = v.family === 4 ? 'ip4' : 'ip6';
    const addr = v.family === 4 ? formatIPv4(v.ip as number) : formatIPv6(v.ip as bigint);
    const port = v.port === undefined ? '' : ` && ${v.proto} && ${v.proto}.dst == ${v.port}`;
    const flow = {
      stage: 'lr_in_dnat',
      match: `ct.new && !ct.rel && ${ip} && ${ip}.dst == ${addr}${port}`,
      actions: routerEmptyVipActions(v.lb, type),
    };
    const refused = firstRefused([flow]);
    if (refused === undefined) return true;
    issues.push({
      code: 'sim-flow-refused',
      path: ['loadBalancer', v.lb.name, 'vips', v.vipText],
      message: `load balancer ${v.lb.name} VIP ${v.vipText} on router ${r.name}: northd writes its lr_in_dnat flow with actions ${JSON.stringify(flow.actions)}, which OVN refuses (${refused.reason}); ovn-controller skips it: new connections to the VIP are not dropped there`,
    });
    return false;
  });
}

function routerVips(t: Topology, r: LogicalRouter, issues: Issue[]): LbVip[] {
  const out: LbVip[] = [];
  for (const name of r.loadBalancers) {
    const lb = t.loadBalancer.get(name);
    if (lb === undefined) continue;
    const vips = compileVips(lb, issues);
    if (vips.some((v) => v.affinityTimeout !== undefined))
      issues.push({
        code: 'sim-unsupported',
        path: ['loadBalancer', lb.name, 'options', 'affinity_timeout'],
        message: `load balancer ${lb.name} on router ${r.name}: affinity_timeout is not simulated on a router (lr_in_lb_aff_check/learn); its VIPs are balanced without it (switch load balancers have it)`,
      });
    appendAll(out, vips);
  }
  return out;
}

/** build_lrouter_lb_reachable_ips: the LB's options:neighbor_responder (reachable by default). */
function reachable(vip: LbVip, ports: readonly RouterPortInfo[]): boolean {
  const mode = vip.lb.options['neighbor_responder'] ?? 'reachable';
  if (mode === 'all') return true;
  if (mode === 'none') return false;
  return ports.some((p) => p.networks.some((n) => inNetwork(n, vip.ip)));
}

/** build_arp_request_flows_for_lrouter: static routes whose next hop parses as an IPv6 /128. */
function ndNsNexthops(own: readonly StaticRoute[]): Set<IpKey> {
  const out = new Set<IpKey>();
  for (const r of own) {
    const c = tryParseCIDR(r.nexthop, { allowBare: true });
    if (c?.family === 6 && c.prefix === 128) out.add(ipKey(c.ip));
  }
  return out;
}

/** The addresses ip_input treats as the router's own. */
function ownAddresses(ports: readonly RouterPortInfo[]): Pick<RouterDp, 'ownV4' | 'ownV4OrBroadcast' | 'ownV6'> {
  const ownV4 = new Set<number>();
  const ownV4OrBroadcast = new Set<number>();
  const ownV6 = new Set<bigint>();
  for (const p of ports) {
    ownV6.add(linkLocalOf(p.mac));
    for (const n of p.networks) {
      if (n.family === 6) ownV6.add(n.ip as bigint);
      else {
        ownV4.add(n.ip as number);
        ownV4OrBroadcast.add(n.ip as number);
        ownV4OrBroadcast.add(broadcastOf(n) as number);
      }
    }
  }
  return { ownV4, ownV4OrBroadcast, ownV6 };
}

export interface RouterCompileInput {
  readonly t: Topology;
  readonly router: LogicalRouter;
  readonly ports: readonly RouterPortInfo[];
  readonly env: MatchEnv;
  readonly issues: Issue[];
  /** Rows grouped by router (default: the router's rows found by scanning the tables). */
  readonly rows?: Pick<RowsByDatapath, 'nats' | 'staticRoutes' | 'policies'>;
  readonly stats?: CompileStats;
}

export function compileRouter({ t, router, ports, env, issues, rows, stats }: RouterCompileInput): RouterDp {
  const isGateway = router.options['chassis'] !== undefined;
  const dgps = ports.filter((p) => p.isDgp);
  const own = <R extends { readonly router: string }>(
    grouped: ReadonlyMap<string, readonly R[]> | undefined,
    all: Iterable<R>,
  ) => {
    const list = grouped ? (grouped.get(router.name) ?? []) : [...all].filter((r) => r.router === router.name);
    if (stats) stats.rulesScanned += list.length;
    return list;
  };
  const nats = own(rows?.nats, t.nat.values()).flatMap((n) => compileNat(n, isGateway, dgps, issues) ?? []);
  const vips = routerVips(t, router, issues);
  const staticRoutes = own(rows?.staticRoutes, t.staticRoute.values());
  // Routes, then policies: the order their issues are reported in.
  const routes = compileRoutes(t, router, ports, issues, staticRoutes);
  const policies = compilePolicies(t, router, ports, env, issues, own(rows?.policies, t.routerPolicy.values()));
  const snatIps = new Set<IpKey>(nats.filter((n) => n.nat.type === 'snat').map((n) => ipKey(n.externalIp)));
  const dnatForceSnat = isGateway ? forceSnat(router.options['dnat_force_snat_ip']) : undefined;
  const lbOpt = router.options['lb_force_snat_ip'];
  const lbForceSnat = !isGateway ? undefined : lbOpt === 'router_ip' ? ('router_ip' as const) : forceSnat(lbOpt);
  for (const f of [dnatForceSnat, lbForceSnat === 'router_ip' ? undefined : lbForceSnat]) {
    if (f?.v4 !== undefined) snatIps.add(ipKey(f.v4));
    if (f?.v6 !== undefined) snatIps.add(ipKey(f.v6));
  }
  const lbIps = new Set(vips.map((v) => ipKey(v.ip)));
  const snatOrLbRouterIps = new Set<IpKey>();
  for (const p of ports)
    for (const n of p.networks)
      if (snatIps.has(ipKey(n.ip)) || lbIps.has(ipKey(n.ip))) snatOrLbRouterIps.add(ipKey(n.ip));
  return {
    kind: 'router',
    name: router.name,
    enabled: router.enabled !== false,
    isGateway,
    ports: ports.map((p) => p.name),
    ...ownAddresses(ports),
    dgps: dgps.map((p) => p.name),
    routes,
    policies,
    policyIndex: indexAcls(policies),
    nats,
    vips: indexVips(vips),
    dnatVips: indexVips(dnatVipsOf(router, vips, isGateway, issues)),
    hasLbVip: vips.length > 0,
    natExternalIps: new Set(nats.map((n) => ipKey(n.externalIp))),
    lbReachableIps: new Set(vips.filter((v) => reachable(v, ports)).map((v) => ipKey(v.ip))),
    snatOrLbRouterIps,
    arpResolve: new Map(),
    ndNsNexthops: ndNsNexthops(staticRoutes),
    ...(dnatForceSnat ? { dnatForceSnat } : {}),
    ...(lbForceSnat ? { lbForceSnat } : {}),
  };
}

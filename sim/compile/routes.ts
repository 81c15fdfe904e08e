/**
 * Router routing tables as northd 23.03 builds them (northd.c add_route,
 * build_route_match, build_static_route_flows_for_lrouter):
 *
 * - priority = prefix length × 3 + offset: connected 2, static 1, src-ip 0
 *   (ROUTE_PRIO_OFFSET_*), so the longest prefix wins and, at equal length,
 *   connected beats static beats src-ip;
 * - static dst-ip routes match only packets of their route table (the main
 *   table is id 0), connected routes and main-table src-ip routes match any;
 * - static routes with equal prefix, policy and table form an ECMP group;
 * - a route whose next hop no router port can reach is dropped, as are bad
 *   prefixes and next hops (northd logs and skips them).
 */
import { formatIP, maskV4, maskV6, tryParseCIDR, tryParseIP, v4, v6 } from '../../model/addr/index.ts';
import type { Issue } from '../../model/issues.ts';
import { keyOf, type LogicalRouter, type StaticRoute, type Topology } from '../../model/topology/index.ts';
import { inNetwork } from './addresses.ts';
import type { RouteEntry, RouteTarget, RouterPortInfo } from './types.ts';

/** The router port (and its address) whose network contains `ip`. */
export function portForNexthop(ports: readonly RouterPortInfo[], ip: number | bigint): RouteTarget | undefined {
  for (const p of ports) {
    for (const n of p.networks) {
      if (inNetwork(n, ip)) return { outport: p.name, nexthop: ip, srcIp: n.ip, mac: p.mac };
    }
  }
  return undefined;
}

function connectedRoutes(ports: readonly RouterPortInfo[]): RouteEntry[] {
  const out: RouteEntry[] = [];
  for (const p of ports) {
    for (const n of p.networks) {
      out.push({
        key: `connected|${p.name}|${formatIP(n.family === 4 ? v4(n.network as number) : v6(n.network as bigint))}/${n.prefix}`,
        kind: 'connected',
        priority: n.prefix * 3 + 2,
        family: n.family,
        prefix: n.network,
        plen: n.prefix,
        bySource: false,
        // Every field present, in one order, in every route and target (one object shape for the pipelines).
        table: undefined,
        targets: [{ outport: p.name, nexthop: undefined, srcIp: n.ip, mac: p.mac }],
        text: `${n.family === 4 ? 'ip4' : 'ip6'}.dst == ${formatIP(n.family === 4 ? v4(n.network as number) : v6(n.network as bigint))}/${n.prefix}`,
        rows: [],
      });
    }
  }
  return out;
}

/**
 * find_static_route_outport: output_port if given (first address of the family as source), else the port reaching the
 * next hop.
 */
function staticTarget(
  ports: readonly RouterPortInfo[],
  r: StaticRoute,
  family: 4 | 6,
  nexthop: number | bigint,
): RouteTarget | undefined {
  if (r.outputPort !== undefined) {
    const p = ports.find((x) => x.name === r.outputPort);
    if (p === undefined) return undefined;
    const inNet = p.networks.find((n) => inNetwork(n, nexthop));
    const src = inNet ?? p.networks.find((n) => n.family === family);
    return src === undefined ? undefined : { outport: p.name, nexthop, srcIp: src.ip, mac: p.mac };
  }
  return portForNexthop(ports, nexthop);
}

interface ParsedRoute {
  readonly row: StaticRoute;
  readonly family: 4 | 6;
  readonly prefix: number | bigint;
  readonly plen: number;
  readonly bySource: boolean;
  readonly discard: boolean;
  readonly target?: RouteTarget;
}

function parseRoute(ports: readonly RouterPortInfo[], r: StaticRoute, issues: Issue[]): ParsedRoute | undefined {
  const path = ['staticRoute', keyOf('staticRoute', r)];
  const bad = (why: string): undefined => {
    issues.push({
      code: 'sim-route-ignored',
      path,
      message: `static route ${r.ipPrefix} via ${r.nexthop} on ${r.router}: ${why}; ignored as northd does`,
    });
    return undefined;
  };
  const c = tryParseCIDR(r.ipPrefix, { allowBare: true });
  if (c === undefined) return bad('bad ip_prefix');
  const prefix = c.family === 4 ? (c.ip & maskV4(c.prefix)) >>> 0 : c.ip & maskV6(c.prefix);
  const base = { row: r, family: c.family, prefix, plen: c.prefix, bySource: r.policy === 'src-ip' };
  if (r.nexthop === 'discard') return { ...base, discard: true };
  const nh = tryParseIP(r.nexthop.replace(/\/(32|128)$/, ''));
  if (nh === undefined) return bad('bad nexthop');
  if (nh.family !== c.family) return bad('nexthop and prefix differ in address family');
  const target = staticTarget(ports, r, c.family, nh.value);
  if (target === undefined) return bad('no router port reaches the next hop');
  return { ...base, discard: false, target };
}

function groupKey(p: ParsedRoute): string {
  return `${p.family}|${String(p.prefix)}/${p.plen}|${p.bySource}|${p.row.routeTable}`;
}

function staticEntry(group: readonly ParsedRoute[]): RouteEntry {
  const first = group[0]!;
  const table = first.row.routeTable;
  // build_route_match: a route-table id, or a static dst-ip route, adds "reg7 == id".
  const matchesTable = table !== '' || !first.bySource;
  const prio = first.plen * 3 + (first.bySource ? 0 : 1);
  const fam = first.family === 4 ? 'ip4' : 'ip6';
  return {
    key: group.map((g) => keyOf('staticRoute', g.row)).join(' + '),
    kind: first.discard ? 'discard' : 'static',
    priority: prio,
    family: first.family,
    prefix: first.prefix,
    plen: first.plen,
    bySource: first.bySource,
    table: matchesTable ? table : undefined,
    targets: first.discard ? [] : group.map((g) => g.target!),
    text: `${fam}.${first.bySource ? 'src' : 'dst'} == ${first.row.ipPrefix}${table ? ` (table ${table})` : ''}`,
    rows: group.map((g) => g.row),
  };
}

/** Every route of a router, highest priority first. */
export function compileRoutes(
  t: Topology,
  router: LogicalRouter,
  ports: readonly RouterPortInfo[],
  issues: Issue[],
  /** The router's static routes when already grouped (default: found by scanning the table). */
  own?: readonly StaticRoute[],
): RouteEntry[] {
  const groups = new Map<string, ParsedRoute[]>();
  for (const r of own ?? t.staticRoute.values()) {
    if (r.router !== router.name) continue;
    const parsed = parseRoute(ports, r, issues);
    if (parsed === undefined) continue;
    const k = groupKey(parsed);
    const g = groups.get(k) ?? [];
    // A discard route never joins an ECMP group in practice; keep the first one alone.
    if (g.length > 0 && (parsed.discard || g[0]!.discard)) continue;
    g.push(parsed);
    groups.set(k, g);
  }
  const all = [...connectedRoutes(ports), ...[...groups.values()].map(staticEntry)];
  return all.sort((a, b) => b.priority - a.priority);
}

/**
 * Longest-prefix match as the priorities order it: the first route whose
 * family, table and prefix match.
 */
export function lookupRoute(
  routes: readonly RouteEntry[],
  family: 4 | 6,
  src: number | bigint,
  dst: number | bigint,
  table: string,
): RouteEntry | undefined {
  for (const r of routes) {
    if (r.family !== family) continue;
    if (r.table !== undefined && r.table !== table) continue;
    const ip = r.bySource ? src : dst;
    if (family === 4) {
      if (((ip as number) & maskV4(r.plen)) >>> 0 === r.prefix) return r;
    } else if (((ip as bigint) & maskV6(r.plen)) === r.prefix) {
      return r;
    }
  }
  return undefined;
}

/**
 * Rule rows of a drawn topology: address sets, port groups, ACLs, load
 * balancers (attached to switches and routers), NAT on gateway routers and
 * distributed gateway ports (incl. distributed FIPs), static routes (links,
 * defaults, src-ip, route tables, ECMP, discard) and router policies (allow,
 * drop, reroute, ECMP reroute). Operands come from the skeleton, so the
 * rules refer to real addresses; keys are de-duplicated (first wins).
 */
import { keyOf, type Tables, type TableName } from '../../model/topology/index.ts';
import * as L from './layout.ts';
import { type MatchPools, matchOf } from './match-spec.ts';
import type { RuleTargets, Skeleton } from './materialize.ts';
import type { LbSpec, TopoSpec } from './spec.ts';

type Rows = { -readonly [T in keyof Tables]: Tables[T][] };

const at = <T>(list: readonly T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);
const base = { externalIds: {}, options: {} } as const;
const ACTIONS = ['allow', 'allow-related', 'allow-stateless', 'drop', 'reject'] as const;

function pushUnique<T extends TableName>(rows: Rows, table: T, row: Tables[T]): boolean {
  const list = rows[table] as Tables[T][];
  const key = keyOf(table, row);
  if (list.some((r) => keyOf(table, r) === key)) return false;
  list.push(row);
  return true;
}

function poolsOf(spec: TopoSpec, sk: Skeleton, rows: Rows): MatchPools {
  const v4 = [
    ...sk.pods.map((p) => p.ip4),
    ...sk.switches.map((s) => L.subnet4(s.i)),
    ...sk.routers.filter((r) => r.kind !== 'plain').map((r) => L.extHostIp(r.j)),
    '10.96.0.10',
    L.INTERNET_IP,
  ];
  const v6 = [
    ...sk.pods.flatMap((p) => (p.ip6 ? [p.ip6] : [])),
    ...sk.switches.filter((s) => s.dual).map((s) => L.subnet6(s.i)),
  ];
  spec.addressSets.forEach((as, k) => {
    const pool = as.v6 ? v6 : v4;
    const entries = [...new Set(as.entries.flatMap((e) => (pool.length ? [pool[e % pool.length]!] : [])))];
    rows.addressSet.push({ name: `as${k}`, addresses: entries, externalIds: {} });
  });
  spec.portGroups.forEach((members, k) => {
    const ports = [...new Set(members.flatMap((n) => (sk.pods.length ? [sk.pods[n % sk.pods.length]!.name] : [])))];
    rows.portGroup.push({ name: `pg${k}`, ports, externalIds: {} });
  });
  return {
    v4,
    v6,
    addressSets: spec.addressSets.map((as, k) => ({ name: `as${k}`, v6: as.v6 })),
    portGroups: spec.portGroups.map((_, k) => `pg${k}`),
    ports: sk.pods.map((p) => p.name),
  };
}

function aclRows(spec: TopoSpec, sk: Skeleton, rows: Rows, pools: MatchPools): void {
  const targets = [
    ...sk.switches.map((s) => ({ kind: 'switch' as const, name: L.lsName(s.i) })),
    ...pools.portGroups.map((name) => ({ kind: 'port-group' as const, name })),
  ];
  // Two ACLs of one stage at one priority with different actions make flows whose order OVN leaves
  // undefined when both match: keep priorities apart unless the actions agree (port group ACLs land
  // on any switch, so per stage across the whole topology).
  const taken = new Map<string, string>();
  for (const a of spec.acls) {
    const attachTo = at(targets, a.attach);
    if (attachTo === undefined) continue;
    const direction = a.toLport ? 'to-lport' : 'from-lport';
    const afterLb = a.afterLb && direction === 'from-lport';
    const action = ACTIONS[a.action % ACTIONS.length]!;
    const stage = `${direction}${afterLb ? '/after-lb' : ''}`;
    let priority = a.priority % 32768;
    while ((taken.get(`${stage}|${priority}`) ?? action) !== action) priority = (priority + 1) % 32768;
    taken.set(`${stage}|${priority}`, action);
    pushUnique(rows, 'acl', {
      ...base,
      attachTo,
      direction,
      priority,
      match: matchOf(a.match, pools, true),
      action,
      log: false,
      options: afterLb ? { 'apply-after-lb': 'true' } : {},
    });
  }
}

const LB_OPTIONS: readonly Record<string, string>[] = [
  {},
  { reject: 'true' },
  { skip_snat: 'true' },
  { hairpin_snat_ip: '169.254.169.5 fd69::5' },
  // Switch load balancers only: the simulator does not model a router's affinity (lr_in_lb_aff_*);
  // an LB that also sits on a router gets no option instead (lbRows).
  { affinity_timeout: '60' },
];
const LB_PROTOS = [undefined, 'tcp', 'udp', 'sctp'] as const;

/** One LB: its VIP (falling back to a service VIP when the drawn kind has nothing to use), backends and attachments. */
function lbRow(
  _spec: TopoSpec,
  sk: Skeleton,
  k: number,
  lb: LbSpec,
): { row: Tables['loadBalancer']; target: L.Target; routers: number[] } {
  const gw = sk.routers.filter((r) => r.kind !== 'plain');
  const dual = sk.pods.filter((p) => p.ip6);
  let kind = lb.vip % 4;
  if ((kind === 2 && dual.length === 0) || (kind === 3 && gw.length === 0)) kind = 0;
  const pick = <T>(list: readonly T[]) => [
    ...new Set(lb.backends.slice(0, 3).flatMap((n) => (list.length ? [list[n % list.length]!] : []))),
  ];
  const protocol = LB_PROTOS[lb.proto % 4];
  const proto = protocol ?? 'tcp';
  const routers = [...new Set(lb.routers.flatMap((n) => (sk.routers.length ? [n % sk.routers.length] : [])))];
  let vip: string;
  let backends: string;
  let target: L.Target;
  if (kind === 2) {
    vip = `[fd00:96::${k + 1}]:80`;
    backends = pick(dual)
      .map((p) => `[${p.ip6}]:8080`)
      .join(',');
    target = { kind: 'vip', ip: `fd00:96::${k + 1}`, port: 80, proto };
  } else if (kind === 1) {
    vip = `10.96.${k}.11`;
    backends = pick(sk.pods)
      .map((p) => p.ip4)
      .join(',');
    target = { kind: 'vip', ip: `10.96.${k}.11` };
  } else {
    const j = kind === 3 ? gw[(lb.routers[0] ?? 0) % gw.length]!.j : undefined;
    const ip = j === undefined ? `10.96.${k}.10` : `172.${20 + j}.0.${200 + k}`;
    if (j !== undefined && !routers.includes(j)) routers.push(j);
    vip = `${ip}:80`;
    backends = pick(sk.pods)
      .map((p) => `${p.ip4}:8080`)
      .join(',');
    target = { kind: 'vip', ip, port: 80, proto };
  }
  const row: Tables['loadBalancer'] = {
    name: `lb${k}`,
    vips: { [vip]: backends },
    ...(protocol ? { protocol } : {}),
    selectionFields: [],
    options: LB_OPTIONS[lb.options % LB_OPTIONS.length]!,
    externalIds: {},
  };
  return { row, target, routers };
}

function lbRows(spec: TopoSpec, sk: Skeleton, rows: Rows): L.Target[] {
  const vips: L.Target[] = [];
  spec.loadBalancers.forEach((lb, k) => {
    const drawn = lbRow(spec, sk, k, lb);
    const { target, routers } = drawn;
    const row = routers.length > 0 && drawn.row.options.affinity_timeout ? { ...drawn.row, options: {} } : drawn.row;
    rows.loadBalancer.push(row);
    vips.push(target);
    const switches = new Set(
      lb.switches.flatMap((n) => (sk.switches.length ? [L.lsName(n % sk.switches.length)] : [])),
    );
    rows.switch = rows.switch.map((s) =>
      switches.has(s.name) ? { ...s, loadBalancers: [...s.loadBalancers, row.name] } : s,
    );
    const rnames = new Set(routers.map(L.lrName));
    rows.router = rows.router.map((r) =>
      rnames.has(r.name) ? { ...r, loadBalancers: [...r.loadBalancers, row.name] } : r,
    );
  });
  return vips;
}

function natRows(spec: TopoSpec, sk: Skeleton, rows: Rows): L.Target[] {
  const gw = sk.routers.filter((r) => r.kind !== 'plain');
  const out: L.Target[] = [];
  const count = new Map<number, number>();
  const usedLogical = new Set<string>();
  for (const n of spec.nats) {
    const r = at(gw, n.router);
    if (r === undefined) continue;
    const type = (['snat', 'dnat', 'dnat_and_snat'] as const)[n.type % 3]!;
    const local = sk.pods.filter((p) => r.switches.includes(p.i));
    const pods = local.length ? local : sk.pods;
    const subnets = r.switches.length ? r.switches : sk.switches.map((s) => s.i);
    const logicalIp = type === 'snat' ? L.subnet4(at(subnets, n.logical) ?? 0) : at(pods, n.logical)?.ip4;
    // One rule per logical IP and kind on a router: two SNATs of one subnet (or two DNATs of one
    // address) become flows with the same match and priority, and which one OVN uses is undefined.
    const kindKey = `${r.j}|${type === 'snat' ? 'snat' : 'dnat'}|${logicalIp}`;
    if (logicalIp === undefined || usedLogical.has(kindKey)) continue;
    const idx = count.get(r.j) ?? 0;
    const externalIp = L.natExternalIp(r.j, idx);
    const pod = at(pods, n.logical);
    const distributed = type === 'dnat_and_snat' && n.distributed && r.kind === 'dgp' && pod !== undefined;
    const row: Tables['nat'] = {
      ...base,
      router: r.name,
      type,
      externalIp,
      logicalIp,
      ...(distributed ? { logicalPort: pod.name, externalMac: L.natMac(r.j, idx) } : {}),
    };
    if (!pushUnique(rows, 'nat', row)) continue;
    count.set(r.j, idx + 1);
    usedLogical.add(kindKey);
    const mac = distributed ? L.natMac(r.j, idx) : L.extLrpMac(r.j);
    out.push({ kind: 'nat-ext', ip: externalIp, router: r.name, macOn: { [L.extName(r.j)]: mac } });
  }
  return out;
}

function nexthopsOf(sk: Skeleton, j: number): string[] {
  const r = sk.routers[j];
  if (r === undefined) return [];
  return [
    ...r.links.map((l) => l.peerIp),
    ...(r.kind !== 'plain' ? [L.extUpstreamIp(j)] : []),
    ...sk.pods
      .filter((p) => r.switches.includes(p.i))
      .slice(0, 2)
      .map((p) => p.ip4),
    '10.99.99.1',
  ];
}

function routeRows(spec: TopoSpec, sk: Skeleton, rows: Rows): void {
  // A discard route and another route of one prefix (and table, and policy) become flows with the
  // same match and priority: which one OVN uses is undefined. Same-prefix next hops are ECMP.
  const route = (router: string, ipPrefix: string, nexthop: string, more: Partial<Tables['staticRoute']> = {}) => {
    const row: Tables['staticRoute'] = { ...base, router, ipPrefix, nexthop, routeTable: '', ...more };
    const same = rows.staticRoute.filter(
      (r) =>
        r.router === router &&
        r.ipPrefix === ipPrefix &&
        r.routeTable === row.routeTable &&
        (r.policy ?? 'dst-ip') === (row.policy ?? 'dst-ip'),
    );
    if (same.length > 0 && (nexthop === 'discard' || same.some((r) => r.nexthop === 'discard'))) return false;
    return pushUnique(rows, 'staticRoute', row);
  };
  for (const r of sk.routers) {
    if (r.kind !== 'plain' && r.defaultRoute) route(r.name, '0.0.0.0/0', L.extUpstreamIp(r.j));
    if (!spec.linkRoutes) continue;
    for (const l of r.links) {
      const far = sk.routers[l.peer]!;
      for (const i of far.switches) route(r.name, L.subnet4(i), l.peerIp);
      if (far.kind !== 'plain') route(r.name, L.extSubnet(far.j), l.peerIp);
    }
  }
  for (const rs of spec.routes) {
    const r = at(sk.routers, rs.router);
    if (r === undefined) continue;
    const own = r.switches.map(L.subnet4);
    const others = sk.switches.filter((s) => !r.switches.includes(s.i)).map((s) => L.subnet4(s.i));
    // No src-ip 0.0.0.0/0: northd gives it lflow priority 0, the priority of lr_in_ip_routing's
    // default drop (`1`), so which one a packet hits is undefined in OVN (ovn-trace picks either).
    const prefixes = rs.srcIp
      ? [...own, ...others, ...sk.pods.slice(0, 2).map((p) => `${p.ip4}/32`)]
      : ['0.0.0.0/0', '8.8.8.0/24', '10.99.0.0/16', ...others, ...sk.pods.slice(0, 2).map((p) => `${p.ip4}/32`)];
    const hops = [...nexthopsOf(sk, r.j), 'discard'];
    const prefix = at(prefixes, rs.prefix)!;
    const more = { ...(rs.srcIp ? { policy: 'src-ip' as const } : {}), routeTable: rs.routeTable ? 'rtb-a' : '' };
    const first = at(hops, rs.nexthop)!;
    route(r.name, prefix, first, more);
    const second = at(hops, rs.nexthop + 1)!;
    if (rs.ecmp && second !== first && second !== 'discard' && first !== 'discard') route(r.name, prefix, second, more);
  }
}

const POLICY_PRIORITIES = [31000, 29000, 1000, 100];

function policyRows(spec: TopoSpec, sk: Skeleton, rows: Rows, pools: MatchPools): void {
  const usedPriorities = new Set<string>();
  for (const p of spec.policies) {
    const r = at(sk.routers, p.router);
    if (r === undefined) continue;
    const hops = nexthopsOf(sk, r.j);
    let action = (['allow', 'drop', 'reroute'] as const)[p.action % 3]!;
    const nexthops =
      action === 'reroute'
        ? [...new Set(p.nexthops.slice(0, 2).flatMap((n) => (hops.length ? [hops[n % hops.length]!] : [])))]
        : [];
    if (action === 'reroute' && nexthops.length === 0) action = 'allow';
    // One policy per priority and router: overlapping policies of one priority are in undefined order.
    let priority = p.priority < POLICY_PRIORITIES.length ? POLICY_PRIORITIES[p.priority]! : p.priority % 32768;
    while (usedPriorities.has(`${r.name}|${priority}`)) priority = (priority + 1) % 32768;
    usedPriorities.add(`${r.name}|${priority}`);
    pushUnique(rows, 'routerPolicy', {
      ...base,
      router: r.name,
      priority,
      match: matchOf(p.match, pools, false),
      action,
      nexthops,
    });
  }
}

/** Adds every rule row to `rows`; returns the VIPs and NAT external IPs created. */
export function materializeRules(spec: TopoSpec, sk: Skeleton, rows: Rows): RuleTargets {
  const pools = poolsOf(spec, sk, rows);
  aclRows(spec, sk, rows, pools);
  const vips = lbRows(spec, sk, rows);
  const natIps = natRows(spec, sk, rows);
  routeRows(spec, sk, rows);
  policyRows(spec, sk, rows, pools);
  return { vips, natIps };
}

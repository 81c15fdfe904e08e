/**
 * Compiling one logical switch: its ACLs (its own and those of every port
 * group with a port on it, as northd attaches them, each match read in the
 * switch's own environment), load balancer VIPs, QoS
 * rules, and the L2 tables (MAC → port, ARP/ND responder, router-owned IPs).
 */
import type { CompileStats, RowsByDatapath } from './by-datapath.ts';
import type { Issue } from '../../model/issues.ts';
import { printMatch, type MatchExpr } from '../../model/match/index.ts';
import { keyOf, type ACL, type LogicalSwitch, type Topology } from '../../model/topology/index.ts';
import { aclRequirement, byPriorityThenKey, indexAcls } from './acl-index.ts';
import { type IpKey, ipKey } from './addresses.ts';
import { compileVips, indexVips } from './lb.ts';
import { IntTable, IpTable } from './int-table.ts';
import { compilePredicate, namesPortGroup, type Predicate, type SimMatchEnv } from './match.ts';
import { aclRefusals } from './northd-text.ts';
import type {
  AclIndex,
  AclRefusals,
  AclRule,
  AclStage,
  LbBackend,
  LbVip,
  QosRule,
  RefusedFlow,
  RouterPortInfo,
  SwitchDp,
  SwitchPortInfo,
} from './types.ts';
import { appendAll } from '../../model/append.ts';
import { matchDeps, RuleMemo } from './remember.ts';

/** Shared across switches: an ACL whose match names no port group is compiled once for all of them. */
export interface AclCache {
  readonly byKey: Map<string, AclRule>;
  /** By ACL key: which of its flows OVN refuses (the same on every switch; null: none). */
  readonly refusals: Map<string, AclRefusals | null>;
}

/** Refusals depend on the ACL row alone (rows are immutable): kept across compiles while the row lives. */
const refusalsByRow = new WeakMap<ACL, AclRefusals | null>();

function refusalsOf(ctx: SwitchCompileContext, key: string, acl: ACL, matchText: string): AclRefusals | undefined {
  let r = ctx.aclCache.refusals.get(key) ?? refusalsByRow.get(acl);
  if (r === undefined) {
    r = aclRefusals(acl, matchText) ?? null;
    refusalsByRow.set(acl, r);
  }
  ctx.aclCache.refusals.set(key, r);
  return r ?? undefined;
}

function aclStage(acl: ACL): AclStage {
  if (acl.direction === 'to-lport') return 'out';
  return acl.options['apply-after-lb'] === 'true' ? 'after_lb' : 'in';
}

/** A match in this switch's environment: `@pg` is the group's members here (see match.ts). */
function switchPredicate(
  ctx: SwitchCompileContext,
  sw: string,
  expr: MatchExpr,
  where: readonly (string | number)[],
): Predicate {
  if (!namesPortGroup(expr)) return compilePredicate(expr, ctx.envs.base, where, ctx.issues);
  const scope = { datapath: `switch ${sw}`, groupExists: (name: string) => ctx.t.portGroup.has(name) };
  return compilePredicate(expr, ctx.envs.forSwitch(sw).env, where, ctx.issues, scope);
}

function compileAcl(acl: ACL, ctx: SwitchCompileContext, sw: string): AclRule {
  const key = keyOf('acl', acl);
  const perSwitch = namesPortGroup(acl.match);
  const cacheKey = perSwitch ? `${key}\u0000${sw}` : key;
  const hit = ctx.aclCache.byKey.get(cacheKey);
  if (hit) return hit;
  const local = ctx.envs.forSwitch(sw);
  const deps = matchDeps(acl.match, ctx.t, local.env, perSwitch ? local.portGroups : undefined);
  const rule = aclRules.get(acl, perSwitch ? sw : '', deps, ctx.issues, () => buildAcl(acl, ctx, sw, key, local));
  ctx.aclCache.byKey.set(cacheKey, rule);
  return rule;
}

/** ACL rules by row, kept across compiles while what they read is unchanged (remember.ts). */
export const aclRules = new RuleMemo<ACL, AclRule>();

function buildAcl(
  acl: ACL,
  ctx: SwitchCompileContext,
  sw: string,
  key: string,
  local: { readonly env: SimMatchEnv['base']; readonly portGroups: ReadonlyMap<string, readonly string[]> },
): AclRule {
  const req = aclRequirement(acl.match, local.portGroups, local.env);
  // The text kovn writes to NB (backends/ovn/nb/columns.ts): what northd pastes into its flows.
  const matchText = printMatch(acl.match);
  const priority = acl.priority + 1000;
  const refused = refusalsOf(ctx, key, acl, matchText);
  return {
    key,
    acl,
    stage: aclStage(acl),
    priority,
    test: switchPredicate(ctx, sw, acl.match, ['acl', key, 'match']),
    matchText,
    req,
    traceRule: {
      kind: 'acl',
      priority,
      rowPriority: acl.priority,
      key,
      ...(acl.name ? { name: acl.name } : {}),
      match: matchText,
    },
    ...(refused ? { refused } : {}),
  };
}

/** Port groups → switches their ports are on. */
export function portGroupSwitches(
  t: Topology,
  switchPorts: ReadonlyMap<string, SwitchPortInfo>,
): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const pg of t.portGroup.values()) {
    const sws = new Set<string>();
    for (const p of pg.ports) {
      const sp = switchPorts.get(p);
      if (sp) sws.add(sp.switch);
    }
    out.set(pg.name, sws);
  }
  return out;
}

export interface SwitchCompileContext {
  readonly t: Topology;
  readonly envs: SimMatchEnv;
  readonly switchPorts: ReadonlyMap<string, SwitchPortInfo>;
  readonly routerPorts: ReadonlyMap<string, RouterPortInfo>;
  readonly pgSwitches: ReadonlyMap<string, ReadonlySet<string>>;
  readonly aclCache: AclCache;
  /** Load balancer lists already compiled (see switchLbs). */
  readonly lbCache: Map<string, SwitchLbs>;
  /** Per router: IPs its ports own beyond their networks (NAT external IPs, LB VIPs). */
  readonly routerExtraIps: (router: string, port: RouterPortInfo) => readonly (number | bigint)[];
  /** Distributed dnat_and_snat rules of a router (external MAC and logical port). */
  readonly distributedNats: (router: string) => readonly { readonly mac: number; readonly logicalPort: string }[];
  readonly issues: Issue[];
  /** Each datapath's rows, grouped once (by-datapath.ts). */
  readonly rows: RowsByDatapath;
  readonly stats: CompileStats;
}

function switchAcls(ctx: SwitchCompileContext, sw: LogicalSwitch): AclRule[] {
  const out: AclRule[] = [];
  for (const acl of ctx.rows.acls.get(sw.name) ?? []) {
    ctx.stats.rulesScanned++;
    out.push(compileAcl(acl, ctx, sw.name));
  }
  return out;
}

function switchQos(ctx: SwitchCompileContext, sw: string): SwitchDp['qos'] {
  const rules: Record<'in' | 'out', QosRule[]> = { in: [], out: [] };
  for (const q of ctx.rows.qos.get(sw) ?? []) {
    ctx.stats.rulesScanned++;
    if (q.switch !== sw || q.action.dscp === undefined) continue;
    const key = keyOf('qos', q);
    rules[q.direction === 'from-lport' ? 'in' : 'out'].push({
      key,
      priority: q.priority,
      test: switchPredicate(ctx, sw, q.match, ['qos', key, 'match']),
      dscp: q.action.dscp,
    });
  }
  rules.in.sort((a, b) => b.priority - a.priority);
  rules.out.sort((a, b) => b.priority - a.priority);
  return rules;
}

interface L2Tables {
  macToPort: IntTable<SwitchPortInfo | null>;
  natMacs: Map<number, { port: string; logicalPort: string }>;
  unknownPorts: string[];
  arpTargets: Map<number, { port: string; mac: number }>;
  ndTargets: Map<bigint, { port: string; mac: number; router: boolean }>;
  routerOwnedIPs: Map<IpKey, string>;
  routerMacs: Set<number>;
}

function l2Tables(ctx: SwitchCompileContext, ports: readonly SwitchPortInfo[]): L2Tables {
  const tables: L2Tables = {
    macToPort: new IntTable(),
    natMacs: new Map(),
    unknownPorts: [],
    arpTargets: new Map(),
    ndTargets: new Map(),
    routerOwnedIPs: new Map(),
    routerMacs: new Set(),
  };
  for (const p of ports) {
    if (p.hasUnknown && p.enabled) tables.unknownPorts.push(p.name);
    const isRouter = p.type === 'router';
    for (const a of p.addresses) {
      // A router port of the same name shadows the switch port (compilePorts): its MAC leads nowhere.
      if (!tables.macToPort.has(a.mac)) tables.macToPort.set(a.mac, ctx.routerPorts.has(p.name) ? null : p);
      // northd answers ARP/ND only for ports without "unknown" (and never for external ports).
      if (p.hasUnknown || p.type === 'external') continue;
      for (const ip of a.ip4) if (!tables.arpTargets.has(ip)) tables.arpTargets.set(ip, { port: p.name, mac: a.mac });
      for (const ip of a.ip6)
        if (!tables.ndTargets.has(ip)) tables.ndTargets.set(ip, { port: p.name, mac: a.mac, router: isRouter });
    }
    const rp = p.routerPort === undefined ? undefined : ctx.routerPorts.get(p.routerPort);
    if (isRouter && rp?.enabled) {
      tables.routerMacs.add(rp.mac);
      for (const n of rp.networks) tables.routerOwnedIPs.set(ipKey(n.ip), p.name);
      for (const ip of ctx.routerExtraIps(rp.router, rp)) {
        if (!tables.routerOwnedIPs.has(ipKey(ip))) tables.routerOwnedIPs.set(ipKey(ip), p.name);
      }
      for (const n of rp.isDgp ? ctx.distributedNats(rp.router) : []) {
        tables.natMacs.set(n.mac, { port: p.name, logicalPort: n.logicalPort });
      }
    }
  }
  return tables;
}

/** The pre-ACL bypass tries them by priority, ties in row order (a stable sort). */
function statelessOf(rules: readonly AclRule[], dir: 'in' | 'out'): AclIndex {
  return indexAcls(
    rules
      .filter((r) => r.acl.action === 'allow-stateless' && (dir === 'out') === (r.stage === 'out'))
      .sort((a, b) => b.priority - a.priority),
  );
}

function refusedIssue(ctx: SwitchCompileContext, sw: string, r: AclRule, f: RefusedFlow, effect: string): void {
  ctx.issues.push({
    code: 'sim-flow-refused',
    path: ['acl', r.key, 'match'],
    message: `acl ${r.key} on switch ${sw}: northd writes its ${f.stage} flow as match ${JSON.stringify(f.match)}, actions ${JSON.stringify(f.actions)}, which OVN refuses (${f.reason}); ovn-controller skips it: ${effect}`,
  });
}

/**
 * The ACLs whose flows OVN installs on this switch: the ACL-stage ones
 * (those of its kind, stateful or not) and the pre-ACL bypass ones.
 */
function installedAcls(
  ctx: SwitchCompileContext,
  sw: string,
  acls: readonly AclRule[],
  stateful: boolean,
): { acls: AclRule[]; bypass: AclRule[] } {
  const out: AclRule[] = [];
  const bypass: AclRule[] = [];
  for (const r of acls) {
    const stage = stateful ? r.refused?.stateful : r.refused?.plain;
    if (stage === undefined) out.push(r);
    else refusedIssue(ctx, sw, r, stage, 'the ACL never matches there');
    if (r.refused?.preAcl === undefined) bypass.push(r);
    else if (stateful) refusedIssue(ctx, sw, r, r.refused.preAcl, 'its packets are not exempted from conntrack');
  }
  return { acls: out, bypass };
}

function backendIndex(vips: readonly LbVip[]): Map<IpKey, { vip: LbVip; backend: LbBackend }[]> {
  const out = new Map<IpKey, { vip: LbVip; backend: LbBackend }[]>();
  for (const vip of vips) {
    for (const backend of vip.backends) {
      const list = out.get(ipKey(backend.ip)) ?? [];
      list.push({ vip, backend });
      out.set(ipKey(backend.ip), list);
    }
  }
  return out;
}

/**
 * The VIP tables of a list of load balancers, shared by every switch with that list (Kube-OVN attaches the same ones
 * to all).
 */
export interface SwitchLbs {
  readonly count: number;
  readonly vips: SwitchDp['vips'];
  readonly vipTable: SwitchDp['vipTable'];
  readonly lbBackends: SwitchDp['lbBackends'];
  /** What compiling them reported (reported again for each switch, as when each compiled its own). */
  readonly issues: readonly Issue[];
}

function switchLbs(ctx: SwitchCompileContext, names: readonly string[]): SwitchLbs {
  const key = names.join('\u0000');
  let hit = ctx.lbCache.get(key);
  if (hit === undefined) {
    const issues: Issue[] = [];
    const vips: LbVip[] = [];
    for (const lbName of names) {
      const lb = ctx.t.loadBalancer.get(lbName);
      if (lb) appendAll(vips, compileVips(lb, issues));
    }
    const index = indexVips(vips);
    hit = {
      count: vips.length,
      vips: index,
      vipTable: IpTable.of(index),
      lbBackends: IpTable.of(backendIndex(vips)),
      issues,
    };
    ctx.lbCache.set(key, hit);
  }
  for (const i of hit.issues) ctx.issues.push({ ...i });
  return hit;
}

export function compileSwitch(ctx: SwitchCompileContext, sw: LogicalSwitch): SwitchDp {
  const ports = ctx.rows.switchPorts.get(sw.name) ?? [];
  ctx.stats.portsScanned += ports.length;
  const acls = switchAcls(ctx, sw);
  const lbs = switchLbs(ctx, sw.loadBalancers);
  const hasStatefulAcl = acls.some((r) => r.acl.action === 'allow-related');
  const installed = installedAcls(ctx, sw.name, acls, hasStatefulAcl || lbs.count > 0);
  const byStage = (s: AclStage) => indexAcls(installed.acls.filter((r) => r.stage === s).sort(byPriorityThenKey));
  return {
    kind: 'switch',
    name: sw.name,
    ports: ports.map((p) => p.name),
    routerPorts: ports.filter((p) => p.type === 'router' && p.routerPort !== undefined).map((p) => p.name),
    localnetPorts: ports.filter((p) => p.type === 'localnet').map((p) => p.name),
    // As northd's has_acls / has_stateful_acl: by the rows, whatever became of their flows.
    hasAcls: acls.length > 0,
    hasStatefulAcl,
    hasLbVip: lbs.count > 0,
    acls: { in: byStage('in'), after_lb: byStage('after_lb'), out: byStage('out') },
    statelessAcls: { in: statelessOf(installed.bypass, 'in'), out: statelessOf(installed.bypass, 'out') },
    vips: lbs.vips,
    vipTable: lbs.vipTable,
    lbBackends: lbs.lbBackends,
    qos: switchQos(ctx, sw.name),
    ...l2Tables(ctx, ports),
  };
}

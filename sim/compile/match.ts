/**
 * The bridge to model/match: the environments matches are evaluated in, and
 * compiled predicates over the pipeline's packet view.
 *
 * OVN 23.03 resolves the two kinds of set differently:
 * - `@pg` is per logical switch. northd writes one SB Port_Group per (group,
 *   switch with a member of it), named `<switch tunnel key>_<pg>`, holding
 *   only the members on that switch (build_port_group_lswitches,
 *   sync_port_groups), and ovn-controller / ovn-trace parse a flow of a
 *   datapath with that datapath's name (expr.c parse_port_group with
 *   dp_id). So on switch A, `@pg` means its members on A, and a flow naming
 *   a group with no member on A (or any group, on a router) fails to parse
 *   and is skipped whole: the match matches nothing, even under `!` or `||`.
 * - `$<pg>_ip4` / `$<pg>_ip6` are global: en-sync-sb.c fills them from the
 *   `addresses` (and dynamic addresses) of every port of the group, on
 *   whatever switch, through extract_lsp_addresses, so "router" and
 *   "unknown" entries add nothing.
 */
import { formatIPv4, formatIPv6 } from '../../model/addr/index.ts';
import type { Issue } from '../../model/issues.ts';
import {
  checkMatchEnv,
  compileMatch,
  referencedSets,
  type MatchEnv,
  type MatchExpr,
  type MatchPacket,
} from '../../model/match/index.ts';
import type { Topology } from '../../model/topology/index.ts';
import { parseLspAddress } from './addresses.ts';
import type { CompileOptions, SwitchPortInfo } from './types.ts';

export type { MatchPacket } from '../../model/match/index.ts';
export type Predicate = (p: MatchPacket) => boolean;

/** One logical switch's environment. */
export interface SwitchMatchEnv {
  readonly env: MatchEnv;
  /** Port group → its members on this switch; groups with none here are absent. */
  readonly portGroups: ReadonlyMap<string, readonly string[]>;
}

export interface SimMatchEnv {
  /** Address sets and the derived `$<pg>_ip4`/`$<pg>_ip6`, no port groups: a router's environment. */
  readonly base: MatchEnv;
  /** The environment of logical switch `sw`: `base` plus its share of each port group. */
  forSwitch(sw: string): SwitchMatchEnv;
}

/** The derived `$<pg>_ip4` / `$<pg>_ip6`, over every member of the group (build_port_group_address_set). */
function derived(t: Topology, switchPorts: ReadonlyMap<string, SwitchPortInfo>): MatchEnv['portGroupAddresses'] {
  const cache = new Map<string, readonly string[]>();
  return (pg, family) => {
    const group = t.portGroup.get(pg);
    if (group === undefined) return undefined;
    const key = `${pg}|${family}`;
    const hit = cache.get(key);
    if (hit) return hit;
    const out: string[] = [];
    for (const name of group.ports) {
      if (!switchPorts.has(name)) continue;
      // The NB entries themselves: a router port's networks are not the LSP's addresses.
      for (const entry of t.switchPort.get(name)?.addresses ?? []) {
        const a = parseLspAddress(entry);
        if (a === undefined) continue;
        if (family === 4) for (const ip of a.ip4) out.push(formatIPv4(ip));
        else for (const ip of a.ip6) out.push(formatIPv6(ip));
      }
    }
    cache.set(key, out);
    return out;
  };
}

/** Port group members by the switch they are on. */
function groupsBySwitch(
  t: Topology,
  switchPorts: ReadonlyMap<string, SwitchPortInfo>,
): Map<string, Map<string, string[]>> {
  const out = new Map<string, Map<string, string[]>>();
  for (const pg of t.portGroup.values()) {
    for (const name of pg.ports) {
      const sw = switchPorts.get(name)?.switch;
      if (sw === undefined) continue;
      const groups = out.get(sw) ?? new Map<string, string[]>();
      out.set(sw, groups);
      const members = groups.get(pg.name) ?? [];
      groups.set(pg.name, members);
      if (!members.includes(name)) members.push(name);
    }
  }
  return out;
}

/**
 * The match environments of a topology.
 *
 * @example
 * const envs = buildMatchEnv(t, switchPorts, options);
 * compileMatch(acl.match, envs.forSwitch('sw1').env) // `@pg` = the members of pg on sw1
 */
export function buildMatchEnv(
  t: Topology,
  switchPorts: ReadonlyMap<string, SwitchPortInfo>,
  opts: CompileOptions,
): SimMatchEnv {
  const addressSets = new Map<string, readonly string[]>();
  for (const as of t.addressSet.values()) addressSets.set(as.name, as.addresses);
  const base: MatchEnv = {
    addressSets,
    portGroupAddresses: derived(t, switchPorts),
    ...(opts.isChassisResident ? { isChassisResident: opts.isChassisResident } : {}),
  };
  const bySwitch = groupsBySwitch(t, switchPorts);
  const envs = new Map<string, SwitchMatchEnv>();
  return {
    base,
    forSwitch(sw) {
      let e = envs.get(sw);
      if (e === undefined) {
        const portGroups: ReadonlyMap<string, readonly string[]> = bySwitch.get(sw) ?? new Map();
        e = { env: { ...base, portGroups }, portGroups };
        envs.set(sw, e);
      }
      return e;
    },
  };
}

/** Whether a match names a port group (its meaning then depends on the datapath). */
export function namesPortGroup(expr: MatchExpr): boolean {
  return referencedSets(expr).portGroups.size > 0;
}

export interface PredicateScope {
  /** The datapath the flow is on, for messages. */
  readonly datapath: string;
  /** Port groups that exist at all (so "has no port here" is told from "does not exist"). */
  readonly groupExists: (name: string) => boolean;
}

/**
 * Compile a row's match. A match that names an unknown address set or port
 * group (or fails OVN's checks against their contents) never matches, as
 * ovn-controller skips such a flow; the reason is recorded as an issue.
 */
export function compilePredicate(
  expr: MatchExpr,
  env: MatchEnv,
  where: readonly (string | number)[],
  issues: Issue[],
  scope?: PredicateScope,
): Predicate {
  for (const problem of checkMatchEnv(expr, env)) {
    const local = problem.code === 'unknown-port-group' && scope !== undefined && scope.groupExists(problem.subject);
    const why = local
      ? `port group @${problem.subject} has no port on ${scope.datapath} (OVN resolves @groups per logical switch)`
      : problem.message;
    const on = scope === undefined ? '' : ` on ${scope.datapath}`;
    issues.push({
      code: 'sim-match-never',
      path: where,
      message: `${where.join('.')}${on}: ${why}; the match never matches`,
    });
  }
  return compileMatch(expr, env);
}

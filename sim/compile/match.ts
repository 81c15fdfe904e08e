/**
 * The bridge to model/match: the environment a match is evaluated in
 * (address sets, port groups, and the `$<pg>_ip4`/`$<pg>_ip6` sets northd
 * derives from the addresses of a port group's ports), and compiled
 * predicates over the pipeline's packet view.
 */
import { formatIPv4, formatIPv6 } from '../../model/addr/index.ts';
import type { Issue } from '../../model/issues.ts';
import { checkMatchEnv, compileMatch, type MatchEnv, type MatchExpr, type MatchPacket } from '../../model/match/index.ts';
import type { Topology } from '../../model/topology/index.ts';
import type { CompileOptions, SwitchPortInfo } from './types.ts';

export type { MatchPacket } from '../../model/match/index.ts';
export type Predicate = (p: MatchPacket) => boolean;

export interface SimMatchEnv {
  readonly env: MatchEnv;
  /** Port group → member ports (the same data as env.portGroups, as a Map). */
  readonly portGroups: ReadonlyMap<string, readonly string[]>;
}

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
      for (const a of switchPorts.get(name)?.addresses ?? []) {
        if (family === 4) for (const ip of a.ip4) out.push(formatIPv4(ip));
        else for (const ip of a.ip6) out.push(formatIPv6(ip));
      }
    }
    cache.set(key, out);
    return out;
  };
}

/** The match environment of a whole topology. */
export function buildMatchEnv(t: Topology, switchPorts: ReadonlyMap<string, SwitchPortInfo>, opts: CompileOptions): SimMatchEnv {
  const addressSets = new Map<string, readonly string[]>();
  for (const as of t.addressSet.values()) addressSets.set(as.name, as.addresses);
  const portGroups = new Map<string, readonly string[]>();
  for (const pg of t.portGroup.values()) portGroups.set(pg.name, pg.ports);
  const env: MatchEnv = {
    addressSets,
    portGroups,
    portGroupAddresses: derived(t, switchPorts),
    ...(opts.isChassisResident ? { isChassisResident: opts.isChassisResident } : {}),
  };
  return { env, portGroups };
}

/**
 * Compile a row's match. A match that names an unknown address set or port
 * group (or fails OVN's checks against their contents) never matches, as
 * ovn-controller skips such a flow; the reason is recorded as an issue.
 */
export function compilePredicate(expr: MatchExpr, env: MatchEnv, where: readonly (string | number)[], issues: Issue[]): Predicate {
  for (const problem of checkMatchEnv(expr, env)) {
    issues.push({ code: 'sim-match-never', path: where, message: `${where.join('.')}: ${problem.message}; the match never matches` });
  }
  return compileMatch(expr, env);
}

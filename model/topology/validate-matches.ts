/**
 * Matches checked against the topology they live in: OVN resolves `$set`
 * and `@group` when it compiles a logical flow, and a set whose contents do
 * not fit the field (`ip4.src == $as` with IPv6 entries) makes the flow
 * invalid, so the ACL or policy silently does nothing. Unknown names are
 * left to the reference check (`dangling-reference`); everything else the
 * match module's `checkMatchEnv` finds becomes `invalid-match`.
 */
import { tryParseIP } from '../addr/index.ts';
import { type MatchEnv, type MatchExpr, checkMatchEnv } from '../match/index.ts';
import type { TableName, Topology } from './types.ts';
import { type IssueSink, rowReport } from './validate-common.ts';

/**
 * The match environment of a topology: its address sets, its port groups,
 * and the derived `$<pg>_ip4`/`$<pg>_ip6` (the addresses in the `addresses`
 * of the group's ports, as northd fills them).
 *
 * @example checkMatchEnv(parseMatch('ip4.src == $pg_ip4'), matchEnvOf(t))
 */
export function matchEnvOf(t: Topology): MatchEnv {
  const addressSets = new Map<string, readonly string[]>();
  for (const [name, as] of t.addressSet) addressSets.set(name, as.addresses);
  const portGroups = new Map<string, readonly string[]>();
  for (const [name, pg] of t.portGroup) portGroups.set(name, pg.ports);
  const portGroupAddresses = (pg: string, family: 4 | 6): readonly string[] | undefined => {
    const group = t.portGroup.get(pg);
    if (!group) return undefined;
    return group.ports.flatMap((port) => portAddresses(t, port, family));
  };
  return { addressSets, portGroups, portGroupAddresses };
}

/** IPs of one family in a port's "MAC IP..." address entries. */
function portAddresses(t: Topology, port: string, family: 4 | 6): string[] {
  const lsp = t.switchPort.get(port);
  if (!lsp) return [];
  return lsp.addresses.flatMap((entry) =>
    entry
      .split(/\s+/)
      .slice(1)
      .filter((w) => tryParseIP(w)?.family === family),
  );
}

const UNKNOWN = new Set(['unknown-address-set', 'unknown-port-group']);

export function checkMatches(sink: IssueSink, t: Topology): void {
  const env = matchEnvOf(t);
  const check = (table: TableName, key: string, match: MatchExpr) => {
    for (const issue of checkMatchEnv(match, env)) {
      if (UNKNOWN.has(issue.code)) continue;
      rowReport(sink, table, key)(
        'invalid-match',
        ['match'],
        `is invalid in this topology (${issue.code}): ${issue.message}`,
      );
    }
  };
  for (const [key, r] of t.acl) check('acl', key, r.match);
  for (const [key, r] of t.qos) check('qos', key, r.match);
  for (const [key, r] of t.routerPolicy) check('routerPolicy', key, r.match);
}

/**
 * Rules compiled in an earlier compile, reused while nothing they read has
 * changed, so a recompile after a change does the work of the change (the
 * simulator's half of "cost follows the change", docs/architecture.md).
 *
 * A compiled rule (an ACL on a switch, a router policy) is a function of its
 * row, of the address sets and port groups its match names, and of the
 * datapath it is compiled for. Rows are immutable values (a change makes a
 * new row object, model/topology/apply.ts), so the row is remembered by
 * identity in a WeakMap (a deleted row takes its rules with it), and what the
 * match read is written down beside the rule as its dependencies: each named
 * address set's entries array (by identity: unchanged row, same array), a
 * derived `$pg_ip4`-style set by content, each named port group's existence
 * and its members on this switch by content. A rule is reused only when every
 * dependency is equal, and the issues its compile reported are reported again.
 * A match with `is_chassis_resident` depends on the compile's residency
 * options and is never remembered.
 */
import type { Issue } from '../../model/issues.ts';
import { type MatchEnv, referencedSets, type MatchExpr } from '../../model/match/index.ts';
import type { Topology } from '../../model/topology/index.ts';

interface Remembered<V> {
  readonly deps: readonly unknown[];
  readonly value: V;
  readonly issues: readonly Issue[];
}

function namesChassis(e: MatchExpr): boolean {
  switch (e.kind) {
    case 'chassis-resident':
      return true;
    case 'not':
      return namesChassis(e.expr);
    case 'and':
    case 'or':
      return e.args.some(namesChassis);
    default:
      return false;
  }
}

const refsByExpr = new WeakMap<MatchExpr, { addressSets: string[]; portGroups: string[] } | null>();

/** The sets and groups a match names, sorted; null when it cannot be remembered (is_chassis_resident). */
function refsOf(expr: MatchExpr): { addressSets: string[]; portGroups: string[] } | null {
  let r = refsByExpr.get(expr);
  if (r === undefined) {
    const s = referencedSets(expr);
    r = namesChassis(expr) ? null : { addressSets: [...s.addressSets].sort(), portGroups: [...s.portGroups].sort() };
    refsByExpr.set(expr, r);
  }
  return r;
}

/**
 * What compiling `expr` in `env` reads, as values to compare; undefined when
 * the rule must be compiled every time.
 */
export function matchDeps(
  expr: MatchExpr,
  t: Topology,
  env: MatchEnv,
  portGroups?: ReadonlyMap<string, readonly string[]>,
): unknown[] | undefined {
  const refs = refsOf(expr);
  if (refs === null) return undefined;
  const deps: unknown[] = [];
  for (const name of refs.addressSets) {
    const row = t.addressSet.get(name);
    if (row !== undefined) {
      deps.push(row.addresses);
      continue;
    }
    const m = /^(.+)_ip([46])$/.exec(name);
    const derived = m?.[1] ? env.portGroupAddresses?.(m[1], m[2] === '4' ? 4 : 6) : undefined;
    deps.push(derived === undefined ? null : derived.join('\n'));
  }
  for (const name of refs.portGroups) {
    deps.push(t.portGroup.has(name));
    const members = portGroups?.get(name);
    deps.push(members === undefined ? null : members.join('\n'));
  }
  return deps;
}

function sameDeps(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Rules of one kind remembered by row and scope (the datapath).
 *
 * @example
 * const acls = new RuleMemo<ACL, AclRule>();
 * const rule = acls.get(acl, 'sw1', matchDeps(acl.match, t, env), issues, () => compile(acl));
 */
export class RuleMemo<R extends object, V> {
  private readonly byRow = new WeakMap<R, Map<string, Remembered<V>>>();
  /** Rules reused and compiled so far (for tests and benchmarks). */
  readonly stats = { reused: 0, compiled: 0 };

  get(row: R, scope: string, deps: readonly unknown[] | undefined, issues: Issue[], build: () => V): V {
    let scopes = this.byRow.get(row);
    const hit = deps === undefined ? undefined : scopes?.get(scope);
    if (hit !== undefined && deps !== undefined && sameDeps(hit.deps, deps)) {
      this.stats.reused++;
      for (const i of hit.issues) issues.push(i);
      return hit.value;
    }
    this.stats.compiled++;
    const before = issues.length;
    const value = build();
    if (deps !== undefined) {
      if (scopes === undefined) this.byRow.set(row, (scopes = new Map()));
      scopes.set(scope, { deps, value, issues: issues.slice(before) });
    }
    return value;
  }
}

/**
 * The environment a match is evaluated in, and its resolution against one
 * match: the address sets and port groups it names, and the checks OVN can
 * make only with their contents (an IPv6 entry in a set compared with
 * `ip4.src` is a 128-bit constant for a 32-bit field).
 *
 * OVN semantics kept here: ovn-controller and ovn-trace parse each logical
 * flow with the current address sets and port groups; a flow whose match
 * names an unknown `$set` or `@group`, or fails any check, is skipped with a
 * warning. So such a match matches nothing, as a whole, even under `!` or
 * `||`. An empty address set is not unknown: `ip4.src == $empty` is false and
 * `ip4.src != $empty` true (and, being a constant, carries no prerequisite).
 */
import type { AddressSetRef, IntConstant, MatchExpr } from './ast.ts';
import { type CheckCode, checkComparison } from './checks.ts';
import { nextToken } from './lexer.ts';
import { forEachComparison, checkFieldRef } from './walk.ts';

export type NameMap<T> = ReadonlyMap<string, T> | Readonly<Record<string, T>>;

/**
 * What a match may refer to. Treat it as immutable: parsed address sets are
 * cached per env object (build a new env when the topology changes).
 *
 * @example
 * const env: MatchEnv = {
 *   addressSets: new Map([['np.default.ingress.allow.IPv4.0', ['10.16.0.5', '10.17.0.0/16']]]),
 *   portGroups: new Map([['ovn.default.np', ['web-0.default']]]),
 *   portGroupAddresses: (pg, family) => addressesOf(pg, family), // derived $pg_ip4 / $pg_ip6
 * };
 */
export interface MatchEnv {
  /** Address_Set name → entries as OVN stores them: "10.0.0.1", "10.16.0.0/16", "fd00::/64", MACs, integers. */
  readonly addressSets?: NameMap<readonly string[]>;
  /**
   * Port_Group name → member logical switch port names. OVN resolves `@pg`
   * per logical switch (northd writes one SB group per switch holding the
   * group's ports there): for a faithful verdict give the members on the
   * switch being evaluated, and leave out a group with none there, since
   * OVN then fails the flow, i.e. the whole match matches nothing.
   */
  readonly portGroups?: NameMap<readonly string[] | ReadonlySet<string>>;
  /**
   * The derived `$<pg>_ip4` / `$<pg>_ip6`: northd fills them from the IPv4 or
   * IPv6 addresses in the `addresses` of the group's ports. Return undefined
   * when there is no such port group. Consulted only for names that
   * `addressSets` lacks.
   */
  readonly portGroupAddresses?: (portGroup: string, family: 4 | 6) => readonly string[] | undefined;
  /** `is_chassis_resident(port)`; default true, as ovn-trace assumes for any existing port. */
  readonly isChassisResident?: (port: string) => boolean;
}

export type MatchEnvIssueCode = CheckCode | 'unknown-address-set' | 'unknown-port-group';

/** Why a match matches nothing in this environment. */
export interface MatchEnvIssue {
  readonly code: MatchEnvIssueCode;
  /** The field of the comparison concerned, or the set's name for unknown references. */
  readonly subject: string;
  readonly message: string;
}

interface EnvCache {
  readonly sets: Map<string, readonly IntConstant[] | null>;
  readonly groups: Map<string, ReadonlySet<string> | null>;
  /** Free slots for evaluators to memoize structures built from the sets (compile.ts). */
  readonly memo: Map<string, unknown>;
}

const caches = new WeakMap<MatchEnv, EnvCache>();

function cacheOf(env: MatchEnv): EnvCache {
  let c = caches.get(env);
  if (!c) {
    c = { sets: new Map(), groups: new Map(), memo: new Map() };
    caches.set(env, c);
  }
  return c;
}

function lookup<T>(m: NameMap<T> | undefined, name: string): T | undefined {
  if (m === undefined) return undefined;
  if (m instanceof Map) return (m as ReadonlyMap<string, T>).get(name);
  return Object.hasOwn(m, name) ? (m as Readonly<Record<string, T>>)[name] : undefined;
}

/**
 * One Address_Set entry as OVN reads it (expr_constant_set_create_integers):
 * the first token must be an integer, possibly masked; other entries are skipped.
 *
 * @example parseAddressSetEntry('10.16.0.0/16') // { kind: 'int', value: 0x0a100000n, format: 'ipv4', mask: 0xffff0000n }
 */
export function parseAddressSetEntry(entry: string): IntConstant | undefined {
  const t = nextToken(entry, 0);
  if (t.type !== 'int' || t.value === undefined || t.format === undefined) return undefined;
  return t.mask === undefined
    ? { kind: 'int', value: t.value, format: t.format }
    : { kind: 'int', value: t.value, format: t.format, mask: t.mask };
}

/** OVN sorts a set's values (by value, masked before unmasked, then by mask); ordinal checks look at the first. */
function compareConstants(a: IntConstant, b: IntConstant): number {
  if (a.value !== b.value) return a.value < b.value ? -1 : 1;
  if (a.mask === undefined || b.mask === undefined)
    return (a.mask === undefined ? 1 : 0) - (b.mask === undefined ? 1 : 0);
  return a.mask < b.mask ? -1 : a.mask > b.mask ? 1 : 0;
}

/** The parsed, sorted values of `$name`, or undefined when the set is unknown. */
export function addressSetValues(env: MatchEnv, name: string): readonly IntConstant[] | undefined {
  const cache = cacheOf(env);
  const hit = cache.sets.get(name);
  if (hit !== undefined) return hit ?? undefined;
  let entries = lookup(env.addressSets, name);
  if (entries === undefined && env.portGroupAddresses) {
    const m = /^(.+)_ip([46])$/.exec(name);
    if (m?.[1]) entries = env.portGroupAddresses(m[1], m[2] === '4' ? 4 : 6);
  }
  const values = entries === undefined ? undefined : parsedEntries(entries);
  cache.sets.set(name, values ?? null);
  return values;
}

/**
 * A set's entries parsed and sorted, remembered by the entries array itself:
 * rows are immutable, so an address set no change touched is parsed once,
 * not once per environment (a simulator recompiling after a change keeps
 * the parse of every set the change left alone).
 */
const parsedSets = new WeakMap<readonly string[], readonly IntConstant[]>();

function parsedEntries(entries: readonly string[]): readonly IntConstant[] {
  let values = parsedSets.get(entries);
  if (values === undefined) {
    values = entries.flatMap((e) => parseAddressSetEntry(e) ?? []).sort(compareConstants);
    parsedSets.set(entries, values);
  }
  return values;
}

/** The ports of `@name`, or undefined when the group is unknown. */
export function portGroupMembers(env: MatchEnv, name: string): ReadonlySet<string> | undefined {
  const cache = cacheOf(env);
  const hit = cache.groups.get(name);
  if (hit !== undefined) return hit ?? undefined;
  const ports = lookup(env.portGroups, name);
  const set =
    ports === undefined
      ? undefined
      : ports instanceof Set
        ? (ports as ReadonlySet<string>)
        : new Set(ports as readonly string[]);
  cache.groups.set(name, set ?? null);
  return set;
}

/** A per-env memo slot for structures derived from its sets (see compile.ts). */
export function envMemo<T>(env: MatchEnv, key: string, build: () => T): T {
  const memo = cacheOf(env).memo;
  if (memo.has(key)) return memo.get(key) as T;
  const v = build();
  memo.set(key, v);
  return v;
}

/**
 * Every reason `expr` matches nothing in `env`: unknown sets or groups, set
 * contents that fail OVN's checks, and (for hand-built ASTs) anything the
 * parser would have rejected in a comparison. Empty means the match is live.
 *
 * @example checkMatchEnv(parseMatch('ip4.src == $nope'), {})
 * // [{ code: 'unknown-address-set', subject: 'nope', ... }]
 */
export function checkMatchEnv(expr: MatchExpr, env: MatchEnv): MatchEnvIssue[] {
  const issues: MatchEnvIssue[] = [];
  const expand = (ref: AddressSetRef) => addressSetValues(env, ref.name) ?? [];
  forEachComparison(expr, (c) => {
    const items = c.value.kind === 'set' ? c.value.items : [c.value];
    if (items.length === 0) {
      issues.push({ code: 'syntax-error', subject: c.field.name, message: 'a written set needs at least one element' });
      return;
    }
    let known = true;
    for (const it of items) {
      if (it.kind === 'address-set' && addressSetValues(env, it.name) === undefined) {
        issues.push({
          code: 'unknown-address-set',
          subject: it.name,
          message: `address set $${it.name} does not exist`,
        });
        known = false;
      } else if (it.kind === 'port-group' && portGroupMembers(env, it.name) === undefined) {
        issues.push({ code: 'unknown-port-group', subject: it.name, message: `port group @${it.name} does not exist` });
        known = false;
      }
    }
    const symbol = checkFieldRef(c);
    const problem =
      'code' in symbol
        ? symbol
        : known
          ? checkComparison({ symbol, op: c.op, value: c.value, negated: c.negated }, expand)
          : undefined;
    if (problem) issues.push({ code: problem.code, subject: c.field.name, message: problem.message });
  });
  return issues;
}

/**
 * References between rows, by name, and the check that they resolve.
 *
 * Every reference points from a later table to an earlier one in
 * TABLE_ORDER (the plan's ordering rests on that). Router port `peer` is
 * left out: it is a same-table, symmetric string that `validate.ts` checks
 * on the whole topology. So is `parentName` (a plain string in NB: a
 * container port may name a parent that comes later).
 *
 * Address sets and port groups named in a match (`$as`, `@pg`, and the
 * derived `$pg_ip4`/`$pg_ip6`) count as references: OVN refuses a logical
 * flow whose match names a set that does not exist, so the ACL silently
 * does nothing.
 */
import type { Issue } from '../issues.ts';
import type { Constant, MatchExpr, MatchValue } from '../match/index.ts';
import { TABLE_ORDER, type TableName, type Tables, type Topology } from './types.ts';
import { label } from './validate-common.ts';

export interface RefTarget {
  readonly table: TableName;
  readonly name: string;
}

export interface Reference {
  /** Path inside the row to the referring field, e.g. ['loadBalancers', 2]. */
  readonly path: readonly (string | number)[];
  /** The reference resolves if any one of these rows exists. */
  readonly targets: readonly RefTarget[];
}

type RefFns = { readonly [T in TableName]: (row: Tables[T]) => Reference[] };

const one = (path: (string | number)[], table: TableName, name: string): Reference => ({
  path,
  targets: [{ table, name }],
});
const each = (field: string, table: TableName, names: readonly string[]): Reference[] =>
  names.map((name, i) => one([field, i], table, name));
const opt = (field: string, table: TableName, name: string | undefined): Reference[] =>
  name === undefined ? [] : [one([field], table, name)];

const REF_FNS: RefFns = {
  dhcpOptions: () => [],
  addressSet: () => [],
  loadBalancer: () => [],
  switch: (r) => each('loadBalancers', 'loadBalancer', r.loadBalancers),
  router: (r) => each('loadBalancers', 'loadBalancer', r.loadBalancers),
  routerPort: (r) => [one(['router'], 'router', r.router)],
  switchPort: (r) => [
    one(['switch'], 'switch', r.switch),
    ...opt('dhcpv4Options', 'dhcpOptions', r.dhcpv4Options),
    ...opt('dhcpv6Options', 'dhcpOptions', r.dhcpv6Options),
    ...(r.type === 'router' && r.options['router-port'] !== undefined
      ? [one(['options', 'router-port'], 'routerPort', r.options['router-port'])]
      : []),
  ],
  portGroup: (r) => each('ports', 'switchPort', r.ports),
  acl: (r) => [
    one(['attachTo', 'name'], r.attachTo.kind === 'switch' ? 'switch' : 'portGroup', r.attachTo.name),
    ...matchReferences(r.match),
  ],
  qos: (r) => [one(['switch'], 'switch', r.switch), ...matchReferences(r.match)],
  nat: (r) => [
    one(['router'], 'router', r.router),
    ...opt('logicalPort', 'switchPort', r.logicalPort),
    ...opt('gatewayPort', 'routerPort', r.gatewayPort),
  ],
  staticRoute: (r) => [one(['router'], 'router', r.router), ...opt('outputPort', 'routerPort', r.outputPort)],
  routerPolicy: (r) => [one(['router'], 'router', r.router), ...matchReferences(r.match)],
};

/**
 * The references a row makes.
 *
 * @example referencesOf('portGroup', { name: 'pg', ports: ['a'], externalIds: {} })
 * // [{ path: ['ports', 0], targets: [{ table: 'switchPort', name: 'a' }] }]
 */
export function referencesOf<T extends TableName>(table: T, row: Tables[T]): Reference[] {
  return (REF_FNS[table] as (r: Tables[T]) => Reference[])(row);
}

/**
 * The address sets (`$name`) and port groups (`@name`) a match names, in
 * text order. `$<pg>_ip4`/`$<pg>_ip6` resolve to an address set of that name
 * or to port group `<pg>`.
 *
 * @example matchReferences(parseMatch('outport == @pg && ip4.src == $pg_ip4'))
 * // [{ path: ['match'], targets: [{ table: 'portGroup', name: 'pg' }] },
 * //  { path: ['match'], targets: [{ table: 'addressSet', name: 'pg_ip4' }, { table: 'portGroup', name: 'pg' }] }]
 */
export function matchReferences(match: MatchExpr): Reference[] {
  const refs: Reference[] = [];
  const constant = (c: Constant): void => {
    if (c.kind === 'port-group') refs.push(one(['match'], 'portGroup', c.name));
    if (c.kind !== 'address-set') return;
    const targets: RefTarget[] = [{ table: 'addressSet', name: c.name }];
    const derived = /^(.+)_ip[46]$/.exec(c.name);
    if (derived?.[1]) targets.push({ table: 'portGroup', name: derived[1] });
    refs.push({ path: ['match'], targets });
  };
  const value = (v: MatchValue): void => (v.kind === 'set' ? v.items.forEach(constant) : constant(v));
  const walk = (e: MatchExpr): void => {
    switch (e.kind) {
      case 'cmp':
        return value(e.value);
      case 'range':
        constant(e.low.value);
        return constant(e.high.value);
      case 'not':
        return walk(e.expr);
      case 'and':
      case 'or':
        return e.args.forEach(walk);
      default:
        return;
    }
  };
  walk(match);
  return refs;
}

/**
 * Every reference of `t` that names no existing row, as `dangling-reference`
 * issues. The check a plan keeps true at every step (see `plan.ts`).
 *
 * @example validateReferences(t) // [{ code: 'dangling-reference', path: ['switchPort', 'web-0.default', 'switch'], ... }]
 */
export function validateReferences(t: Topology): Issue[] {
  const issues: Issue[] = [];
  for (const table of TABLE_ORDER) {
    for (const [key, row] of t[table] as ReadonlyMap<string, Tables[typeof table]>) {
      for (const ref of referencesOf(table, row)) {
        if (ref.targets.some((x) => t[x.table].has(x.name))) continue;
        const [first] = ref.targets;
        issues.push({
          code: 'dangling-reference',
          path: [table, key, ...ref.path],
          message: `${label(table, key, ref.path)} names ${first?.table} ${JSON.stringify(first?.name)}, which does not exist`,
        });
      }
    }
  }
  return issues;
}

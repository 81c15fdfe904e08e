/**
 * References between rows, by name, and the check that they resolve. Which
 * fields are references is read from the table descriptions (`tables.ts`).
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
import { appendAll } from '../append.ts';
import { type FieldSpec, type ParentSpec, TABLE_ORDER, tableSpec } from './tables.ts';
import type { TableName, Tables, Topology } from './types.ts';
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

type RefFn = (row: Readonly<Record<string, unknown>>, out: Reference[]) => void;

const one = (path: (string | number)[], table: TableName, name: string): Reference => ({
  path,
  targets: [{ table, name }],
});

/** The reference finder of one field, from its description; undefined for a field that names nothing. */
function fieldRefs(field: string, spec: FieldSpec): RefFn | undefined {
  if (spec.kind === 'match') return (r, out) => appendAll(out, matchReferences(r[field] as MatchExpr));
  const ref = spec.ref;
  if (ref === undefined) return undefined;
  if (ref.by === 'option')
    return (r, out) => {
      const name = (r[field] as Readonly<Record<string, string>>)[ref.option];
      if (r[ref.when.field] === ref.when.equals && name !== undefined)
        out.push(one([field, ref.option], ref.table, name));
    };
  if (spec.kind === 'set')
    return (r, out) => (r[field] as readonly string[]).forEach((name, i) => out.push(one([field, i], ref.table, name)));
  return (r, out) => {
    const name = r[field] as string | undefined;
    if (name !== undefined) out.push(one([field], ref.table, name));
  };
}

/** The parent link as a reference (`attachTo` names its table by kind). */
function parentRefs(p: ParentSpec): RefFn {
  return (r, out) => {
    const v = r[p.field];
    if (typeof v === 'string') out.push(one([p.field], (p.slots[0] as ParentSpec['slots'][number]).table, v));
    else {
      const link = v as { readonly kind: string; readonly name: string };
      const slot = p.slots.find((s) => s.kind === link.kind) ?? p.slots[0];
      if (slot !== undefined) out.push(one([p.field, 'name'], slot.table, link.name));
    }
  };
}

/** Per table, the finders of its references: the parent link, then fields in order, references in map options last. */
const REF_FNS = Object.fromEntries(
  TABLE_ORDER.map((table) => {
    const spec = tableSpec(table);
    const fns: RefFn[] = spec.parent === undefined ? [] : [parentRefs(spec.parent)];
    const options: RefFn[] = [];
    for (const [field, f] of Object.entries(spec.fields as Readonly<Record<string, FieldSpec>>)) {
      const fn = fieldRefs(field, f);
      if (fn !== undefined) (f.ref?.by === 'option' ? options : fns).push(fn);
    }
    return [table, [...fns, ...options]];
  }),
) as unknown as Readonly<Record<TableName, readonly RefFn[]>>;

/**
 * The references a row makes.
 *
 * @example referencesOf('portGroup', { name: 'pg', ports: ['a'], externalIds: {} })
 * // [{ path: ['ports', 0], targets: [{ table: 'switchPort', name: 'a' }] }]
 */
export function referencesOf<T extends TableName>(table: T, row: Tables[T]): Reference[] {
  const out: Reference[] = [];
  for (const fn of REF_FNS[table]) fn(row as unknown as Readonly<Record<string, unknown>>, out);
  return out;
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

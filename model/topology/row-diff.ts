/**
 * Column-wise comparison of two rows of one table, with NB semantics: set
 * columns compare as sets (order and repeats do not matter, as in OVSDB), map
 * columns by their entries, matches by their canonical text, and an optional
 * column that is absent equals one that is present with value `undefined`.
 *
 * The column kinds below are exhaustive per table (the mapped type forces an
 * entry for every field), so adding a field to `types.ts` without saying how
 * to compare it fails to type-check.
 */
import { type MatchExpr, printMatch } from '../match/index.ts';
import type { TableName, Tables } from './types.ts';

/**
 * - `scalar`: string, number, boolean or undefined, compared with `===`.
 * - `set`: an NB set of strings.
 * - `map`: an NB map (or a small record such as `attachTo`), compared by entries; an entry whose value is undefined
 *   is absent.
 * - `match`: a {@link MatchExpr}, compared by its canonical printed form (the form written to NB).
 * - `rowSet`: a set of small records (gateway chassis), compared as a set of entry lists.
 */
export type ColumnKind = 'scalar' | 'set' | 'map' | 'match' | 'rowSet';

type TableColumns = { readonly [T in TableName]: { readonly [K in keyof Tables[T]]-?: ColumnKind } };

const ATTRS = 'map';

/** How each field of each table compares. */
export const COLUMNS: TableColumns = {
  switch: { name: 'scalar', loadBalancers: 'set', otherConfig: ATTRS, externalIds: ATTRS },
  switchPort: {
    name: 'scalar',
    switch: 'scalar',
    type: 'scalar',
    addresses: 'set',
    portSecurity: 'set',
    options: ATTRS,
    enabled: 'scalar',
    parentName: 'scalar',
    tagRequest: 'scalar',
    dhcpv4Options: 'scalar',
    dhcpv6Options: 'scalar',
    externalIds: ATTRS,
  },
  router: { name: 'scalar', enabled: 'scalar', options: ATTRS, loadBalancers: 'set', externalIds: ATTRS },
  routerPort: {
    name: 'scalar',
    router: 'scalar',
    mac: 'scalar',
    networks: 'set',
    peer: 'scalar',
    enabled: 'scalar',
    gatewayChassis: 'rowSet',
    options: ATTRS,
    ipv6RaConfigs: ATTRS,
    externalIds: ATTRS,
  },
  acl: {
    attachTo: 'map',
    direction: 'scalar',
    priority: 'scalar',
    match: 'match',
    action: 'scalar',
    name: 'scalar',
    log: 'scalar',
    severity: 'scalar',
    meter: 'scalar',
    label: 'scalar',
    options: ATTRS,
    externalIds: ATTRS,
  },
  addressSet: { name: 'scalar', addresses: 'set', externalIds: ATTRS },
  portGroup: { name: 'scalar', ports: 'set', externalIds: ATTRS },
  loadBalancer: {
    name: 'scalar',
    vips: ATTRS,
    protocol: 'scalar',
    selectionFields: 'set',
    options: ATTRS,
    externalIds: ATTRS,
  },
  nat: {
    router: 'scalar',
    type: 'scalar',
    externalIp: 'scalar',
    logicalIp: 'scalar',
    logicalPort: 'scalar',
    externalMac: 'scalar',
    externalPortRange: 'scalar',
    gatewayPort: 'scalar',
    options: ATTRS,
    externalIds: ATTRS,
  },
  staticRoute: {
    router: 'scalar',
    ipPrefix: 'scalar',
    nexthop: 'scalar',
    policy: 'scalar',
    outputPort: 'scalar',
    routeTable: 'scalar',
    options: ATTRS,
    externalIds: ATTRS,
  },
  routerPolicy: {
    router: 'scalar',
    priority: 'scalar',
    match: 'match',
    action: 'scalar',
    nexthops: 'set',
    options: ATTRS,
    externalIds: ATTRS,
  },
  qos: {
    switch: 'scalar',
    direction: 'scalar',
    priority: 'scalar',
    match: 'match',
    action: 'map',
    bandwidth: 'map',
    externalIds: ATTRS,
  },
  dhcpOptions: { name: 'scalar', cidr: 'scalar', options: ATTRS, externalIds: ATTRS },
};

/**
 * Deep equality of two rows of `table` with NB semantics (see the file header).
 *
 * @example
 * rowsEqual('addressSet', { name: 'a', addresses: ['10.0.0.1', '10.0.0.2'], externalIds: {} },
 *                         { name: 'a', addresses: ['10.0.0.2', '10.0.0.1'], externalIds: {} }) // true
 */
export function rowsEqual<T extends TableName>(table: T, a: Tables[T], b: Tables[T]): boolean {
  if (a === b) return true;
  const cols = COLUMNS[table] as Readonly<Record<string, ColumnKind>>;
  const ra = a as unknown as Readonly<Record<string, unknown>>;
  const rb = b as unknown as Readonly<Record<string, unknown>>;
  for (const field in cols) {
    if (!valuesEqual(cols[field] as ColumnKind, ra[field], rb[field])) return false;
  }
  return true;
}

/**
 * The fields of `to` that differ from `from`, with `to`'s values; a field set
 * in `from` and unset in `to` is present with value `undefined`. Returns
 * undefined when the rows are equal.
 *
 * @example diffRow('router', r, { ...r, enabled: false }) // { enabled: false }
 */
export function diffRow<T extends TableName>(table: T, from: Tables[T], to: Tables[T]): Partial<Tables[T]> | undefined {
  if (from === to) return undefined;
  const cols = COLUMNS[table] as Readonly<Record<string, ColumnKind>>;
  const ra = from as unknown as Readonly<Record<string, unknown>>;
  const rb = to as unknown as Readonly<Record<string, unknown>>;
  let changes: Record<string, unknown> | undefined;
  for (const field in cols) {
    if (valuesEqual(cols[field] as ColumnKind, ra[field], rb[field])) continue;
    changes ??= {};
    changes[field] = rb[field];
  }
  return changes as Partial<Tables[T]> | undefined;
}

function valuesEqual(kind: ColumnKind, a: unknown, b: unknown): boolean {
  if (a === b) return true;
  switch (kind) {
    case 'scalar':
      return false;
    case 'set':
      return setsEqual((a ?? []) as readonly string[], (b ?? []) as readonly string[]);
    case 'map':
      return mapsEqual((a ?? {}) as Readonly<Record<string, unknown>>, (b ?? {}) as Readonly<Record<string, unknown>>);
    case 'match':
      return a !== undefined && b !== undefined && printMatch(a as MatchExpr) === printMatch(b as MatchExpr);
    case 'rowSet':
      return setsEqual(rowSetKeys(a), rowSetKeys(b));
  }
}

function setsEqual(a: readonly string[], b: readonly string[]): boolean {
  // Fast path: the same elements in the same order (the usual case).
  if (a.length === b.length && a.every((x, i) => x === b[i])) return true;
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size !== sb.size) return false;
  for (const x of sa) if (!sb.has(x)) return false;
  return true;
}

function mapsEqual(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  let na = 0;
  for (const k in a) {
    if (a[k] === undefined) continue;
    na++;
    if (a[k] !== b[k]) return false;
  }
  let nb = 0;
  for (const k in b) if (b[k] !== undefined) nb++;
  return na === nb;
}

/** Each record as a canonical string of its defined entries, sorted by field. */
function rowSetKeys(v: unknown): string[] {
  const rows = (v ?? []) as readonly Readonly<Record<string, unknown>>[];
  return rows.map((r) =>
    JSON.stringify(
      Object.keys(r)
        .filter((k) => r[k] !== undefined)
        .sort()
        .map((k) => [k, r[k]]),
    ),
  );
}

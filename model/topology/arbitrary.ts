/**
 * fast-check arbitraries of valid topologies (`validateTopology` returns no
 * issue for them) and of pairs (a, b) where b is a random edit of a: rows
 * added, removed, changed, set columns reordered. For the diff properties
 * here and the backends' round-trip tests. Not exported from `index.ts`
 * (fast-check is a test dependency of the model, not a runtime one).
 *
 * How: draw a {@link Shape}, then a universe of candidate rows (each with
 * one or two variants of its non-key columns, see "Candidate rows" below), then
 * a selection (which candidates, which variant). Materializing a selection
 * keeps it valid by construction: set references (port group ports, load
 * balancer lists) are filtered to the selected rows, a row with any other
 * unresolved reference is dropped (a port whose switch is not selected), a
 * peer whose partner is gone is cleared. A pair is two selections of one
 * universe that mostly agree.
 *
 * The candidate rows themselves are in arbitrary-rows.ts.
 */
import fc from 'fast-check';
import { keyOf } from './keys.ts';
import { referencesOf } from './refs.ts';
import { TABLE_ORDER } from './tables.ts';
import type { TableName, Tables, Topology } from './types.ts';
import {
  type Candidates,
  type Shape,
  type Universe,
  dhcpCandidates,
  addressSetCandidates,
  loadBalancerCandidates,
  switchCandidates,
  routerCandidates,
  routerPortCandidates,
  switchPortCandidates,
  portGroupCandidates,
  aclCandidates,
  qosCandidates,
  natCandidates,
  staticRouteCandidates,
  routerPolicyCandidates,
} from './arbitrary-rows.ts';

export type { Candidates, Shape, Universe } from './arbitrary-rows.ts';
export { matchArbitrary } from './arbitrary-rows.ts';

export interface ArbitraryTopologyOptions {
  /** Default 4. */
  readonly maxSwitches?: number;
  /** Default 3. */
  readonly maxRouters?: number;
  /** Pod ports per switch, default 4. */
  readonly maxPortsPerSwitch?: number;
  /** Default 6. */
  readonly maxAcls?: number;
  /**
   * Also draw a third of the ACL, QoS and policy matches from the match
   * module's AST generator (odd but valid OVN matches; only those naming no
   * set). Default false: the realistic matches only.
   */
  readonly randomMatches?: boolean;
}

export function arbitraryShape(opts: ArbitraryTopologyOptions = {}): fc.Arbitrary<Shape> {
  const maxRouters = opts.maxRouters ?? 3;
  return fc.integer({ min: 0, max: maxRouters }).chain((routers) =>
    fc.record({
      switches: fc.array(
        fc.record({
          v6: fc.boolean(),
          router: routers === 0 ? fc.constant(null) : fc.option(fc.nat(routers - 1)),
          ports: fc.nat(opts.maxPortsPerSwitch ?? 4),
          dhcp: fc.boolean(),
          localnet: fc.nat(4).map((n) => n === 0),
        }),
        { maxLength: opts.maxSwitches ?? 4 },
      ),
      routers: fc.constant(routers),
      links:
        routers < 2
          ? fc.constant([])
          : fc.array(
              fc.tuple(fc.nat(routers - 1), fc.nat(routers - 1)).filter(([a, b]) => a !== b),
              { maxLength: 2 },
            ),
      loadBalancers: fc.nat(3),
      addressSets: fc.array(fc.constantFrom(4 as const, 6 as const), { maxLength: 3 }),
      portGroups: fc.nat(3),
      acls: fc.constant(opts.maxAcls ?? 6),
      randomMatches: fc.constant(opts.randomMatches ?? false),
    }),
  );
}

/** Candidate rows for a shape, keys unique per table (the first candidate of a key wins). */
export function arbitraryUniverse(shape: Shape): fc.Arbitrary<Universe> {
  return fc
    .record({
      dhcpOptions: dhcpCandidates(shape),
      addressSet: addressSetCandidates(shape),
      loadBalancer: loadBalancerCandidates(shape),
      switch: switchCandidates(shape),
      router: routerCandidates(shape),
      routerPort: routerPortCandidates(shape),
      switchPort: switchPortCandidates(shape),
      portGroup: portGroupCandidates(shape),
      acl: aclCandidates(shape),
      qos: qosCandidates(shape),
      nat: natCandidates(shape),
      staticRoute: staticRouteCandidates(shape),
      routerPolicy: routerPolicyCandidates(shape),
    })
    .map(dedupeKeys);
}

function dedupeKeys(u: Universe): Universe {
  const out = {} as Record<TableName, Candidates<TableName>>;
  for (const table of TABLE_ORDER) {
    const seen = new Set<string>();
    out[table] = (u[table] as Candidates<typeof table>).filter((variants) => {
      const key = keyOf(table, variants[0] as never);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  return out as unknown as Universe;
}

/** Per candidate: null (not selected) or which variant, and whether its set columns are reversed. */
export type Choice = { readonly variant: number; readonly reorder: boolean } | null;
export type Selection = { readonly [T in TableName]: readonly Choice[] };

const choice: fc.Arbitrary<Choice> = fc.option(fc.record({ variant: fc.nat(1), reorder: fc.boolean() }), { freq: 4 });

function arbitrarySelection(u: Universe, perCandidate: fc.Arbitrary<Choice> = choice): fc.Arbitrary<Selection> {
  const rec = {} as Record<TableName, fc.Arbitrary<Choice[]>>;
  for (const table of TABLE_ORDER)
    rec[table] = fc.array(perCandidate, { minLength: u[table].length, maxLength: u[table].length });
  return fc.record(rec) as fc.Arbitrary<Selection>;
}

/**
 * A valid topology.
 *
 * @example fc.assert(fc.property(arbitraryTopology(), (t) => validateTopology(t).length === 0), fcParams())
 */
export function arbitraryTopology(opts: ArbitraryTopologyOptions = {}): fc.Arbitrary<Topology> {
  return arbitraryShape(opts)
    .chain(arbitraryUniverse)
    .chain((u) => arbitrarySelection(u).map((s) => materialize(u, s)));
}

/**
 * Two valid topologies, the second a random edit of the first: each
 * candidate row keeps its choice with probability about 3/4, otherwise gets
 * a fresh one (added, removed, another variant, reordered).
 *
 * @example
 * fc.assert(fc.property(arbitraryTopologyPair(), ([a, b]) => plan(applyPlan(plan(a, b), a), b).length === 0),
 * fcParams());
 */
export function arbitraryTopologyPair(
  opts: ArbitraryTopologyOptions = {},
): fc.Arbitrary<readonly [Topology, Topology]> {
  const pair = fc
    .tuple(choice, fc.option(fc.record({ to: choice }), { freq: 3 }))
    .map(([a, edit]) => [a, edit === null ? a : edit.to] as const);
  return arbitraryShape(opts)
    .chain(arbitraryUniverse)
    .chain((u) => {
      const rec = {} as Record<TableName, fc.Arbitrary<(readonly [Choice, Choice])[]>>;
      for (const t of TABLE_ORDER) rec[t] = fc.array(pair, { minLength: u[t].length, maxLength: u[t].length });
      return fc.record(rec).map((byTable) => {
        const pick = (i: 0 | 1) => {
          const sel = {} as Record<TableName, Choice[]>;
          for (const t of TABLE_ORDER) sel[t] = byTable[t].map((p) => p[i]);
          return sel as Selection;
        };
        return [materialize(u, pick(0)), materialize(u, pick(1))] as const;
      });
    });
}

/** The selected rows of `u`, made valid as the file header says. */
export function materialize(u: Universe, s: Selection): Topology {
  const out = {} as Record<TableName, Map<string, unknown>>;
  const view = out as unknown as Topology;
  for (const table of TABLE_ORDER) {
    out[table] = new Map();
    (u[table] as Candidates<typeof table>).forEach((variants, idx) => {
      const c = s[table][idx];
      if (!c) return;
      const picked = variants[Math.min(c.variant, variants.length - 1)];
      if (picked === undefined) return;
      const row = filterSetRefs(table, picked, view);
      const resolved = referencesOf(table, row).every((r) => r.targets.some((x) => view[x.table].has(x.name)));
      if (!resolved) return;
      out[table]!.set(keyOf(table, row), c.reorder ? reorderSets(table, row) : row);
    });
    if (table === 'routerPort') clearLonePeers(out.routerPort as Map<string, Tables['routerPort']>);
  }
  return view;
}

function filterSetRefs<T extends TableName>(table: T, row: Tables[T], t: Topology): Tables[T] {
  const r = row as Tables[TableName];
  if ('loadBalancers' in r)
    return { ...r, loadBalancers: r.loadBalancers.filter((n) => t.loadBalancer.has(n)) } as unknown as Tables[T];
  if (table === 'portGroup') {
    const pg = r as Tables['portGroup'];
    return { ...pg, ports: pg.ports.filter((n) => t.switchPort.has(n)) } as unknown as Tables[T];
  }
  return row;
}

function clearLonePeers(ports: Map<string, Tables['routerPort']>): void {
  for (const [name, p] of ports) {
    if (p.peer === undefined || ports.get(p.peer)?.peer === name) continue;
    const { peer: _gone, ...rest } = p;
    ports.set(name, rest);
  }
}

const SET_FIELDS = [
  'addresses',
  'portSecurity',
  'networks',
  'ports',
  'nexthops',
  'loadBalancers',
  'selectionFields',
  'gatewayChassis',
];

/** The same row with every set column reversed: equal under NB set semantics. */
function reorderSets<T extends TableName>(_table: T, row: Tables[T]): Tables[T] {
  const out: Record<string, unknown> = { ...row };
  for (const f of SET_FIELDS) {
    const v = out[f];
    if (Array.isArray(v)) out[f] = [...v].reverse();
  }
  return out as unknown as Tables[T];
}

// ---- Candidate rows. Every switch has its own subnet (10.(16+i).0.0/24,
// fd00:10:i::/64), every router-to-router link its own /24 in 100.65.0.0/16,
// so no router sees overlapping networks whatever the selection.

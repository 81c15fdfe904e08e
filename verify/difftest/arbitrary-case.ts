/**
 * fast-check arbitraries of difftest cases: a {@link CaseSpec} (small
 * integers and flags, see spec.ts) mapped to a {@link DiffCase} (a valid
 * topology, an inport and a packet). Sizes follow the differential test's
 * brief: 1–3 routers, 1–6 switches, up to 40 ports, up to 8 ACLs, 3 load
 * balancers, 4 NAT rules, 4 static routes, 3 router policies. Weights bias
 * toward meaningful cases: most packets are TCP/UDP/ICMP at TTL 64 from a
 * pod's own addresses, most routers are gateways or have a DGP.
 */
import fc from 'fast-check';
import { type DiffCase, buildCase } from './case.ts';
import type {
  AclSpec,
  AtomSpec,
  CaseSpec,
  LbSpec,
  MatchSpec,
  NatSpec,
  PacketSpec,
  PodSpec,
  PolicySpec,
  RouteSpec,
  RouterSpec,
  SwitchSpec,
  TopoSpec,
} from './spec.ts';

/** A small index (shrinks toward 0, the first of whatever it picks from). */
const idx = fc.nat(63);

/** 0..n-1 with the given weights (the first value is the shrink target). */
function weighted(weights: readonly number[]): fc.Arbitrary<number> {
  return fc.oneof(...weights.map((weight, value) => ({ weight, arbitrary: fc.constant(value) })));
}

const routerSpec: fc.Arbitrary<RouterSpec> = fc.record({
  kind: fc.oneof(
    { weight: 2, arbitrary: fc.constant('plain' as const) },
    { weight: 3, arbitrary: fc.constant('gateway' as const) },
    { weight: 3, arbitrary: fc.constant('dgp' as const) },
  ),
  host: fc.boolean(),
  defaultRoute: fc.boolean(),
});

const podSpec: fc.Arbitrary<PodSpec> = fc.record({
  portSecurity: weighted([8, 2, 4, 1]),
  unknown: weighted([9, 1]).map((n) => n === 1),
});

const switchSpec: fc.Arbitrary<SwitchSpec> = fc.record({
  router: fc.option(idx, { freq: 6 }),
  dual: weighted([2, 1]).map((n) => n === 1),
  pods: fc.array(podSpec, { minLength: 1, maxLength: 6 }),
  routeTable: weighted([5, 1]).map((n) => n === 1),
});

const atomSpec: fc.Arbitrary<AtomSpec> = fc.record({
  kind: fc.nat(11),
  a: idx,
  b: idx,
  neg: weighted([4, 1]).map((n) => n === 1),
});
const matchSpec: fc.Arbitrary<MatchSpec> = fc.record({
  atoms: fc.array(atomSpec, { minLength: 1, maxLength: 3 }),
  or: weighted([4, 1]).map((n) => n === 1),
});

const aclSpec: fc.Arbitrary<AclSpec> = fc.record({
  attach: idx,
  toLport: fc.boolean(),
  priority: fc.oneof(fc.constantFrom(1000, 1001, 2000, 2001, 3000, 0), fc.nat(32767)),
  match: matchSpec,
  action: fc.nat(4),
  afterLb: weighted([4, 1]).map((n) => n === 1),
});

const lbSpec: fc.Arbitrary<LbSpec> = fc.record({
  vip: weighted([4, 2, 1, 2]),
  proto: fc.nat(3),
  backends: fc.array(idx, { maxLength: 3 }),
  switches: fc.array(idx, { maxLength: 2 }),
  routers: fc.array(idx, { maxLength: 2 }),
  options: weighted([5, 1, 1, 1, 1]),
});

const natSpec: fc.Arbitrary<NatSpec> = fc.record({
  router: idx,
  type: fc.nat(2),
  logical: idx,
  distributed: fc.boolean(),
});

const routeSpec: fc.Arbitrary<RouteSpec> = fc.record({
  router: idx,
  prefix: idx,
  nexthop: idx,
  srcIp: weighted([3, 1]).map((n) => n === 1),
  routeTable: weighted([3, 1]).map((n) => n === 1),
  ecmp: weighted([3, 1]).map((n) => n === 1),
});

const policySpec: fc.Arbitrary<PolicySpec> = fc.record({
  router: idx,
  priority: fc.oneof(fc.nat(3), fc.nat(32767)),
  match: matchSpec,
  action: fc.nat(2),
  nexthops: fc.array(idx, { minLength: 1, maxLength: 2 }),
});

export const topoSpecArbitrary: fc.Arbitrary<TopoSpec> = fc.record({
  routers: fc.array(routerSpec, { minLength: 1, maxLength: 3 }),
  switches: fc.array(switchSpec, { minLength: 1, maxLength: 6 }),
  links: fc.array(fc.tuple(idx, idx), { maxLength: 2 }),
  linkRoutes: weighted([1, 3]).map((n) => n === 1),
  addressSets: fc.array(
    fc.record({ v6: weighted([3, 1]).map((n) => n === 1), entries: fc.array(idx, { maxLength: 3 }) }),
    { maxLength: 2 },
  ),
  portGroups: fc.array(fc.array(idx, { maxLength: 4 }), { maxLength: 2 }),
  acls: fc.array(aclSpec, { maxLength: 8 }),
  loadBalancers: fc.array(lbSpec, { maxLength: 3 }),
  nats: fc.array(natSpec, { maxLength: 4 }),
  routes: fc.array(routeSpec, { maxLength: 4 }),
  policies: fc.array(policySpec, { maxLength: 3 }),
});

export const packetSpecArbitrary: fc.Arbitrary<PacketSpec> = fc.record({
  src: idx,
  outside: weighted([4, 1]).map((n) => n === 1),
  dstKind: weighted([5, 2, 3, 3, 1, 1, 1]),
  dst: idx,
  proto: weighted([4, 2, 1, 3, 2]),
  v6: weighted([3, 1]).map((n) => n === 1),
  ttl: weighted([8, 1, 1]),
  spoof: weighted([8, 1, 1]),
  sport: fc.nat(59999),
  dport: idx,
});

export const caseSpecArbitrary: fc.Arbitrary<CaseSpec> = fc.record({
  topo: topoSpecArbitrary,
  packet: packetSpecArbitrary,
  lbPick: fc.nat(5),
});

/**
 * Cases for the differential test.
 *
 * @example fc.sample(arbitraryCase(), { seed: 7, numRuns: 3 }).map((c) => c.inport)
 */
export function arbitraryCase(): fc.Arbitrary<DiffCase> {
  return caseSpecArbitrary.map(buildCase);
}

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
 * One file, longer than usual: test/layers.ts lets model/ import fast-check
 * only from files named `arbitrary.ts` (and tests).
 */
import fc from 'fast-check';
import { formatMAC } from '../addr/index.ts';
import { matchExprArbitrary } from '../match/arbitrary.ts';
import { type MatchExpr, checkMatchEnv, parseMatch } from '../match/index.ts';
import { keyOf } from './keys.ts';
import { matchReferences, referencesOf } from './refs.ts';
import {
  type ACL,
  type GatewayChassis,
  type LbSelectionField,
  type LogicalRouterPort,
  type LogicalSwitchPort,
  type NAT,
  type QoS,
  type RouterPolicy,
  type StaticRoute,
  TABLE_ORDER,
  type TableName,
  type Tables,
  type Topology,
} from './types.ts';

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
          : fc.array(fc.tuple(fc.nat(routers - 1), fc.nat(routers - 1)).filter(([a, b]) => a !== b), { maxLength: 2 }),
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
  for (const table of TABLE_ORDER) rec[table] = fc.array(perCandidate, { minLength: u[table].length, maxLength: u[table].length });
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
 * fc.assert(fc.property(arbitraryTopologyPair(), ([a, b]) => plan(applyPlan(plan(a, b), a), b).length === 0), fcParams());
 */
export function arbitraryTopologyPair(opts: ArbitraryTopologyOptions = {}): fc.Arbitrary<readonly [Topology, Topology]> {
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
  if ('loadBalancers' in r) return { ...r, loadBalancers: r.loadBalancers.filter((n) => t.loadBalancer.has(n)) } as unknown as Tables[T];
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

const SET_FIELDS = ['addresses', 'portSecurity', 'networks', 'ports', 'nexthops', 'loadBalancers', 'selectionFields', 'gatewayChassis'];

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

/** The skeleton every candidate is drawn against. */
export interface Shape {
  readonly switches: readonly {
    readonly v6: boolean;
    /** Router index this switch is connected to, if any. */
    readonly router: number | null;
    readonly ports: number;
    readonly dhcp: boolean;
    readonly localnet: boolean;
  }[];
  readonly routers: number;
  /** Router pairs joined by peer ports, a !== b. */
  readonly links: readonly (readonly [number, number])[];
  readonly loadBalancers: number;
  readonly addressSets: readonly (4 | 6)[];
  readonly portGroups: number;
  readonly acls: number;
  readonly randomMatches: boolean;
}

export type Candidates<T extends TableName> = readonly (readonly Tables[T][])[];
export type Universe = { readonly [T in TableName]: Candidates<T> };

const lsName = (i: number) => `ls${i}`;
const lrName = (j: number) => `lr${j}`;
const v4Net = (i: number) => `10.${16 + i}.0`;
const v6Net = (i: number) => `fd00:10:${i.toString(16)}:`;
const podName = (i: number, m: number) => `pod${m}.ls${i}`;
const podIPv4 = (i: number, m: number) => `${v4Net(i)}.${10 + m}`;
const podIPv6 = (i: number, m: number) => `${v6Net(i)}:${(0xa0 + m).toString(16)}`;
const mac = (n: number) => formatMAC(0x0a5800000000 + n);
const routerPortOf = (j: number, i: number) => `lr${j}-ls${i}`;

/** 1..2 variants sharing `key` columns. */
function variants<R>(key: object, rest: fc.Arbitrary<object>): fc.Arbitrary<R[]> {
  return fc.array(rest, { minLength: 1, maxLength: 2 }).map((vs) => vs.map((v) => ({ ...key, ...v }) as R));
}

const ids = fc.dictionary(fc.constantFrom('vendor', 'owner', 'np'), fc.constantFrom('kovn', 'a', 'b'), { maxKeys: 2 });
const pods = (s: Shape) => s.switches.flatMap((sw, i) => Array.from({ length: sw.ports }, (_, m) => ({ i, m, sw })));

function dhcpCandidates(s: Shape): fc.Arbitrary<Candidates<'dhcpOptions'>> {
  const v4 = fc.record({ lease_time: fc.constantFrom('3600', '7200'), router: fc.constant('gw') }, { requiredKeys: ['lease_time'] });
  const v6 = fc.constant({ server_id: mac(1) });
  const row = (name: string, cidr: string, options: fc.Arbitrary<Record<string, string>>) =>
    variants<Tables['dhcpOptions']>({ name, cidr }, fc.record({ options, externalIds: ids }));
  return fc.tuple(
    ...s.switches.flatMap((sw, i) => [
      ...(sw.dhcp ? [row(`dhcp-${lsName(i)}`, `${v4Net(i)}.0/24`, v4)] : []),
      ...(sw.dhcp && sw.v6 ? [row(`dhcp6-${lsName(i)}`, `${v6Net(i)}:/64`, v6)] : []),
    ]),
  );
}

function addressSetCandidates(s: Shape): fc.Arbitrary<Candidates<'addressSet'>> {
  const pool = {
    4: ['10.16.0.5', '10.17.0.0/24', '192.168.0.0/16', '8.8.8.8', '10.16.0.11'],
    6: ['fd00:10::5', 'fd00:10:1::/64', '2001:db8::/32'],
  };
  return fc.tuple(
    ...s.addressSets.map((fam, k) =>
      variants<Tables['addressSet']>({ name: `as${k}` }, fc.record({ addresses: fc.subarray(pool[fam]), externalIds: ids })),
    ),
  );
}

function loadBalancerCandidates(s: Shape): fc.Arbitrary<Candidates<'loadBalancer'>> {
  const all = pods(s);
  const backends = (fam: 4 | 6, port: string) => {
    const ok = all.filter((p) => fam === 4 || p.sw.v6);
    const text = ({ i, m }: { i: number; m: number }) => (fam === 4 ? `${podIPv4(i, m)}${port}` : `[${podIPv6(i, m)}]${port}`);
    return fc.subarray(ok, { maxLength: Math.min(3, ok.length) }).map((ps) => ps.map(text).join(','));
  };
  const vips = (k: number) =>
    fc
      .tuple(backends(4, ':8080'), backends(4, ''), backends(6, ':8080'))
      .chain(([a, b, c]) => fc.subarray([[`10.96.${k}.10:80`, a], [`10.96.${k}.11`, b], [`[fd00:96::${k + 1}]:80`, c]], { minLength: 1 }))
      .map((entries) => Object.fromEntries(entries) as Record<string, string>);
  const fields: LbSelectionField[] = ['eth_src', 'eth_dst', 'ip_src', 'ip_dst', 'tp_src', 'tp_dst'];
  return fc.tuple(
    ...Array.from({ length: s.loadBalancers }, (_, k) =>
      variants<Tables['loadBalancer']>(
        { name: `lb${k}` },
        fc.record({
          vips: vips(k),
          protocol: fc.constantFrom(undefined, 'tcp' as const, 'udp' as const, 'sctp' as const),
          selectionFields: fc.subarray(fields, { maxLength: 2 }),
          options: fc.constantFrom({}, { reject: 'true' }, { skip_snat: 'true', hairpin_snat_ip: '169.254.0.1' }),
          externalIds: ids,
        }),
      ),
    ),
  );
}

const lbNames = (s: Shape) => Array.from({ length: s.loadBalancers }, (_, k) => `lb${k}`);

function switchCandidates(s: Shape): fc.Arbitrary<Candidates<'switch'>> {
  return fc.tuple(
    ...s.switches.map((sw, i) =>
      variants<Tables['switch']>(
        { name: lsName(i) },
        fc.record({
          loadBalancers: fc.subarray(lbNames(s)),
          otherConfig: fc.constantFrom<Record<string, string>>(
            { subnet: `${v4Net(i)}.0/24` },
            { subnet: `${v4Net(i)}.0/24`, exclude_ips: `${v4Net(i)}.1` },
            {},
          ),
          externalIds: ids,
        }),
      ),
    ),
  );
}

function routerCandidates(s: Shape): fc.Arbitrary<Candidates<'router'>> {
  return fc.tuple(
    ...Array.from({ length: s.routers }, (_, j) =>
      variants<Tables['router']>(
        { name: lrName(j) },
        fc.record(
          {
            enabled: fc.boolean(),
            options: fc.constantFrom<Record<string, string>>({}, { chassis: 'node-1' }, { lb_force_snat_ip: 'router_ip' }),
            loadBalancers: fc.subarray(lbNames(s)),
            externalIds: ids,
          },
          { requiredKeys: ['options', 'loadBalancers', 'externalIds'] },
        ),
      ),
    ),
  );
}

const chassis: fc.Arbitrary<GatewayChassis[]> = fc.uniqueArray(
  fc.record({ chassisName: fc.constantFrom('node-1', 'node-2', 'node-3'), priority: fc.integer({ min: 0, max: 32767 }) }),
  { maxLength: 2, selector: (g) => g.chassisName },
);

function lrpVariants(key: Pick<LogicalRouterPort, 'name' | 'router' | 'networks' | 'peer'>, macN: number) {
  return variants<LogicalRouterPort>(
    key,
    fc.record(
      {
        mac: fc.constantFrom(mac(macN), mac(macN + 0x10000)),
        enabled: fc.boolean(),
        gatewayChassis: chassis,
        options: fc.constantFrom({}, { gateway_mtu: '1400' }),
        ipv6RaConfigs: fc.constantFrom({ address_mode: 'slaac' }),
        externalIds: ids,
      },
      { requiredKeys: ['mac', 'gatewayChassis', 'options', 'externalIds'] },
    ),
  );
}

function routerPortCandidates(s: Shape): fc.Arbitrary<Candidates<'routerPort'>> {
  const toSwitches = s.switches.flatMap((sw, i) => {
    if (sw.router === null) return [];
    const networks = [`${v4Net(i)}.1/24`, ...(sw.v6 ? [`${v6Net(i)}:1/64`] : [])];
    return [lrpVariants({ name: routerPortOf(sw.router, i), router: lrName(sw.router), networks }, 0x100 + i)];
  });
  const links = s.links.flatMap(([a, b], k) => {
    const pa = `lr${a}-to-lr${b}-${k}`;
    const pb = `lr${b}-to-lr${a}-${k}`;
    return [
      lrpVariants({ name: pa, router: lrName(a), networks: [`100.65.${k}.1/24`], peer: pb }, 0x200 + 2 * k),
      lrpVariants({ name: pb, router: lrName(b), networks: [`100.65.${k}.2/24`], peer: pa }, 0x201 + 2 * k),
    ];
  });
  return fc.tuple(...toSwitches, ...links);
}

function switchPortCandidates(s: Shape): fc.Arbitrary<Candidates<'switchPort'>> {
  const routerPorts = s.switches.flatMap((sw, i) =>
    sw.router === null
      ? []
      : [variants<LogicalSwitchPort>(
          {
            name: `ls${i}-lr${sw.router}`,
            switch: lsName(i),
            type: 'router',
            options: { 'router-port': routerPortOf(sw.router, i) },
          },
          fc.record({ addresses: fc.constantFrom(['router'], []), portSecurity: fc.constant([]), externalIds: ids }),
        )],
  );
  const localnets = s.switches.flatMap((sw, i) =>
    sw.localnet
      ? [variants<LogicalSwitchPort>(
          { name: `ln-ls${i}`, switch: lsName(i), type: 'localnet', portSecurity: [] },
          fc.record(
            {
              addresses: fc.constant(['unknown']),
              options: fc.constantFrom({ network_name: 'physnet1' }, { network_name: 'physnet2' }),
              tagRequest: fc.integer({ min: 0, max: 4095 }),
              externalIds: ids,
            },
            { requiredKeys: ['addresses', 'options', 'externalIds'] },
          ),
        )]
      : [],
  );
  const switches = s.switches.map((_, i) => lsName(i));
  return fc.tuple(...routerPorts, ...localnets, ...pods(s).map(({ i, m, sw }) => podVariants(i, m, sw, switches)));
}

/** A pod port; now and then on another switch, so that an edit moves it (an update of `switch`). */
function podVariants(i: number, m: number, sw: Shape['switches'][number], switches: readonly string[]) {
  const macText = mac((i << 8) + m + 0x10);
  const ips = [podIPv4(i, m), ...(sw.v6 ? [podIPv6(i, m)] : [])].join(' ');
  const addr = `${macText} ${ips}`;
  return variants<LogicalSwitchPort>(
    { name: podName(i, m), type: '' },
    fc.record(
      {
        switch: fc.oneof(
          { weight: 4, arbitrary: fc.constant(lsName(i)) },
          { weight: 1, arbitrary: fc.constantFrom(...switches) },
        ),
        addresses: fc.constantFrom([addr], ['dynamic'], ['unknown', addr], [`${macText} dynamic`], [`dynamic ${podIPv4(i, m)}`]),
        portSecurity: fc.constantFrom([], [addr], [`${macText} ${v4Net(i)}.0/24`]),
        options: fc.constantFrom({}, { requested_chassis: 'node-1' }),
        enabled: fc.boolean(),
        dhcpv4Options: fc.constant(sw.dhcp ? `dhcp-${lsName(i)}` : undefined),
        dhcpv6Options: fc.constant(sw.dhcp && sw.v6 ? `dhcp6-${lsName(i)}` : undefined),
        externalIds: ids,
      },
      { requiredKeys: ['switch', 'addresses', 'portSecurity', 'options', 'externalIds'] },
    ),
  );
}

function portGroupCandidates(s: Shape): fc.Arbitrary<Candidates<'portGroup'>> {
  const names = pods(s).map(({ i, m }) => podName(i, m));
  return fc.tuple(
    ...Array.from({ length: s.portGroups }, (_, k) =>
      variants<Tables['portGroup']>({ name: `pg${k}` }, fc.record({ ports: fc.subarray(names), externalIds: ids })),
    ),
  );
}

/** Realistic matches naming only rows the shape defines (materialize drops any whose target is not selected). */
export function matchArbitrary(s: Shape, opts: { ports: boolean }): fc.Arbitrary<MatchExpr> {
  const texts: fc.Arbitrary<string>[] = [
    fc.constantFrom(
      'ip4',
      'ip6',
      'arp',
      'tcp',
      'udp.dst == 53',
      'icmp4',
      'ip4.src == 10.16.0.0/16',
      'ip4.dst == {10.96.0.1, 10.96.0.10}',
      'tcp.dst == 80',
      '1000 <= tcp.dst <= 2000',
      'ip6.dst == fd00:10::/48',
      'ip4 && tcp && tcp.dst == 443',
      'ip4.src == 10.16.0.0/16 && ip4.dst == 10.17.0.0/16',
    ),
  ];
  s.addressSets.forEach((fam, k) => {
    texts.push(fc.constantFrom(`ip${fam}.src == $as${k}`, `ip${fam}.dst == $as${k} && tcp.dst == 8080`));
  });
  if (opts.ports) {
    for (let k = 0; k < s.portGroups; k++) {
      texts.push(fc.constantFrom(`inport == @pg${k}`, `outport == @pg${k} && ip4.src == $pg${k}_ip4`, `outport == @pg${k} && ip6`));
    }
    const names = pods(s).map(({ i, m }) => podName(i, m));
    if (names.length > 0) texts.push(fc.constantFrom(...names).map((n) => `outport == "${n}" && ip4`));
  }
  const realistic = fc.oneof(...texts).map(parseMatch);
  if (!s.randomMatches) return realistic;
  const selfContained = (e: MatchExpr) => matchReferences(e).length === 0 && checkMatchEnv(e, {}).length === 0;
  return fc.oneof({ weight: 2, arbitrary: realistic }, { weight: 1, arbitrary: matchExprArbitrary({ depth: 2 }).filter(selfContained) });
}

function aclCandidates(s: Shape): fc.Arbitrary<Candidates<'acl'>> {
  const targets = [
    ...s.switches.map((_, i) => ({ kind: 'switch' as const, name: lsName(i) })),
    ...Array.from({ length: s.portGroups }, (_, k) => ({ kind: 'port-group' as const, name: `pg${k}` })),
  ];
  if (targets.length === 0) return fc.constant([]);
  const key = fc.record({
    attachTo: fc.constantFrom(...targets),
    direction: fc.constantFrom('from-lport' as const, 'to-lport' as const),
    priority: fc.oneof(fc.constantFrom(1000, 1001, 2000, 2001, 3000), fc.integer({ min: 0, max: 32767 })),
    match: matchArbitrary(s, { ports: true }),
  });
  const rest = fc.record(
    {
      action: fc.constantFrom('allow', 'allow-related', 'allow-stateless', 'drop', 'reject') as fc.Arbitrary<ACL['action']>,
      name: fc.constantFrom('np.default', 'x'.repeat(63)),
      log: fc.boolean(),
      severity: fc.constantFrom('alert', 'warning', 'info') as fc.Arbitrary<ACL['severity']>,
      meter: fc.constant('acl-meter'),
      label: fc.nat(),
      options: fc.constantFrom({}, { 'apply-after-lb': 'true' }),
      externalIds: ids,
    },
    { requiredKeys: ['action', 'log', 'options', 'externalIds'] },
  );
  return fc.array(key.chain((k) => variants<ACL>(k, rest)), { maxLength: s.acls });
}

function qosCandidates(s: Shape): fc.Arbitrary<Candidates<'qos'>> {
  if (s.switches.length === 0) return fc.constant([]);
  const key = fc.record({
    switch: fc.constantFrom(...s.switches.map((_, i) => lsName(i))),
    direction: fc.constantFrom('from-lport' as const, 'to-lport' as const),
    priority: fc.integer({ min: 0, max: 32767 }),
    match: matchArbitrary(s, { ports: true }),
  });
  const rest = fc.record({
    action: fc.record({ dscp: fc.integer({ min: 0, max: 63 }) }, { requiredKeys: [] }),
    bandwidth: fc.record(
      { rate: fc.integer({ min: 1, max: 10_000_000 }), burst: fc.integer({ min: 1, max: 100_000 }) },
      { requiredKeys: [] },
    ),
    externalIds: ids,
  });
  return fc.array(key.chain((k) => variants<QoS>(k, rest)), { maxLength: 3 });
}

const gatewayPortsOf = (s: Shape, j: number) => s.switches.flatMap((sw, i) => (sw.router === j ? [routerPortOf(j, i)] : []));

function natCandidates(s: Shape): fc.Arbitrary<Candidates<'nat'>> {
  const out: fc.Arbitrary<NAT[]>[] = [];
  s.switches.forEach((sw, i) => {
    if (sw.router === null) return;
    const j = sw.router;
    const router = lrName(j);
    const gw = fc.constantFrom(undefined, ...gatewayPortsOf(s, j));
    const rest = fc.record({
      gatewayPort: gw,
      externalPortRange: fc.constantFrom(undefined, '1024-65535'),
      options: fc.constantFrom<Record<string, string>>({}, { stateless: 'false' }),
      externalIds: ids,
    });
    out.push(variants<NAT>({ router, type: 'snat', externalIp: `172.20.${j}.${i + 1}`, logicalIp: `${v4Net(i)}.0/24` }, rest));
    for (let m = 0; m < sw.ports; m++) {
      const fip = { router, type: 'dnat_and_snat', externalIp: `172.21.${i}.${m + 1}`, logicalIp: podIPv4(i, m) };
      const distributed = { logicalPort: podName(i, m), externalMac: mac(0x30000 + (i << 8) + m) };
      out.push(variants<NAT>(fip, fc.tuple(rest, fc.boolean()).map(([r, d]) => (d ? { ...r, ...distributed } : r))));
    }
  });
  return fc.tuple(...out).chain((cands) => fc.subarray(cands));
}

function staticRouteCandidates(s: Shape): fc.Arbitrary<Candidates<'staticRoute'>> {
  if (s.routers === 0) return fc.constant([]);
  const key = fc.record({
    router: fc.nat(s.routers - 1),
    routeTable: fc.constantFrom('', 'rtb-a'),
    policy: fc.constantFrom(undefined, 'dst-ip' as const, 'src-ip' as const),
    route: fc.constantFrom<readonly [string, string]>(
      ['0.0.0.0/0', '100.64.0.1'],
      ['192.168.0.0/16', '10.16.0.254'],
      ['8.8.8.8', 'discard'],
      ['::/0', 'fd00:100::1'],
      ['10.200.0.0/24', '100.64.0.2/32'],
    ),
  });
  return fc.array(
    key.chain(({ router, routeTable, policy, route: [ipPrefix = '', nexthop = ''] }) =>
      variants<StaticRoute>(
        { router: lrName(router), routeTable, policy, ipPrefix, nexthop },
        fc.record({
          outputPort: fc.constantFrom(undefined, ...gatewayPortsOf(s, router)),
          options: fc.constantFrom<Record<string, string>>({}, { ecmp_symmetric_reply: 'true' }),
          externalIds: ids,
        }),
      ),
    ),
    { maxLength: 2 * s.routers },
  );
}

function routerPolicyCandidates(s: Shape): fc.Arbitrary<Candidates<'routerPolicy'>> {
  if (s.routers === 0) return fc.constant([]);
  const key = fc.record({
    router: fc.nat(s.routers - 1).map(lrName),
    priority: fc.oneof(fc.constantFrom(31000, 29000), fc.integer({ min: 0, max: 32767 })),
    match: matchArbitrary(s, { ports: false }),
  });
  const rest = fc.oneof(
    fc.record({ action: fc.constantFrom('allow' as const, 'drop' as const), nexthops: fc.constant([]) }),
    fc.record({
      action: fc.constant('reroute' as const),
      nexthops: fc.subarray(['100.64.0.2', '100.64.0.3', '100.64.0.4'], { minLength: 1 }),
    }),
  ).chain((r) => fc.record({ options: fc.constantFrom({}, { pkt_mark: '7' }), externalIds: ids }).map((o) => ({ ...r, ...o })));
  return fc.array(key.chain((k) => variants<RouterPolicy>(k, rest)), { maxLength: 2 * s.routers });
}

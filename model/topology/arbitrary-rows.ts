/**
 * Candidate rows for the topology arbitraries (arbitrary.ts): for a drawn
 * {@link Shape}, one to two variants of every row the shape allows, with the
 * key columns fixed and the others drawn. Test-only, like arbitrary.ts.
 */
import fc from 'fast-check';
import { formatMAC } from '../addr/index.ts';
import { matchExprArbitrary } from '../match/arbitrary.ts';
import { type MatchExpr, checkMatchEnv, parseMatch } from '../match/index.ts';
import { matchReferences } from './refs.ts';
import type {
  ACL,
  GatewayChassis,
  LbSelectionField,
  LogicalRouterPort,
  LogicalSwitchPort,
  NAT,
  QoS,
  RouterPolicy,
  StaticRoute,
  TableName,
  Tables,
} from './types.ts';

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

export function dhcpCandidates(s: Shape): fc.Arbitrary<Candidates<'dhcpOptions'>> {
  const v4 = fc.record(
    { lease_time: fc.constantFrom('3600', '7200'), router: fc.constant('gw') },
    { requiredKeys: ['lease_time'] },
  );
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

export function addressSetCandidates(s: Shape): fc.Arbitrary<Candidates<'addressSet'>> {
  const pool = {
    4: ['10.16.0.5', '10.17.0.0/24', '192.168.0.0/16', '8.8.8.8', '10.16.0.11'],
    6: ['fd00:10::5', 'fd00:10:1::/64', '2001:db8::/32'],
  };
  return fc.tuple(
    ...s.addressSets.map((fam, k) =>
      variants<Tables['addressSet']>(
        { name: `as${k}` },
        fc.record({ addresses: fc.subarray(pool[fam]), externalIds: ids }),
      ),
    ),
  );
}

export function loadBalancerCandidates(s: Shape): fc.Arbitrary<Candidates<'loadBalancer'>> {
  const all = pods(s);
  const backends = (fam: 4 | 6, port: string) => {
    const ok = all.filter((p) => fam === 4 || p.sw.v6);
    const text = ({ i, m }: { i: number; m: number }) =>
      fam === 4 ? `${podIPv4(i, m)}${port}` : `[${podIPv6(i, m)}]${port}`;
    return fc.subarray(ok, { maxLength: Math.min(3, ok.length) }).map((ps) => ps.map(text).join(','));
  };
  const vips = (k: number) =>
    fc
      .tuple(backends(4, ':8080'), backends(4, ''), backends(6, ':8080'))
      .chain(([a, b, c]) =>
        fc.subarray(
          [
            [`10.96.${k}.10:80`, a],
            [`10.96.${k}.11`, b],
            [`[fd00:96::${k + 1}]:80`, c],
          ],
          { minLength: 1 },
        ),
      )
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

export function switchCandidates(s: Shape): fc.Arbitrary<Candidates<'switch'>> {
  return fc.tuple(
    ...s.switches.map((_sw, i) =>
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

export function routerCandidates(s: Shape): fc.Arbitrary<Candidates<'router'>> {
  return fc.tuple(
    ...Array.from({ length: s.routers }, (_, j) =>
      variants<Tables['router']>(
        { name: lrName(j) },
        fc.record(
          {
            enabled: fc.boolean(),
            options: fc.constantFrom<Record<string, string>>(
              {},
              { chassis: 'node-1' },
              { lb_force_snat_ip: 'router_ip' },
            ),
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
  fc.record({
    chassisName: fc.constantFrom('node-1', 'node-2', 'node-3'),
    priority: fc.integer({ min: 0, max: 32767 }),
  }),
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

export function routerPortCandidates(s: Shape): fc.Arbitrary<Candidates<'routerPort'>> {
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

export function switchPortCandidates(s: Shape): fc.Arbitrary<Candidates<'switchPort'>> {
  const routerPorts = s.switches.flatMap((sw, i) =>
    sw.router === null
      ? []
      : [
          variants<LogicalSwitchPort>(
            {
              name: `ls${i}-lr${sw.router}`,
              switch: lsName(i),
              type: 'router',
              options: { 'router-port': routerPortOf(sw.router, i) },
            },
            fc.record({ addresses: fc.constantFrom(['router'], []), portSecurity: fc.constant([]), externalIds: ids }),
          ),
        ],
  );
  const localnets = s.switches.flatMap((sw, i) =>
    sw.localnet
      ? [
          variants<LogicalSwitchPort>(
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
          ),
        ]
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
        addresses: fc.constantFrom(
          [addr],
          ['dynamic'],
          ['unknown', addr],
          [`${macText} dynamic`],
          [`dynamic ${podIPv4(i, m)}`],
        ),
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

export function portGroupCandidates(s: Shape): fc.Arbitrary<Candidates<'portGroup'>> {
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
      texts.push(
        fc.constantFrom(
          `inport == @pg${k}`,
          `outport == @pg${k} && ip4.src == $pg${k}_ip4`,
          `outport == @pg${k} && ip6`,
        ),
      );
    }
    const names = pods(s).map(({ i, m }) => podName(i, m));
    if (names.length > 0) texts.push(fc.constantFrom(...names).map((n) => `outport == "${n}" && ip4`));
  }
  const realistic = fc.oneof(...texts).map(parseMatch);
  if (!s.randomMatches) return realistic;
  const selfContained = (e: MatchExpr) => matchReferences(e).length === 0 && checkMatchEnv(e, {}).length === 0;
  return fc.oneof(
    { weight: 2, arbitrary: realistic },
    { weight: 1, arbitrary: matchExprArbitrary({ depth: 2 }).filter(selfContained) },
  );
}

export function aclCandidates(s: Shape): fc.Arbitrary<Candidates<'acl'>> {
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
      action: fc.constantFrom('allow', 'allow-related', 'allow-stateless', 'drop', 'reject') as fc.Arbitrary<
        ACL['action']
      >,
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
  return fc.array(
    key.chain((k) => variants<ACL>(k, rest)),
    { maxLength: s.acls },
  );
}

export function qosCandidates(s: Shape): fc.Arbitrary<Candidates<'qos'>> {
  if (s.switches.length === 0) return fc.constant([]);
  const key = fc.record({
    switch: fc.constantFrom(...s.switches.map((_, i) => lsName(i))),
    direction: fc.constantFrom('from-lport' as const, 'to-lport' as const),
    priority: fc.integer({ min: 0, max: 32767 }),
    match: matchArbitrary(s, { ports: true }),
    // Action and bandwidth are key columns: variants differ only in external_ids.
    action: fc.record({ dscp: fc.integer({ min: 0, max: 63 }) }, { requiredKeys: [] }),
    bandwidth: fc.record(
      { rate: fc.integer({ min: 1, max: 10_000_000 }), burst: fc.integer({ min: 1, max: 100_000 }) },
      { requiredKeys: [] },
    ),
  });
  const rest = fc.record({ externalIds: ids });
  return fc.array(
    key.chain((k) => variants<QoS>(k, rest)),
    { maxLength: 3 },
  );
}

const gatewayPortsOf = (s: Shape, j: number) =>
  s.switches.flatMap((sw, i) => (sw.router === j ? [routerPortOf(j, i)] : []));

export function natCandidates(s: Shape): fc.Arbitrary<Candidates<'nat'>> {
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
    out.push(
      variants<NAT>({ router, type: 'snat', externalIp: `172.20.${j}.${i + 1}`, logicalIp: `${v4Net(i)}.0/24` }, rest),
    );
    for (let m = 0; m < sw.ports; m++) {
      const fip = { router, type: 'dnat_and_snat', externalIp: `172.21.${i}.${m + 1}`, logicalIp: podIPv4(i, m) };
      const distributed = { logicalPort: podName(i, m), externalMac: mac(0x30000 + (i << 8) + m) };
      out.push(
        variants<NAT>(
          fip,
          fc.tuple(rest, fc.boolean()).map(([r, d]) => (d ? { ...r, ...distributed } : r)),
        ),
      );
    }
  });
  return fc.tuple(...out).chain((cands) => fc.subarray(cands));
}

export function staticRouteCandidates(s: Shape): fc.Arbitrary<Candidates<'staticRoute'>> {
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

export function routerPolicyCandidates(s: Shape): fc.Arbitrary<Candidates<'routerPolicy'>> {
  if (s.routers === 0) return fc.constant([]);
  const key = fc.record({
    router: fc.nat(s.routers - 1).map(lrName),
    priority: fc.oneof(fc.constantFrom(31000, 29000), fc.integer({ min: 0, max: 32767 })),
    match: matchArbitrary(s, { ports: false }),
  });
  const rest = fc
    .oneof(
      fc.record({ action: fc.constantFrom('allow' as const, 'drop' as const), nexthops: fc.constant([]) }),
      fc.record({
        action: fc.constant('reroute' as const),
        nexthops: fc.subarray(['100.64.0.2', '100.64.0.3', '100.64.0.4'], { minLength: 1 }),
      }),
    )
    .chain((r) =>
      fc.record({ options: fc.constantFrom({}, { pkt_mark: '7' }), externalIds: ids }).map((o) => ({ ...r, ...o })),
    );
  return fc.array(
    key.chain((k) => variants<RouterPolicy>(k, rest)),
    { maxLength: 2 * s.routers },
  );
}

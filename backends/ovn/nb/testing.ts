/**
 * Helpers shared by the OvnBackend tests (test-only code): comparing
 * topologies table by table with NB semantics, running ovn-nbctl against a
 * test's NB, and a rich topology that uses every table and column type the
 * model has.
 */
import { type MatchExpr, parseMatch, printMatch } from '../../../model/match/index.ts';
import {
  TABLE_ORDER,
  type Topology,
  buildTopology,
  rowsEqual,
  validateTopology,
} from '../../../model/topology/index.ts';
import { fixtureInput } from '../../../model/topology/fixture.ts';
import { runTool } from '../control-plane/index.ts';

/**
 * Differences between two topologies: keys only in one, and rows that are
 * not `rowsEqual`. Empty when they are equal.
 *
 * @example expect(topologyDiff(await be.read(), desired)).toEqual([])
 */
export function topologyDiff(actual: Topology, expected: Topology): string[] {
  const out: string[] = [];
  for (const table of TABLE_ORDER) {
    const a = actual[table] as ReadonlyMap<string, never>;
    const e = expected[table] as ReadonlyMap<string, never>;
    for (const key of e.keys()) if (!a.has(key)) out.push(`${table} ${JSON.stringify(key)}: missing`);
    for (const [key, row] of a) {
      const want = e.get(key);
      if (want === undefined) out.push(`${table} ${JSON.stringify(key)}: unexpected`);
      else if (!rowsEqual(table, row, want)) out.push(`${table} ${JSON.stringify(key)}: ${show(row)} != ${show(want)}`);
    }
  }
  return out;
}

/** JSON with matches printed canonically. */
function show(row: object): string {
  return JSON.stringify(row, (k, v: unknown) =>
    k === 'match' ? printMatch(v as MatchExpr) : typeof v === 'bigint' ? String(v) : v,
  );
}

/** `ovn-nbctl --db=<remote> args...`, stdout. */
export async function nbctl(remote: string, ...args: string[]): Promise<string> {
  return (await runTool('ovn-nbctl', [`--db=${remote}`, ...args])).stdout;
}

/** The values of one column of every row of a table, `--bare`, one per row. */
export async function nbColumn(remote: string, table: string, column: string): Promise<string[]> {
  const out = await nbctl(remote, '--bare', `--columns=${column}`, 'list', table);
  return out
    .split('\n\n')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * The model fixture plus rows that exercise what it leaves out: explicit
 * defaults (ACL label 0, NAT port range ""), a model `vendor` id, a
 * localnet port with a tag request, a container port, disabled ports, IPv6
 * RA configs, load balancer protocol and selection fields, route policy and
 * route tables, router policies with ECMP next hops, QoS with both maps.
 */
export function richTopology(): Topology {
  const t = fixtureInput();
  t.loadBalancer.push({
    name: 'lb-udp',
    vips: { '10.96.0.53:53': '10.16.0.10:53', '[fd00:96::1]:53': '[fd00:10::a]:53' },
    protocol: 'udp',
    selectionFields: ['ip_src', 'ip_dst'],
    options: { skip_snat: 'true' },
    externalIds: { vendor: 'someone-else', svc: 'kube-system/dns' },
  });
  t.switch.push({ name: 'ls1', loadBalancers: ['lb-udp', 'lb0'], otherConfig: {}, externalIds: {} });
  t.router[1] = { ...t.router[1]!, enabled: false, options: { chassis: 'node-2' }, loadBalancers: ['lb-udp'] };
  t.routerPort.push({
    name: 'lr0-ls1',
    router: 'lr0',
    mac: '0a:58:0a:11:00:01',
    networks: ['10.17.0.1/24', 'fd00:11::1/64'],
    enabled: false,
    gatewayChassis: [
      { chassisName: 'node-1', priority: 2 },
      { chassisName: 'node-2', priority: 1 },
    ],
    options: { gateway_mtu: '1400' },
    ipv6RaConfigs: { address_mode: 'slaac', send_periodic: 'true' },
    externalIds: {},
  });
  t.switchPort.push(
    {
      name: 'ls1-lr0',
      switch: 'ls1',
      type: 'router',
      addresses: ['router'],
      portSecurity: [],
      options: { 'router-port': 'lr0-ls1' },
      externalIds: {},
    },
    {
      name: 'ln-ls1',
      switch: 'ls1',
      type: 'localnet',
      addresses: ['unknown'],
      portSecurity: [],
      options: { network_name: 'physnet1' },
      tagRequest: 100,
      externalIds: {},
    },
    {
      name: 'vm-1',
      switch: 'ls1',
      type: '',
      addresses: ['0a:58:0a:11:00:0a 10.17.0.10', 'unknown'],
      portSecurity: [],
      options: { requested_chassis: 'node-1' },
      enabled: false,
      externalIds: { vendor: 'kovn' },
    },
    {
      name: 'vm-1-c1',
      switch: 'ls1',
      type: '',
      addresses: ['0a:58:0a:11:00:0b 10.17.0.11'],
      portSecurity: [],
      options: {},
      parentName: 'vm-1',
      tagRequest: 0,
      externalIds: {},
    },
    {
      name: 'dyn',
      switch: 'ls1',
      type: '',
      addresses: ['dynamic'],
      portSecurity: [],
      options: {},
      enabled: true,
      externalIds: {},
    },
  );
  t.addressSet.push({ name: 'as_empty', addresses: [], externalIds: { np: 'x' } });
  t.portGroup.push({ name: 'pg_empty', ports: [], externalIds: {} });
  t.acl.push(
    {
      attachTo: { kind: 'switch', name: 'ls1' },
      direction: 'to-lport',
      priority: 1001,
      match: parseMatch('ip4.src == {10.17.0.0/24, 10.16.0.0/24} && tcp.dst == 80'),
      action: 'allow-stateless',
      log: false,
      label: 0,
      options: {},
      externalIds: {},
    },
    {
      attachTo: { kind: 'port-group', name: 'pg0' },
      direction: 'from-lport',
      priority: 2000,
      match: parseMatch('inport == @pg0 && ip6'),
      action: 'reject',
      name: 'x'.repeat(63),
      log: true,
      severity: 'alert',
      meter: 'acl-meter',
      label: 7,
      options: { 'apply-after-lb': 'true' },
      externalIds: { np: 'default/deny' },
    },
  );
  t.qos.push({
    switch: 'ls1',
    direction: 'to-lport',
    priority: 200,
    match: parseMatch('ip4.dst == 10.17.0.10'),
    action: {},
    bandwidth: { rate: 10_000, burst: 1_000 },
    externalIds: {},
  });
  // A second rule of the same match (a DSCP mark beside the rate): its own row, as the NB schema allows.
  t.qos.push({
    switch: 'ls1',
    direction: 'to-lport',
    priority: 200,
    match: parseMatch('ip4.dst == 10.17.0.10'),
    action: { dscp: 46 },
    bandwidth: {},
    externalIds: {},
  });
  t.nat.push({
    router: 'lr1',
    type: 'dnat',
    externalIp: '172.18.0.20',
    logicalIp: '10.16.0.10',
    externalPortRange: '',
    options: { stateless: 'true' },
    externalIds: {},
  });
  t.staticRoute.push({
    router: 'lr0',
    ipPrefix: '::/0',
    nexthop: 'fd00:10::ff',
    policy: 'dst-ip',
    routeTable: '',
    options: { ecmp_symmetric_reply: 'true' },
    externalIds: {},
  });
  t.routerPolicy.push(
    {
      router: 'lr0',
      priority: 31000,
      match: parseMatch('ip4.dst == 10.17.0.0/24'),
      action: 'allow',
      nexthops: [],
      options: {},
      externalIds: {},
    },
    {
      router: 'lr0',
      priority: 29000,
      match: parseMatch('ip4.src == 10.17.0.10'),
      action: 'reroute',
      nexthops: ['100.65.0.2', '100.65.0.3'],
      options: { pkt_mark: '7' },
      externalIds: {},
    },
    {
      router: 'lr1',
      priority: 100,
      match: parseMatch('ip4.src == 10.16.0.10 && udp'),
      action: 'drop',
      nexthops: [],
      options: {},
      externalIds: {},
    },
  );
  t.dhcpOptions.push({
    name: 'dhcp-ls1',
    cidr: '10.17.0.0/24',
    options: { lease_time: '3600', router: '10.17.0.1', server_id: '10.17.0.1', server_mac: '0a:58:0a:11:00:01' },
    externalIds: {},
  });
  const { topology, issues } = buildTopology(t);
  const problems = [...issues, ...validateTopology(topology)];
  if (problems.length > 0) throw new Error(`richTopology is invalid: ${JSON.stringify(problems)}`);
  return topology;
}

/**
 * A small valid topology for unit tests (not exported from `index.ts`): one
 * switch with a pod and a router port, two routers joined by peer ports, one
 * row of every table. `fixtureInput()` returns fresh arrays each call, so a
 * test may replace rows freely.
 */
import { parseMatch } from '../match/index.ts';
import { type TopologyInput, buildTopology } from './build.ts';
import type { TableName, Tables, Topology } from './types.ts';

export type MutableInput = { [T in TableName]: Tables[T][] };

export function fixtureInput(): MutableInput {
  return {
    dhcpOptions: [
      { name: 'dhcp-ls0', cidr: '10.16.0.0/24', options: { lease_time: '3600' }, externalIds: {} },
      { name: 'dhcp6-ls0', cidr: 'fd00:10::/64', options: {}, externalIds: {} },
    ],
    addressSet: [{ name: 'as0', addresses: ['10.16.0.5', '192.168.0.0/16'], externalIds: {} }],
    loadBalancer: [
      {
        name: 'lb0',
        vips: { '10.96.0.10:80': '10.16.0.10:8080,10.16.0.11:8080' },
        selectionFields: [],
        options: {},
        externalIds: {},
      },
    ],
    switch: [
      { name: 'ls0', loadBalancers: ['lb0'], otherConfig: { subnet: '10.16.0.0/24' }, externalIds: { vendor: 'kovn' } },
    ],
    router: [
      { name: 'lr0', options: {}, loadBalancers: ['lb0'], externalIds: {} },
      { name: 'lr1', options: {}, loadBalancers: [], externalIds: {} },
    ],
    routerPort: [
      {
        name: 'lr0-ls0',
        router: 'lr0',
        mac: '0a:58:0a:10:00:01',
        networks: ['10.16.0.1/24', 'fd00:10::1/64'],
        gatewayChassis: [{ chassisName: 'node-1', priority: 100 }],
        options: {},
        externalIds: {},
      },
      {
        name: 'lr0-lr1',
        router: 'lr0',
        mac: '0a:58:64:41:00:01',
        networks: ['100.65.0.1/24'],
        peer: 'lr1-lr0',
        gatewayChassis: [],
        options: {},
        externalIds: {},
      },
      {
        name: 'lr1-lr0',
        router: 'lr1',
        mac: '0a:58:64:41:00:02',
        networks: ['100.65.0.2/24'],
        peer: 'lr0-lr1',
        gatewayChassis: [],
        options: {},
        externalIds: {},
      },
    ],
    switchPort: [
      {
        name: 'ls0-lr0',
        switch: 'ls0',
        type: 'router',
        addresses: ['router'],
        portSecurity: [],
        options: { 'router-port': 'lr0-ls0' },
        externalIds: {},
      },
      {
        name: 'web-0.default',
        switch: 'ls0',
        type: '',
        addresses: ['0a:58:0a:10:00:0a 10.16.0.10 fd00:10::a'],
        portSecurity: ['0a:58:0a:10:00:0a 10.16.0.10'],
        options: {},
        dhcpv4Options: 'dhcp-ls0',
        dhcpv6Options: 'dhcp6-ls0',
        externalIds: { pod: 'default/web-0' },
      },
    ],
    portGroup: [{ name: 'pg0', ports: ['web-0.default'], externalIds: {} }],
    acl: [
      {
        attachTo: { kind: 'port-group', name: 'pg0' },
        direction: 'to-lport',
        priority: 2001,
        match: parseMatch('ip4.src == $as0'),
        action: 'allow-related',
        name: 'np.default',
        log: false,
        options: {},
        externalIds: {},
      },
      {
        attachTo: { kind: 'switch', name: 'ls0' },
        direction: 'from-lport',
        priority: 1000,
        match: parseMatch('ip4'),
        action: 'drop',
        log: true,
        severity: 'info',
        options: {},
        externalIds: {},
      },
    ],
    qos: [
      {
        switch: 'ls0',
        direction: 'from-lport',
        priority: 100,
        match: parseMatch('inport == "web-0.default"'),
        action: { dscp: 10 },
        bandwidth: { rate: 1000 },
        externalIds: {},
      },
    ],
    nat: [
      {
        router: 'lr0',
        type: 'snat',
        externalIp: '172.18.0.2',
        logicalIp: '10.16.0.0/24',
        options: {},
        externalIds: {},
      },
      {
        router: 'lr0',
        type: 'dnat_and_snat',
        externalIp: '172.18.0.10',
        logicalIp: '10.16.0.10',
        logicalPort: 'web-0.default',
        externalMac: '0a:58:ac:12:00:0a',
        gatewayPort: 'lr0-ls0',
        externalPortRange: '1024-65535',
        options: {},
        externalIds: {},
      },
    ],
    staticRoute: [
      { router: 'lr0', ipPrefix: '0.0.0.0/0', nexthop: '100.65.0.2', routeTable: '', options: {}, externalIds: {} },
      {
        router: 'lr0',
        ipPrefix: '10.16.0.10',
        nexthop: '100.65.0.2',
        policy: 'src-ip',
        outputPort: 'lr0-lr1',
        routeTable: 'rtb-a',
        options: {},
        externalIds: {},
      },
      { router: 'lr1', ipPrefix: '192.0.2.0/24', nexthop: 'discard', routeTable: '', options: {}, externalIds: {} },
    ],
    routerPolicy: [
      {
        router: 'lr0',
        priority: 31000,
        match: parseMatch('ip4.dst == 10.16.0.0/24'),
        action: 'allow',
        nexthops: [],
        options: {},
        externalIds: {},
      },
      {
        router: 'lr0',
        priority: 29000,
        match: parseMatch('ip4.src == $as0'),
        action: 'reroute',
        nexthops: ['100.65.0.2'],
        options: {},
        externalIds: {},
      },
    ],
  };
}

/** Build a topology from an input, failing loudly on a duplicate key (a broken test). */
export function topologyOf(input: TopologyInput): Topology {
  const { topology, issues } = buildTopology(input);
  if (issues.length > 0) throw new Error(`fixture has duplicate keys: ${issues.map((i) => i.message).join('; ')}`);
  return topology;
}

/**
 * The fixture with the first row of `table` matching `where` replaced by `{...row, ...patch}` (throws if none
 * matches).
 */
export function fixtureWith<T extends TableName>(
  table: T,
  where: (row: Tables[T]) => boolean,
  patch: Partial<Tables[T]>,
): Topology {
  const input = fixtureInput();
  const rows = input[table] as Tables[T][];
  const i = rows.findIndex(where);
  if (i === -1) throw new Error(`fixtureWith: no ${table} row matches`);
  rows[i] = { ...rows[i], ...patch } as Tables[T];
  return topologyOf(input);
}

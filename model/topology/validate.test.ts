import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../test/fc.ts';
import { formatIssues } from '../issues.ts';
import { parseMatch } from '../match/index.ts';
import { arbitraryTopology } from './arbitrary.ts';
import { fixtureInput, fixtureWith, topologyOf } from './fixture.ts';
import { keyOf } from './keys.ts';
import type { Tables, Topology } from './types.ts';
import { matchEnvOf, validateReferences, validateTopology } from './index.ts';

/** Code and path of each issue (messages are checked separately). */
const found = (t: Topology) => validateTopology(t).map((i) => ({ code: i.code, path: i.path }));
const named = (name: string) => (r: { name: string }) => r.name === name;

const webPort = named('web-0.default');
const aclKey = (a: Tables['acl']) => keyOf('acl', a);

describe('validateTopology', () => {
  it('accepts the fixture', () => {
    const issues = validateTopology(topologyOf(fixtureInput()));
    expect(issues, formatIssues(issues)).toEqual([]);
  });

  it('accepts generated topologies', () => {
    fc.assert(
      fc.property(arbitraryTopology(), (t) => {
        const issues = validateTopology(t);
        expect(issues, formatIssues(issues)).toEqual([]);
      }),
      fcParams(200),
    );
  });

  it('accepts generated topologies with matches from the match module’s generator', () => {
    fc.assert(
      fc.property(arbitraryTopology({ randomMatches: true }), (t) => {
        const issues = validateTopology(t);
        expect(issues, formatIssues(issues)).toEqual([]);
      }),
      fcParams(100),
    );
  });

  it('reports every issue, with messages naming the object and field', () => {
    const input = fixtureInput();
    input.switchPort[1] = { ...input.switchPort[1]!, switch: 'nope', addresses: ['zz'] };
    const issues = validateTopology(topologyOf(input));
    expect(issues.map((i) => i.code).sort()).toEqual(['dangling-reference', 'invalid-address']);
    for (const i of issues) expect(i.message).toContain('switchPort "web-0.default"');
    expect(issues.find((i) => i.code === 'dangling-reference')?.message).toContain('switch names switch "nope"');
  });

  it('key-mismatch: a map key that is not the row key', () => {
    const t = topologyOf(fixtureInput());
    const bad = {
      ...t,
      addressSet: new Map([...t.addressSet, ['other', { name: 'as9', addresses: [], externalIds: {} }]]),
    };
    expect(found(bad)).toEqual([{ code: 'key-mismatch', path: ['addressSet', 'other'] }]);
  });

  it('invalid-name: empty names and set names OVN cannot parse in a match', () => {
    const input = fixtureInput();
    input.switch.push({ name: '', loadBalancers: [], otherConfig: {}, externalIds: {} });
    input.portGroup.push({ name: 'np-1.default', ports: [], externalIds: {} });
    input.addressSet.push({ name: '9as', addresses: [], externalIds: {} });
    expect(found(topologyOf(input))).toEqual([
      { code: 'invalid-name', path: ['switch', '', 'name'] },
      { code: 'invalid-name', path: ['addressSet', '9as', 'name'] },
      { code: 'invalid-name', path: ['portGroup', 'np-1.default', 'name'] },
    ]);
  });

  it('duplicate-name: a router port named like a switch port; an address set named like a port group set', () => {
    const input = fixtureInput();
    input.routerPort.push({
      name: 'web-0.default',
      router: 'lr1',
      mac: '0a:58:00:00:00:09',
      networks: ['10.99.0.1/24'],
      gatewayChassis: [],
      options: {},
      externalIds: {},
    });
    input.addressSet.push({ name: 'pg0_ip4', addresses: [], externalIds: {} });
    expect(found(topologyOf(input))).toEqual([
      { code: 'duplicate-name', path: ['routerPort', 'web-0.default', 'name'] },
      { code: 'duplicate-name', path: ['addressSet', 'pg0_ip4', 'name'] },
    ]);
  });

  describe('dangling-reference', () => {
    const cases: [string, () => Topology, (string | number)[]][] = [
      [
        'switch port → switch',
        () => fixtureWith('switchPort', webPort, { switch: 'ls9' }),
        ['switchPort', 'web-0.default', 'switch'],
      ],
      [
        'switch port → DHCPv4 options',
        () => fixtureWith('switchPort', webPort, { dhcpv4Options: 'x' }),
        ['switchPort', 'web-0.default', 'dhcpv4Options'],
      ],
      [
        'switch port → DHCPv6 options',
        () => fixtureWith('switchPort', webPort, { dhcpv6Options: 'x' }),
        ['switchPort', 'web-0.default', 'dhcpv6Options'],
      ],
      [
        'router-type switch port → router port',
        () => fixtureWith('switchPort', named('ls0-lr0'), { options: { 'router-port': 'lrp9' } }),
        ['switchPort', 'ls0-lr0', 'options', 'router-port'],
      ],
      [
        'router port → router',
        () => fixtureWith('routerPort', named('lr1-lr0'), { router: 'lr9' }),
        ['routerPort', 'lr1-lr0', 'router'],
      ],
      [
        'switch → load balancer',
        () => fixtureWith('switch', named('ls0'), { loadBalancers: ['lb0', 'lb9'] }),
        ['switch', 'ls0', 'loadBalancers', 1],
      ],
      [
        'router → load balancer',
        () => fixtureWith('router', named('lr1'), { loadBalancers: ['lb9'] }),
        ['router', 'lr1', 'loadBalancers', 0],
      ],
      [
        'port group → switch port',
        () => fixtureWith('portGroup', named('pg0'), { ports: ['p9', 'web-0.default'] }),
        ['portGroup', 'pg0', 'ports', 0],
      ],
      [
        'QoS → switch',
        () => fixtureWith('qos', () => true, { switch: 'ls9' }),
        ['qos', keyOf('qos', { ...fixtureInput().qos[0]!, switch: 'ls9' }), 'switch'],
      ],
      [
        'NAT → router',
        () => fixtureWith('nat', (n) => n.type === 'snat', { router: 'lr9' }),
        ['nat', 'lr9|snat|172.18.0.2|10.16.0.0/24', 'router'],
      ],
      [
        'NAT → logical port',
        () => fixtureWith('nat', (n) => n.type !== 'snat', { logicalPort: 'p9' }),
        ['nat', 'lr0|dnat_and_snat|172.18.0.10|10.16.0.10', 'logicalPort'],
      ],
      [
        'NAT → gateway port',
        () => fixtureWith('nat', (n) => n.type !== 'snat', { gatewayPort: 'lrp9' }),
        ['nat', 'lr0|dnat_and_snat|172.18.0.10|10.16.0.10', 'gatewayPort'],
      ],
      [
        'static route → router',
        () => fixtureWith('staticRoute', (r) => r.nexthop === 'discard', { router: 'lr9' }),
        ['staticRoute', 'lr9||dst-ip|192.0.2.0/24|discard', 'router'],
      ],
      [
        'static route → output port',
        () => fixtureWith('staticRoute', (r) => r.outputPort !== undefined, { outputPort: 'lrp9' }),
        ['staticRoute', 'lr0|rtb-a|src-ip|10.16.0.10|100.65.0.2', 'outputPort'],
      ],
      [
        'router policy → router',
        () => fixtureWith('routerPolicy', (p) => p.priority === 31000, { router: 'lr9' }),
        ['routerPolicy', keyOf('routerPolicy', { ...fixtureInput().routerPolicy[0]!, router: 'lr9' }), 'router'],
      ],
    ];
    it.each(cases)('%s', (_, make, path) => {
      expect(found(make())).toEqual([{ code: 'dangling-reference', path }]);
    });

    it('router port → peer (its old peer is then one-sided)', () => {
      expect(found(fixtureWith('routerPort', named('lr0-lr1'), { peer: 'lrp9' }))).toEqual([
        { code: 'dangling-reference', path: ['routerPort', 'lr0-lr1', 'peer'] },
        { code: 'asymmetric-peer', path: ['routerPort', 'lr1-lr0', 'peer'] },
      ]);
    });

    it('ACL → switch, port group, and sets named in its match', () => {
      const input = fixtureInput();
      const acls: Tables['acl'][] = [
        { ...input.acl[1]!, attachTo: { kind: 'switch', name: 'ls9' } },
        { ...input.acl[0]!, attachTo: { kind: 'port-group', name: 'pg9' } },
        { ...input.acl[1]!, match: parseMatch('ip4.src == $as9 && outport == @pg9') },
        { ...input.acl[1]!, priority: 7, match: parseMatch('ip4.src == $pg0_ip4 && ip4.dst == $pg9_ip4') },
      ];
      input.acl = acls;
      expect(found(topologyOf(input))).toEqual([
        { code: 'dangling-reference', path: ['acl', aclKey(acls[0]!), 'attachTo', 'name'] },
        { code: 'dangling-reference', path: ['acl', aclKey(acls[1]!), 'attachTo', 'name'] },
        { code: 'dangling-reference', path: ['acl', aclKey(acls[2]!), 'match'] },
        { code: 'dangling-reference', path: ['acl', aclKey(acls[2]!), 'match'] },
        { code: 'dangling-reference', path: ['acl', aclKey(acls[3]!), 'match'] },
      ]);
    });

    it('validateReferences reports only references', () => {
      const t = fixtureWith('switchPort', webPort, { switch: 'ls9', addresses: ['zz'] });
      expect(validateReferences(t).map((i) => i.path)).toEqual([['switchPort', 'web-0.default', 'switch']]);
    });
  });

  it('asymmetric-peer and invalid-peer', () => {
    const input = fixtureInput();
    input.routerPort[2] = { ...input.routerPort[2]!, peer: undefined };
    input.routerPort.push({
      name: 'lr1-self',
      router: 'lr1',
      mac: '0a:58:00:00:00:09',
      networks: ['10.99.0.1/24'],
      peer: 'lr1-self',
      gatewayChassis: [],
      options: {},
      externalIds: {},
    });
    expect(found(topologyOf(input))).toEqual([
      { code: 'asymmetric-peer', path: ['routerPort', 'lr0-lr1', 'peer'] },
      { code: 'invalid-peer', path: ['routerPort', 'lr1-self', 'peer'] },
    ]);
  });

  it('wrong-router: a NAT gateway port or a route output port of another router', () => {
    const input = fixtureInput();
    input.nat[1] = { ...input.nat[1]!, gatewayPort: 'lr1-lr0' };
    input.staticRoute[1] = { ...input.staticRoute[1]!, outputPort: 'lr1-lr0' };
    expect(found(topologyOf(input))).toEqual([
      { code: 'wrong-router', path: ['nat', 'lr0|dnat_and_snat|172.18.0.10|10.16.0.10', 'gatewayPort'] },
      { code: 'wrong-router', path: ['staticRoute', 'lr0|rtb-a|src-ip|10.16.0.10|100.65.0.2', 'outputPort'] },
    ]);
  });

  it('missing-router-port: a router-type switch port without options:router-port', () => {
    expect(found(fixtureWith('switchPort', named('ls0-lr0'), { options: {} }))).toEqual([
      { code: 'missing-router-port', path: ['switchPort', 'ls0-lr0', 'options', 'router-port'] },
    ]);
  });

  it('family-mismatch: DHCP options, NAT, static route next hop, policy next hops', () => {
    const input = fixtureInput();
    input.switchPort[1] = { ...input.switchPort[1]!, dhcpv4Options: 'dhcp6-ls0', dhcpv6Options: 'dhcp-ls0' };
    input.nat[0] = { ...input.nat[0]!, logicalIp: 'fd00:10::/64' };
    input.staticRoute[0] = { ...input.staticRoute[0]!, nexthop: 'fd00::1' };
    input.routerPolicy[1] = { ...input.routerPolicy[1]!, nexthops: ['100.65.0.2', 'fd00::2'] };
    expect(found(topologyOf(input))).toEqual([
      { code: 'family-mismatch', path: ['switchPort', 'web-0.default', 'dhcpv4Options'] },
      { code: 'family-mismatch', path: ['switchPort', 'web-0.default', 'dhcpv6Options'] },
      { code: 'family-mismatch', path: ['nat', 'lr0|snat|172.18.0.2|fd00:10::/64', 'logicalIp'] },
      { code: 'family-mismatch', path: ['staticRoute', 'lr0||dst-ip|0.0.0.0/0|fd00::1', 'nexthop'] },
      { code: 'family-mismatch', path: ['routerPolicy', keyOf('routerPolicy', input.routerPolicy[1]!), 'nexthops', 1] },
    ]);
  });

  it('bad-priority: ACL, QoS, router policy, gateway chassis outside 0..32767 or not integers', () => {
    const input = fixtureInput();
    input.acl[1] = { ...input.acl[1]!, priority: 32768 };
    input.qos[0] = { ...input.qos[0]!, priority: -1 };
    input.routerPolicy[0] = { ...input.routerPolicy[0]!, priority: 1.5 };
    input.routerPort[0] = { ...input.routerPort[0]!, gatewayChassis: [{ chassisName: 'n', priority: 40000 }] };
    const t = topologyOf(input);
    expect(found(t)).toEqual([
      { code: 'bad-priority', path: ['routerPort', 'lr0-ls0', 'gatewayChassis', 0, 'priority'] },
      { code: 'bad-priority', path: ['acl', aclKey(input.acl[1]!), 'priority'] },
      { code: 'bad-priority', path: ['qos', keyOf('qos', input.qos[0]!), 'priority'] },
      { code: 'bad-priority', path: ['routerPolicy', keyOf('routerPolicy', input.routerPolicy[0]!), 'priority'] },
    ]);
    expect(validateTopology(t)[1]?.message).toContain('priority is 32768; it must be an integer in 0..32767');
  });

  it('accepts the priority bounds 0 and 32767', () => {
    const input = fixtureInput();
    input.acl[1] = { ...input.acl[1]!, priority: 32767 };
    input.qos[0] = { ...input.qos[0]!, priority: 0 };
    expect(found(topologyOf(input))).toEqual([]);
  });

  it('out-of-range: DSCP, bandwidth, tag request, ACL label', () => {
    const input = fixtureInput();
    input.qos[0] = { ...input.qos[0]!, action: { dscp: 64 }, bandwidth: { rate: 0, burst: 10 } };
    input.switchPort[1] = { ...input.switchPort[1]!, tagRequest: 4096 };
    input.acl[0] = { ...input.acl[0]!, label: -1 };
    const qosKey = keyOf('qos', input.qos[0]!);
    expect(found(topologyOf(input))).toEqual([
      { code: 'out-of-range', path: ['switchPort', 'web-0.default', 'tagRequest'] },
      { code: 'out-of-range', path: ['acl', aclKey(input.acl[0]!), 'label'] },
      { code: 'out-of-range', path: ['qos', qosKey, 'action', 'dscp'] },
      { code: 'out-of-range', path: ['qos', qosKey, 'bandwidth', 'rate'] },
    ]);
  });

  it('name-too-long: an ACL name over 63 characters', () => {
    const t = fixtureWith('acl', (a) => a.priority === 2001, { name: 'n'.repeat(64) });
    expect(found(t)).toEqual([{ code: 'name-too-long', path: ['acl', aclKey(fixtureInput().acl[0]!), 'name'] }]);
    expect(found(fixtureWith('acl', (a) => a.priority === 2001, { name: 'n'.repeat(63) }))).toEqual([]);
  });

  it('invalid-mac: router port MAC, NAT external MAC', () => {
    const input = fixtureInput();
    input.routerPort[0] = { ...input.routerPort[0]!, mac: '0a:58:0a:10:00' };
    input.nat[1] = { ...input.nat[1]!, externalMac: 'zz:58:ac:12:00:0a' };
    expect(found(topologyOf(input))).toEqual([
      { code: 'invalid-mac', path: ['routerPort', 'lr0-ls0', 'mac'] },
      { code: 'invalid-mac', path: ['nat', 'lr0|dnat_and_snat|172.18.0.10|10.16.0.10', 'externalMac'] },
    ]);
  });

  describe('switch port addresses', () => {
    const ok = [
      'unknown',
      'dynamic',
      'dynamic 10.16.0.5',
      'dynamic fd00::5',
      'dynamic 10.16.0.5 fd00::5',
      '0a:58:0a:10:00:0a dynamic',
      '0a:58:0a:10:00:0a',
      '0a:58:0a:10:00:0a 10.16.0.10 10.16.0.11 fd00::a',
    ];
    it.each(ok)('accepts %j', (entry) => {
      expect(found(fixtureWith('switchPort', webPort, { addresses: [entry] }))).toEqual([]);
    });
    const bad = [
      'router',
      'garbage',
      '0a:58:0a:10:00 10.16.0.10',
      '0a:58:0a:10:00:0a 10.16.0.300',
      'dynamic 10.16.0.5 10.16.0.6',
      'dynamic zz',
      '',
    ];
    it.each(bad)('rejects %j', (entry) => {
      expect(found(fixtureWith('switchPort', webPort, { addresses: ['unknown', entry] }))).toEqual([
        { code: 'invalid-address', path: ['switchPort', 'web-0.default', 'addresses', 1] },
      ]);
    });
    it('rejects a second dynamic entry', () => {
      expect(
        found(fixtureWith('switchPort', webPort, { addresses: ['dynamic', '0a:58:0a:10:00:0a dynamic'] })),
      ).toEqual([{ code: 'invalid-address', path: ['switchPort', 'web-0.default', 'addresses', 1] }]);
    });
  });

  it('invalid-address: port security, address set entries, NAT addresses, next hops', () => {
    const input = fixtureInput();
    input.switchPort[1] = { ...input.switchPort[1]!, portSecurity: ['0a:58:0a:10:00:0a 10.16.0.0/24', '10.16.0.10'] };
    input.addressSet[0] = { ...input.addressSet[0]!, addresses: ['10.16.0.5', '10.16.0.1-10.16.0.9'] };
    input.nat[0] = { ...input.nat[0]!, externalIp: '172.18.0.0/24' };
    input.nat[1] = { ...input.nat[1]!, logicalIp: '10.16.0.0/24' };
    input.staticRoute[0] = { ...input.staticRoute[0]!, nexthop: '100.65.0.0/24' };
    input.routerPolicy[1] = { ...input.routerPolicy[1]!, nexthops: ['gw'] };
    const t = topologyOf(input);
    expect(found(t)).toEqual([
      { code: 'invalid-address', path: ['switchPort', 'web-0.default', 'portSecurity', 1] },
      { code: 'invalid-address', path: ['addressSet', 'as0', 'addresses', 1] },
      { code: 'invalid-address', path: ['nat', 'lr0|snat|172.18.0.0/24|10.16.0.0/24', 'externalIp'] },
      { code: 'invalid-address', path: ['nat', 'lr0|dnat_and_snat|172.18.0.10|10.16.0.0/24', 'logicalIp'] },
      { code: 'invalid-address', path: ['staticRoute', 'lr0||dst-ip|0.0.0.0/0|100.65.0.0/24', 'nexthop'] },
      { code: 'invalid-address', path: ['routerPolicy', keyOf('routerPolicy', input.routerPolicy[1]!), 'nexthops', 0] },
    ]);
    expect(validateTopology(t).find((i) => i.path[2] === 'logicalIp')?.message).toContain('allowed only for snat');
  });

  it('invalid-cidr: router port networks, static route prefixes, DHCP CIDRs', () => {
    const input = fixtureInput();
    input.routerPort[0] = { ...input.routerPort[0]!, networks: ['10.16.0.1', 'fd00:10::1/64'] };
    input.staticRoute[2] = { ...input.staticRoute[2]!, ipPrefix: '192.0.2.0/33' };
    input.dhcpOptions[0] = { ...input.dhcpOptions[0]!, cidr: '10.16.0.0' };
    expect(found(topologyOf(input))).toEqual([
      { code: 'invalid-cidr', path: ['routerPort', 'lr0-ls0', 'networks', 0] },
      { code: 'invalid-cidr', path: ['dhcpOptions', 'dhcp-ls0', 'cidr'] },
      { code: 'invalid-cidr', path: ['staticRoute', 'lr1||dst-ip|192.0.2.0/33|discard', 'ipPrefix'] },
    ]);
  });

  it('missing-network: a router port without networks', () => {
    expect(found(fixtureWith('routerPort', named('lr1-lr0'), { networks: [] }))).toEqual([
      { code: 'missing-network', path: ['routerPort', 'lr1-lr0', 'networks'] },
    ]);
  });

  it('overlapping-networks: two ports of one router, not two routers or one port', () => {
    const input = fixtureInput();
    input.routerPort.push(
      {
        name: 'lr0-x',
        router: 'lr0',
        mac: '0a:58:00:00:00:09',
        networks: ['10.99.0.1/24', '10.16.0.129/25'],
        gatewayChassis: [],
        options: {},
        externalIds: {},
      },
      {
        name: 'lr1-x',
        router: 'lr1',
        mac: '0a:58:00:00:00:0a',
        networks: ['10.16.0.1/24', '10.16.0.2/24'],
        gatewayChassis: [],
        options: {},
        externalIds: {},
      },
    );
    const t = topologyOf(input);
    expect(found(t)).toEqual([{ code: 'overlapping-networks', path: ['routerPort', 'lr0-x', 'networks', 1] }]);
    expect(validateTopology(t)[0]?.message).toContain('overlaps 10.16.0.1/24 of port "lr0-ls0" on router "lr0"');
  });

  describe('load balancer VIPs', () => {
    it.each<Record<string, string>>([
      { '10.96.0.1': '10.16.0.10,10.16.0.11' },
      { '[fd00::1]:80': '[fd00::2]:8080' },
      { 'fd00::1': 'fd00::2' },
      { '10.96.0.1:53': '' },
    ])('accepts %j', (vips) => {
      expect(found(fixtureWith('loadBalancer', named('lb0'), { vips }))).toEqual([]);
    });
    it.each([
      ['10.96.0.1:0', '10.16.0.10', 'invalid-vip'],
      ['10.96.0.999:80', '10.16.0.10:80', 'invalid-vip'],
      ['fd00::1:80x', 'fd00::2', 'invalid-vip'],
      ['10.96.0.1:80', '10.16.0.10', 'invalid-backend'],
      ['10.96.0.1', '10.16.0.10:80', 'invalid-backend'],
      ['10.96.0.1:80', '[fd00::2]:80', 'invalid-backend'],
      ['10.96.0.1:80', '10.16.0.10:80,bogus', 'invalid-backend'],
    ])('rejects %s → %s (%s)', (vip, backends, code) => {
      expect(found(fixtureWith('loadBalancer', named('lb0'), { vips: { [vip]: backends } }))).toEqual([
        { code, path: ['loadBalancer', 'lb0', 'vips', vip] },
      ]);
    });
  });

  it('invalid-port-range: NAT external port range', () => {
    for (const r of ['0-100', '100-50', '70000', 'a-b']) {
      expect(found(fixtureWith('nat', (n) => n.type !== 'snat', { externalPortRange: r }))).toEqual([
        { code: 'invalid-port-range', path: ['nat', 'lr0|dnat_and_snat|172.18.0.10|10.16.0.10', 'externalPortRange'] },
      ]);
    }
    expect(found(fixtureWith('nat', (n) => n.type !== 'snat', { externalPortRange: '80' }))).toEqual([]);
  });

  it('missing-nexthop and unexpected-nexthop', () => {
    const input = fixtureInput();
    input.routerPolicy[0] = { ...input.routerPolicy[0]!, nexthops: ['100.65.0.2'] };
    input.routerPolicy[1] = { ...input.routerPolicy[1]!, nexthops: [] };
    input.staticRoute[0] = { ...input.staticRoute[0]!, nexthop: '' };
    input.staticRoute[1] = { ...input.staticRoute[1]!, nexthop: '' };
    expect(found(topologyOf(input))).toEqual([
      { code: 'missing-nexthop', path: ['staticRoute', 'lr0||dst-ip|0.0.0.0/0|', 'nexthop'] },
      { code: 'unexpected-nexthop', path: ['routerPolicy', keyOf('routerPolicy', input.routerPolicy[0]!), 'nexthops'] },
      { code: 'missing-nexthop', path: ['routerPolicy', keyOf('routerPolicy', input.routerPolicy[1]!), 'nexthops'] },
    ]);
  });
});

describe('invalid-match', () => {
  it('a set whose entries do not fit the field, in an ACL, a QoS rule and a policy', () => {
    const input = fixtureInput();
    input.addressSet.push({ name: 'as6', addresses: ['fd00::1'], externalIds: {} });
    input.acl[1] = { ...input.acl[1]!, match: parseMatch('ip4.src == $as6') };
    input.qos[0] = { ...input.qos[0]!, match: parseMatch('ip4.dst == {$as0, $as6}') };
    input.routerPolicy[0] = { ...input.routerPolicy[0]!, match: parseMatch('ip4.dst == $pg0_ip6') };
    const t = topologyOf(input);
    expect(found(t)).toEqual([
      { code: 'invalid-match', path: ['acl', aclKey(input.acl[1]!), 'match'] },
      { code: 'invalid-match', path: ['qos', keyOf('qos', input.qos[0]!), 'match'] },
      { code: 'invalid-match', path: ['routerPolicy', keyOf('routerPolicy', input.routerPolicy[0]!), 'match'] },
    ]);
    expect(validateTopology(t)[0]?.message).toContain('as6');
  });

  it('derives $<pg>_ip4 from the addresses of the group’s ports', () => {
    const env = matchEnvOf(topologyOf(fixtureInput()));
    expect(env.portGroupAddresses?.('pg0', 4)).toEqual(['10.16.0.10']);
    expect(env.portGroupAddresses?.('pg0', 6)).toEqual(['fd00:10::a']);
    expect(env.portGroupAddresses?.('pg9', 4)).toBeUndefined();
  });
});

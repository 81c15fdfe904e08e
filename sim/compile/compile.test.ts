import { describe, expect, it } from 'vitest';
import { formatMAC, parseIPv4 } from '../../model/addr/index.ts';
import { parseMatch } from '../../model/match/index.ts';
import { buildTopology, MAC, TopoBuilder, twoSubnets } from '../../model/topology/index.ts';
import { candidateAcls, newAclScratch } from './acl-index.ts';
import { linkLocalOf, parsePortSecurity } from './addresses.ts';
import { findVip } from './lb.ts';
import { compileNetwork } from './network.ts';
import { lookupRoute } from './routes.ts';

describe('compileNetwork', () => {
  it('files port-group ACLs under the ports they require (its members on that switch), and attaches them to every switch of the group', () => {
    const t = twoSubnets()
      .portGroup('pg', ['p2', 'q1'])
      .acl('pg', 'to-lport', 2000, 'outport == @pg && ip', 'drop')
      .acl('pg', 'from-lport', 2000, 'inport == @pg && ip', 'drop')
      .acl('sw1', 'to-lport', 1000, 'ip4.src == 10.0.0.0/8', 'allow')
      .build();
    const net = compileNetwork(t);
    const sw1 = net.switches.get('sw1')!;
    expect([...sw1.acls.out.byOutport.keys()].sort()).toEqual(['p2']);
    expect([...net.switches.get('sw2')!.acls.out.byOutport.keys()]).toEqual(['q1']);
    // The ip4.src ACL is filed under its /8; none is left to try for every packet.
    expect(sw1.acls.out.rest).toEqual([]);
    expect(sw1.acls.out.bySrc.map((b) => [b.mask, [...b.byValue.keys()]])).toEqual([
      [0xff000000, [parseIPv4('10.0.0.0')]],
    ]);
    const out = sw1.acls.out;
    const priorities = (inport: string, outport: string, src: string) =>
      candidateAcls(
        out,
        inport,
        outport,
        { 'eth.src': 0, 'eth.dst': 0, 'eth.type': 0x800, 'ip4.src': parseIPv4(src) },
        newAclScratch(),
      ).map((i) => out.rules[i]!.priority);
    expect(priorities('p1', 'p2', '10.1.2.3')).toEqual([3000, 2000]);
    expect(priorities('p1', 'p2', '192.168.0.1')).toEqual([3000]);
    expect(priorities('p2', 'p1', '10.1.2.3')).toEqual([2000]);
    expect(net.switches.get('sw2')!.hasAcls).toBe(true);
    expect(net.switches.get('sw2')!.hasStatefulAcl).toBe(false);
  });

  it('reports rows northd would ignore instead of failing', () => {
    const t = twoSubnets()
      .vif('bad', 'sw1', 'zz:zz', '10.0.1.50')
      .route('r1', '8.8.8.0/24', '172.31.0.1')
      .acl('sw1', 'to-lport', 1000, 'ip4.src == $nope', 'drop')
      .build();
    const codes = compileNetwork(t)
      .issues.map((i) => i.code)
      .sort();
    expect(codes).toEqual(['sim-bad-address', 'sim-match-never', 'sim-route-ignored']);
  });

  it('route priorities: connected 3p+2, static 3p+1, src-ip 3p; tables scope static dst-ip routes only', () => {
    const t = twoSubnets()
      .route('r1', '10.0.0.0/8', '10.0.2.11')
      .route('r1', '10.0.0.0/8', '10.0.2.11', { policy: 'src-ip' })
      .route('r1', '0.0.0.0/0', '10.0.2.11', { routeTable: 'blue' })
      .build();
    const routes = compileNetwork(t).routers.get('r1')!.routes;
    expect(routes.map((r) => [r.kind, r.priority, r.bySource, r.table])).toEqual([
      ['connected', 74, false, undefined],
      ['connected', 74, false, undefined],
      ['static', 25, false, ''],
      ['static', 24, true, undefined],
      ['static', 1, false, 'blue'],
    ]);
    const dst = (d: string, table = '') =>
      lookupRoute(routes, 4, parseIPv4('192.168.0.1'), parseIPv4(d), table)?.priority;
    expect(dst('10.9.9.9')).toBe(25);
    expect(dst('10.9.9.9', 'blue')).toBe(1);
    expect(dst('172.16.0.1')).toBeUndefined();
  });

  it('ECMP groups static routes with the same prefix, policy and table', () => {
    const t = twoSubnets().route('r1', '8.8.8.0/24', '10.0.2.11').route('r1', '8.8.8.0/24', '10.0.2.12').build();
    const r = compileNetwork(t)
      .routers.get('r1')!
      .routes.find((x) => x.kind === 'static')!;
    expect(r.targets.map((x) => x.nexthop)).toEqual([parseIPv4('10.0.2.11'), parseIPv4('10.0.2.12')]);
  });

  it('finds VIP:port before a port-less VIP on the same address', () => {
    const t = new TopoBuilder()
      .lb('a', { '10.96.0.1': '10.0.0.1' })
      .lb('b', { '10.96.0.1:80': '10.0.0.2:8080' })
      .switch('s', ['a', 'b'])
      .build();
    const vips = compileNetwork(t).switches.get('s')!.vips;
    expect(findVip(vips, parseIPv4('10.96.0.1'), 'tcp', 80)?.lb.name).toBe('b');
    expect(findVip(vips, parseIPv4('10.96.0.1'), 'udp', 80)?.lb.name).toBe('a');
  });

  it('static ARP resolution covers VIFs, other router ports and peers', () => {
    const t = twoSubnets().build();
    const arp = compileNetwork(t).routers.get('r1')!.arpResolve;
    expect(arp.get('r1-sw1')?.get(parseIPv4('10.0.1.12'))).toBe(0x000000000102);
    expect(arp.get('r1-sw2')?.get(parseIPv4('10.0.1.12'))).toBeUndefined();
    expect(MAC.p2).toBe('00:00:00:00:01:02');
  });
});

describe('addresses', () => {
  it('port security: an entry with host bits set is an exact address; host bits zero mean the subnet', () => {
    const e = parsePortSecurity('0a:00:00:00:00:01 10.0.0.5/24 10.1.0.0/16 fd00::1')!;
    expect(e.ip4.map((x) => x.subnet)).toEqual([false, true]);
    expect(e.ip6[0]!.prefix).toBe(128);
  });

  it('derives the EUI-64 link-local address from a MAC', () => {
    expect(linkLocalOf(0x00000000ff01).toString(16)).toBe('fe80000000000000020000fffe00ff01');
  });
});

describe('compile work follows the rows, not rows × datapaths (issue 8, defect 2)', () => {
  /** `ports` ports spread over `switches` switches under one router, with a port-group ACL and a QoS rule per switch. */
  function spread(ports: number, switches: number) {
    const switchRows = Array.from({ length: switches }, (_, i) => ({
      name: `ls${i}`,
      loadBalancers: [],
      otherConfig: {},
      externalIds: {},
    }));
    const portRows = Array.from({ length: ports }, (_, i) => ({
      name: `p${i}`,
      switch: `ls${i % switches}`,
      type: '' as const,
      addresses: [`${formatMAC(0x0a5800000000 + i)} 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`],
      portSecurity: [],
      options: {},
      externalIds: {},
    }));
    const { topology, issues } = buildTopology({
      switch: switchRows,
      switchPort: portRows,
      portGroup: [{ name: 'pg', ports: portRows.filter((_, i) => i % 100 === 0).map((p) => p.name), externalIds: {} }],
      acl: [
        {
          attachTo: { kind: 'port-group', name: 'pg' },
          direction: 'to-lport',
          priority: 1000,
          match: parseMatch('outport == @pg && ip4'),
          action: 'drop',
          log: false,
          options: {},
          externalIds: {},
        },
      ],
    });
    expect(issues).toEqual([]);
    return topology;
  }

  it('scans each port once whether 20,000 ports sit on 1 switch or on 2,000', () => {
    const one = compileNetwork(spread(20_000, 1));
    const many = compileNetwork(spread(20_000, 2_000));
    expect(many.switches.size).toBe(2_000);
    expect(one.stats?.portsScanned).toBe(20_000);
    expect(many.stats?.portsScanned).toBe(20_000);
    // The port group's ACL is examined once per switch it has ports on (20 of them), not once per switch.
    expect(one.stats?.rulesScanned).toBe(1);
    expect(many.stats?.rulesScanned).toBe(20);
  });
});

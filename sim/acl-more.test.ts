// ACL details: apply-after-lb, labels, egress ACLs on router ports, and IPv6.
import { describe, expect, it } from 'vitest';
import { parseIPv6 } from '../model/addr/index.ts';
import { compileNetwork } from './compile/network.ts';
import { MAC, TopoBuilder, twoSubnets } from '../model/topology/index.ts';
import { icmpEcho, ndNs, tcpPacket, udpPacket } from '../model/packet/build.ts';
import { simulate } from './simulate.ts';

describe('apply-after-lb ACLs', () => {
  const t = () =>
    twoSubnets()
      .lb('svc', { '10.96.0.10:80': '10.0.1.12:8080' }, { protocol: 'tcp' })
      .acl('sw1', 'from-lport', 1000, 'ip4.dst == 10.0.1.12 && tcp.dst == 8080', 'drop', {
        options: { 'apply-after-lb': 'true' },
      })
      .build();

  it('see the backend address, not the VIP (ls_in_acl_after_lb)', () => {
    const topo = t();
    const net = compileNetwork({
      ...topo,
      switch: new Map([...topo.switch].map(([k, v]) => [k, k === 'sw1' ? { ...v, loadBalancers: ['svc'] } : v])),
    });
    const r = simulate(net, {
      inport: 'p1',
      packet: tcpPacket({
        ethSrc: MAC.p1,
        ethDst: MAC.r1sw1,
        src: '10.0.1.11',
        dst: '10.96.0.10',
        sport: 1,
        dport: 80,
      }),
    });
    expect(r.verdict).toBe('dropped');
    expect(r.drop?.stage).toBe('ls_in_acl_after_lb');
    expect(r.drop?.rule?.priority).toBe(2000);
  });
});

describe('ACL labels', () => {
  it('an allow-related ACL with a label commits it into ct_label', () => {
    const t = twoSubnets()
      .acl('sw1', 'to-lport', 1000, 'outport == "p2" && tcp', 'allow-related', { label: 1234 })
      .build();
    const r = simulate(compileNetwork(t), {
      inport: 'p1',
      packet: tcpPacket({ ethSrc: MAC.p1, ethDst: MAC.p2, src: '10.0.1.11', dst: '10.0.1.12', sport: 1, dport: 80 }),
    });
    const p2 = r.conntrack.zoneEntries('lsp:p2');
    expect(p2).toHaveLength(1);
    expect(p2[0]!.label >> 96n).toBe(1234n);
    expect(r.stages.find((s) => s.stage === 'ls_out_stateful')!.action).toContain('ct_label.label = 1234');
  });
});

describe('to-lport ACLs on router ports (private subnet shape)', () => {
  it('close the subnet both ways: traffic leaving through the router port is filtered too', () => {
    const t = twoSubnets()
      .acl('sw1', 'to-lport', 1000, 'ip4.dst == 10.0.1.0/24 || ip4.src == 10.0.1.0/24', 'drop')
      .acl('sw1', 'to-lport', 1001, 'ip4.src == 10.0.1.0/24 && ip4.dst == 10.0.1.0/24', 'allow-related')
      .build();
    const net = compileNetwork(t);
    const inside = simulate(net, {
      inport: 'p1',
      packet: icmpEcho({ ethSrc: MAC.p1, ethDst: MAC.p2, src: '10.0.1.11', dst: '10.0.1.12' }),
    });
    expect(inside.verdict).toBe('delivered');
    const out = simulate(net, {
      inport: 'p1',
      packet: icmpEcho({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: '10.0.1.11', dst: '10.0.2.11' }),
    });
    expect(out.verdict).toBe('dropped');
    expect(out.drop).toMatchObject({ datapath: 'sw1', stage: 'ls_out_acl' });
    const into = simulate(net, {
      inport: 'q1',
      packet: icmpEcho({ ethSrc: MAC.q1, ethDst: MAC.r1sw2, src: '10.0.2.11', dst: '10.0.1.11' }),
    });
    expect(into.drop).toMatchObject({ datapath: 'sw1', stage: 'ls_out_acl' });
  });
});

describe('IPv6', () => {
  const v6 = () =>
    new TopoBuilder()
      .switch('sw1')
      .switch('sw2')
      .router('r1')
      .vif('a', 'sw1', MAC.p1, 'fd00:1::11')
      .vif('b', 'sw1', MAC.p2, 'fd00:1::12')
      .vif('c', 'sw2', MAC.q1, 'fd00:2::11')
      .connect('r1', 'sw1', MAC.r1sw1, ['fd00:1::1/64'])
      .connect('r1', 'sw2', MAC.r1sw2, ['fd00:2::1/64'])
      .build();

  it('routes a ping between subnets with hop limit decrement', () => {
    const r = simulate(compileNetwork(v6()), {
      inport: 'a',
      packet: icmpEcho({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: 'fd00:1::11', dst: 'fd00:2::11' }),
    });
    expect(r.outputs.map((o) => o.port)).toEqual(['c']);
    expect(r.outputs[0]!.packet['ip.ttl']).toBe(63);
    expect(r.outputs[0]!.packet['ip6.dst']).toBe(parseIPv6('fd00:2::11'));
  });

  it('answers neighbour solicitations for known addresses in the switch', () => {
    const r = simulate(compileNetwork(v6()), {
      inport: 'a',
      packet: ndNs({ ethSrc: MAC.p1, src: 'fd00:1::11', target: 'fd00:1::12' }),
    });
    const na = r.outputs.find((o) => o.generated === 'nd-na')!;
    expect(na.port).toBe('a');
    expect(na.packet['nd.target']).toBe(parseIPv6('fd00:1::12'));
    expect(na.packet['nd.tll']).toBe(0x000000000102);
  });

  it('ND passes ACLs even on a stateful switch with a default drop', () => {
    const t = new TopoBuilder()
      .switch('s')
      .vif('a', 's', MAC.p1, 'fd00:1::11')
      .vif('b', 's', MAC.p2, 'fd00:1::12')
      .acl('s', 'to-lport', 1000, 'ip6', 'drop')
      .acl('s', 'to-lport', 1001, 'tcp', 'allow-related')
      .build();
    const ns = ndNs({ ethSrc: MAC.p1, src: 'fd00:1::11', target: 'fd00:1::99' });
    const r = simulate(compileNetwork(t), { inport: 'a', packet: ns });
    expect(r.outputs.map((o) => o.port)).toEqual(['b']);
  });
});

describe('port groups per logical switch (settled with ovn-northd + ovn-trace 23.03)', () => {
  // SB Port_Group rows were "1_pgR" [p2, sw1-r1] and "2_pgB" [q1]; Address_Set pgR_ip4 ["10.0.1.12"], pgB_ip4
  // ["10.0.2.11"].
  const lab = () => twoSubnets().portGroup('pgB', ['q1']).portGroup('pgR', ['sw1-r1', 'p2']);
  const udp = (src: string, dst: string, ethSrc: string, ethDst: string) =>
    udpPacket({ ethSrc, ethDst, src, dst, sport: 1, dport: 2 });

  it('a flow naming a group with no port on its switch is skipped whole: `inport == @pgB || ip4.src == 10.0.1.11` on sw1 drops nothing', () => {
    const net = compileNetwork(
      lab().acl('sw1', 'from-lport', 1000, 'inport == @pgB || ip4.src == 10.0.1.11', 'drop').build(),
    );
    const r = simulate(net, { inport: 'p1', packet: udp('10.0.1.11', '10.0.1.12', MAC.p1, MAC.p2) });
    expect(r.outputs.map((o) => o.port)).toEqual(['p2']);
    expect(net.issues.map((i) => i.message)).toEqual([
      expect.stringContaining('port group @pgB has no port on switch sw1'),
    ]);
  });

  it("`@pg` on a switch is its members there; the same ACL on the group's switch works", () => {
    const net = compileNetwork(lab().acl('pgB', 'from-lport', 1000, 'inport == @pgB && ip4', 'drop').build());
    expect(simulate(net, { inport: 'q1', packet: udp('10.0.2.11', '10.0.1.11', MAC.q1, MAC.r1sw2) }).verdict).toBe(
      'dropped',
    );
    expect(net.issues).toEqual([]);
  });

  it('routers have no port groups: a policy naming one never matches, whatever else it says', () => {
    const net = compileNetwork(lab().policy('r1', 100, 'inport == @pgB || ip4.dst == 10.0.1.11', 'drop').build());
    const r = simulate(net, { inport: 'q1', packet: udp('10.0.2.11', '10.0.1.11', MAC.q1, MAC.r1sw2) });
    expect(r.outputs.map((o) => o.port)).toEqual(['p1']);
    expect(net.issues.map((i) => i.message)).toEqual([
      expect.stringContaining('port group @pgB has no port on router r1'),
    ]);
  });

  it("$pg_ip4 is global (members on any switch) and holds LSP addresses only, not a router port's networks", () => {
    const net = compileNetwork(
      lab()
        .acl('sw1', 'to-lport', 1000, 'outport == "p1" && ip4.src == $pgB_ip4', 'drop')
        .acl('sw1', 'to-lport', 1000, 'outport == "p1" && ip4.src == $pgR_ip4', 'drop')
        .build(),
    );
    expect(simulate(net, { inport: 'q1', packet: udp('10.0.2.11', '10.0.1.11', MAC.q1, MAC.r1sw2) }).verdict).toBe(
      'dropped',
    );
    expect(simulate(net, { inport: 'p2', packet: udp('10.0.1.12', '10.0.1.11', MAC.p2, MAC.p1) }).verdict).toBe(
      'dropped',
    );
    // The router's echo reply comes from 10.0.1.1, which is not in $pgR_ip4 although sw1-r1 is a member.
    const ping = simulate(net, {
      inport: 'p1',
      packet: icmpEcho({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: '10.0.1.11', dst: '10.0.1.1' }),
    });
    expect(ping.outputs.map((o) => [o.port, o.generated])).toEqual([['p1', 'icmp-echo-reply']]);
  });
});

describe('is_chassis_resident() (settled with ovn-trace 23.03: ovntrace_is_chassis_resident)', () => {
  const t = () =>
    twoSubnets()
      .connect('r1', 'ext', '00:00:00:00:ff:09', ['172.16.0.1/24'], { gatewayChassis: 'ch1' })
      .switch('ext')
      .acl('sw1', 'from-lport', 1000, 'is_chassis_resident("nope") && udp.dst == 1', 'drop')
      .acl('sw1', 'from-lport', 1000, 'is_chassis_resident("cr-r1-ext") && udp.dst == 2', 'drop')
      .build();
  const udpTo = (dport: number) =>
    udpPacket({ ethSrc: MAC.p1, ethDst: MAC.p2, src: '10.0.1.11', dst: '10.0.1.12', sport: 1, dport });

  it('by default every existing port is resident (cr-<gateway port> included), an unknown one is not', () => {
    const net = compileNetwork(t());
    const resident = net.options.isChassisResident!;
    expect(['', 'p1', 'sw1-r1', 'r1-ext', 'cr-r1-ext'].map(resident)).toEqual([true, true, true, true, true]);
    expect(resident('nope')).toBe(false);
    expect(simulate(net, { inport: 'p1', packet: udpTo(1) }).verdict).toBe('delivered');
    expect(simulate(net, { inport: 'p1', packet: udpTo(2) }).verdict).toBe('dropped');
  });

  it('with `chassis`, a gateway port is resident only on its chassis; unknown ports still are not', () => {
    const elsewhere = compileNetwork(t(), { chassis: 'ch2' });
    expect(['cr-r1-ext', 'p1', 'nope'].map(elsewhere.options.isChassisResident!)).toEqual([false, true, false]);
    expect(simulate(elsewhere, { inport: 'p1', packet: udpTo(2) }).verdict).toBe('delivered');
    expect(compileNetwork(t(), { chassis: 'ch1' }).options.isChassisResident!('cr-r1-ext')).toBe(true);
  });
});

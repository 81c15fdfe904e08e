// Packets the network generates, as ovn-controller's pinctrl builds them
// (controller/pinctrl.c of OVN 23.03.1; see sim/pipeline/generate.ts), where
// ovn-trace's own seeds differ (utilities/ovn-trace.c, execute_tcp_reset & co.).
import { describe, expect, it } from 'vitest';
import { parseIPv6 } from '../model/addr/index.ts';
import { MAC, TopoBuilder, twoSubnets } from '../model/topology/index.ts';
import { compileNetwork } from './compile/network.ts';
import { linkLocalOf } from './compile/addresses.ts';
import { icmpEcho, ipv6McastMac, sctpPacket, solicitedNode, tcpPacket, udpPacket } from '../model/packet/build.ts';
import { TCP_ACK, TCP_RST } from '../model/packet/fields.ts';
import type { Packet } from '../model/packet/packet.ts';
import { simulate } from './simulate.ts';

const v6Lab = () =>
  new TopoBuilder()
    .switch('sw1')
    .switch('sw2')
    .router('r1')
    .vif('a', 'sw1', MAC.p1, 'fd01::11')
    .vif('b', 'sw1', MAC.p2, 'fd01::12')
    .vif('c', 'sw2', MAC.q1, 'fd02::11')
    .connect('r1', 'sw1', MAC.r1sw1, ['fd01::1/64'])
    .connect('r1', 'sw2', MAC.r1sw2, ['fd02::1/64']);

/** The one packet `reject` sends back to the sender. */
function rejected(net: ReturnType<typeof compileNetwork>, inport: string, packet: Packet): Packet {
  const r = simulate(net, { inport, packet });
  expect(r.outputs.map((o) => [o.port, o.generated !== undefined])).toEqual([[inport, true]]);
  return r.outputs[0]!.packet;
}

describe('reject (pinctrl ACTION_OPCODE_REJECT)', () => {
  const v4 = compileNetwork(twoSubnets().acl('sw1', 'from-lport', 1000, 'ip4.dst == 10.0.1.12', 'reject').build());
  const v6 = compileNetwork(v6Lab().acl('sw1', 'from-lport', 1000, 'ip6.dst == fd01::12', 'reject').build());
  const spec4 = { ethSrc: MAC.p1, ethDst: MAC.p2, src: '10.0.1.11', dst: '10.0.1.12', dscp: 10 };
  const spec6 = { ethSrc: MAC.p1, ethDst: MAC.p2, src: 'fd01::11', dst: 'fd01::12', dscp: 10 };

  it('TCP: RST|ACK with TTL 63, ports swapped, a fresh IP header (pinctrl_handle_tcp_reset)', () => {
    const rst = rejected(v4, 'p1', tcpPacket({ ...spec4, sport: 1000, dport: 80 }));
    expect(rst).toMatchObject({
      'ip.ttl': 63,
      'ip.dscp': 0,
      'tcp.src': 80,
      'tcp.dst': 1000,
      'tcp.flags': TCP_RST | TCP_ACK,
    });
    expect(rst['eth.dst']).toBe(0x000000000101);
    const rst6 = rejected(v6, 'a', tcpPacket({ ...spec6, sport: 1000, dport: 80 }));
    expect(rst6).toMatchObject({ 'ip.ttl': 63, 'ip6.label': 0, 'ip6.dst': parseIPv6('fd01::11') });
  });

  it('SCTP: ABORT with TTL 63 (pinctrl_handle_sctp_abort)', () => {
    expect(rejected(v4, 'p1', sctpPacket({ ...spec4, sport: 5, dport: 6 }))).toMatchObject({
      'ip.ttl': 63,
      'sctp.src': 6,
      'sctp.dst': 5,
    });
  });

  it('ICMP destination unreachable: port unreachable for UDP only, code 1 for the rest (pinctrl_handle_icmp)', () => {
    expect(rejected(v4, 'p1', udpPacket({ ...spec4, sport: 1, dport: 53 }))).toMatchObject({
      'ip.ttl': 255,
      'icmp4.type': 3,
      'icmp4.code': 3,
    });
    expect(rejected(v4, 'p1', icmpEcho(spec4))).toMatchObject({ 'icmp4.type': 3, 'icmp4.code': 1 });
    expect(rejected(v6, 'a', udpPacket({ ...spec6, sport: 1, dport: 53 }))).toMatchObject({
      'icmp6.type': 1,
      'icmp6.code': 4,
    });
    expect(rejected(v6, 'a', icmpEcho(spec6))).toMatchObject({ 'icmp6.type': 1, 'icmp6.code': 1 });
  });

  it('a router answers TCP to its own address with an RST of TTL 63, then routes it (62 at the sender)', () => {
    const net = compileNetwork(twoSubnets().build());
    const r = simulate(net, {
      inport: 'p1',
      packet: tcpPacket({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: '10.0.1.11', dst: '10.0.2.1', sport: 1, dport: 22 }),
    });
    expect(r.outputs.map((o) => [o.port, o.generated])).toEqual([['p1', 'tcp-reset']]);
    expect(r.outputs[0]!.packet['ip.ttl']).toBe(62);
  });
});

describe('router neighbour solicitation for an unknown next hop (pinctrl_handle_nd_ns)', () => {
  const fromA = (dst: string) =>
    udpPacket({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: 'fd01::11', dst, sport: 1, dport: 2 });
  const nsOut = (net: ReturnType<typeof compileNetwork>, dst: string, port = 'c') => {
    const r = simulate(net, { inport: 'a', packet: fromA(dst) });
    const ns = r.outputs.find((o) => o.generated === 'nd-ns' && o.port === port);
    expect(ns).toBeDefined();
    return ns!.packet;
  };

  it('comes from the link-local address of the router port MAC, SLL = that MAC, to the destination\'s group (settled with ovn-trace: nd_ns { nd.target = ...; output("c") })', () => {
    const ns = nsOut(compileNetwork(v6Lab().build()), 'fd02::99');
    const dst = parseIPv6('fd02::99');
    expect(ns['ip6.src']).toBe(linkLocalOf(0x00000000ff02));
    expect(ns['ip6.src']).toBe(parseIPv6('fe80::200:ff:fe00:ff02'));
    expect(ns['eth.src']).toBe(0x00000000ff02);
    expect(ns['nd.sll']).toBe(0x00000000ff02);
    expect(ns['nd.target']).toBe(dst);
    expect(ns['ip6.dst']).toBe(solicitedNode(dst));
    expect(ns['eth.dst']).toBe(ipv6McastMac(solicitedNode(dst)));
    expect(ns).toMatchObject({ 'ip.ttl': 255, 'icmp6.type': 135, 'icmp6.code': 0, 'nd.tll': 0 });
  });

  it("a static route's next hop: NS to the next hop's group (lr_in_arp_request priority 200)", () => {
    const t = v6Lab()
      .port({ name: 'ln', switch: 'sw2', type: 'localnet', addresses: ['unknown'], options: { network_name: 'phys' } })
      .route('r1', 'fd99::/64', 'fd02::fe')
      .build();
    const net = compileNetwork(t);
    const ns = nsOut(net, 'fd99::5', 'ln');
    const hop = parseIPv6('fd02::fe');
    expect(ns['nd.target']).toBe(hop);
    expect(ns['ip6.dst']).toBe(solicitedNode(hop));
    const stage = simulate(net, { inport: 'a', packet: fromA('fd99::5') }).stages.find(
      (s) => s.stage === 'lr_in_arp_request',
    )!;
    expect(stage.rule?.priority).toBe(200);
  });

  it("a policy reroute's next hop: target = next hop, but the group is the packet destination's (priority 100 keeps compose_nd_ns's ip6.dst)", () => {
    const t = v6Lab()
      .port({ name: 'ln', switch: 'sw2', type: 'localnet', addresses: ['unknown'], options: { network_name: 'phys' } })
      .policy('r1', 100, 'ip6.dst == fd02::77', 'reroute', ['fd02::fe'])
      .build();
    const ns = nsOut(compileNetwork(t), 'fd02::77', 'ln');
    expect(ns['nd.target']).toBe(parseIPv6('fd02::fe'));
    expect(ns['ip6.dst']).toBe(solicitedNode(parseIPv6('fd02::77')));
  });
});

describe('echo replies from a router', () => {
  it('leave with TTL 255 and are routed back, arriving with 254 (ovn-trace: ip.ttl = 255; ... ip.ttl--), IPv6 too', () => {
    const r = simulate(compileNetwork(v6Lab().build()), {
      inport: 'a',
      packet: icmpEcho({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: 'fd01::11', dst: 'fd02::1' }),
    });
    expect(r.outputs.map((o) => [o.port, o.generated])).toEqual([['a', 'icmp-echo-reply']]);
    expect(r.outputs[0]!.packet).toMatchObject({ 'ip.ttl': 254, 'icmp6.type': 129, 'ip6.src': parseIPv6('fd02::1') });
  });
});

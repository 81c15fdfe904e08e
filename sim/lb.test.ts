// Load balancers: switch VIPs (as Kube-OVN attaches Service VIPs to every
// subnet switch) and router VIPs on a gateway router.
import { describe, expect, it } from 'vitest';
import { parseIPv4 } from '../model/addr/index.ts';
import { compileNetwork } from './compile/network.ts';
import { MAC, TopoBuilder, twoSubnets } from '../model/topology/index.ts';
import { tcpPacket, udpPacket } from '../model/packet/build.ts';
import { TCP_ACK, TCP_SYN } from '../model/packet/fields.ts';
import { simulate } from './simulate.ts';

const VIP = '10.96.0.10';

function withLb(extra: (b: TopoBuilder) => TopoBuilder = (b) => b) {
  const b = new TopoBuilder()
    .lb('svc', { [`${VIP}:80`]: '10.0.1.12:8080,10.0.2.11:8080' }, { protocol: 'tcp' })
    .lb('empty', { '10.96.0.20:80': '' })
    .lb('rejecting', { '10.96.0.21:80': '' }, { options: { reject: 'true' } })
    .switch('sw1', ['svc', 'empty', 'rejecting'])
    .switch('sw2', ['svc'])
    .router('r1')
    .vif('p1', 'sw1', MAC.p1, '10.0.1.11')
    .vif('p2', 'sw1', MAC.p2, '10.0.1.12')
    .vif('q1', 'sw2', MAC.q1, '10.0.2.11')
    .connect('r1', 'sw1', MAC.r1sw1, ['10.0.1.1/24'])
    .connect('r1', 'sw2', MAC.r1sw2, ['10.0.2.1/24']);
  return compileNetwork(extra(b).build());
}

const toVip = (flags = TCP_SYN) =>
  tcpPacket({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: '10.0.1.11', dst: VIP, sport: 40000, dport: 80, flags });
const pickQ1 = () => 1;

describe('switch load balancer', () => {
  it('DNATs a new connection to the backend the selector picks (same switch)', () => {
    const net = withLb();
    const r = simulate(net, { inport: 'p1', packet: toVip() });
    // The L2 destination is the router MAC: a backend on the same switch is reached through the router.
    expect(r.outputs.map((o) => o.port)).toEqual(['p2']);
    const pkt = r.outputs[0]!.packet;
    expect(pkt['ip4.dst']).toBe(parseIPv4('10.0.1.12'));
    expect(pkt['tcp.dst']).toBe(8080);
    const lb = r.stages.find((s) => s.stage === 'ls_in_lb')!;
    expect(lb.rule).toMatchObject({ kind: 'lb', name: 'svc', priority: 120 });
    expect(r.choices).toEqual([{ kind: 'lb-backend', key: 'svc|10.96.0.10:80', index: 0 }]);
  });

  it('TCP handshake through the VIP to another subnet: the reply comes back from the VIP', () => {
    const net = withLb();
    const syn = simulate(net, { inport: 'p1', packet: toVip(), select: pickQ1 });
    expect(syn.outputs.map((o) => o.port)).toEqual(['q1']);
    expect(syn.outputs[0]!.packet['ip4.dst']).toBe(parseIPv4('10.0.2.11'));
    const synAck = tcpPacket({
      ethSrc: MAC.q1,
      ethDst: MAC.r1sw2,
      src: '10.0.2.11',
      dst: '10.0.1.11',
      sport: 8080,
      dport: 40000,
      flags: TCP_SYN | TCP_ACK,
    });
    const back = simulate(net, { inport: 'q1', packet: synAck, conntrack: syn.conntrack });
    expect(back.outputs.map((o) => o.port)).toEqual(['p1']);
    expect(back.outputs[0]!.packet['ip4.src']).toBe(parseIPv4(VIP));
    expect(back.outputs[0]!.packet['tcp.src']).toBe(80);
    // The third step (ACK) stays on the same backend without asking the selector.
    const ack = simulate(net, { inport: 'p1', packet: toVip(TCP_ACK), conntrack: back.conntrack });
    expect(ack.outputs.map((o) => o.port)).toEqual(['q1']);
    expect(ack.choices).toEqual([]);
    expect(ack.ctLookups[0]!.state).toContain('est');
  });

  it('a VIP without backends drops, or rejects with options:reject', () => {
    const net = withLb();
    const dropped = simulate(net, {
      inport: 'p1',
      packet: tcpPacket({
        ethSrc: MAC.p1,
        ethDst: MAC.r1sw1,
        src: '10.0.1.11',
        dst: '10.96.0.20',
        sport: 1,
        dport: 80,
      }),
    });
    expect(dropped.verdict).toBe('dropped');
    expect(dropped.drop?.stage).toBe('ls_in_lb');
    const rejected = simulate(net, {
      inport: 'p1',
      packet: tcpPacket({
        ethSrc: MAC.p1,
        ethDst: MAC.r1sw1,
        src: '10.0.1.11',
        dst: '10.96.0.21',
        sport: 1,
        dport: 80,
      }),
    });
    expect(rejected.outputs.map((o) => [o.port, o.generated])).toEqual([['p1', 'tcp-reset']]);
  });

  it('other ports and protocols on the VIP address are not balanced', () => {
    const net = withLb();
    const r = simulate(net, {
      inport: 'p1',
      packet: udpPacket({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: '10.0.1.11', dst: VIP, sport: 1, dport: 80 }),
    });
    expect(r.stages.some((s) => s.stage === 'ls_in_lb')).toBe(false);
    expect(r.drop?.stage).toBe('lr_in_ip_routing');
  });

  it('hairpin: a client balanced to itself gets the traffic back from the VIP', () => {
    const net = withLb();
    const p = tcpPacket({ ethSrc: MAC.p2, ethDst: MAC.r1sw1, src: '10.0.1.12', dst: VIP, sport: 40000, dport: 80 });
    const r = simulate(net, { inport: 'p2', packet: p });
    expect(r.outputs.map((o) => o.port)).toEqual(['p2']);
    const out = r.outputs[0]!.packet;
    expect(out['ip4.src']).toBe(parseIPv4(VIP));
    expect(out['ip4.dst']).toBe(parseIPv4('10.0.1.12'));
    expect(out['tcp.dst']).toBe(8080);
    expect(r.stages.map((s) => s.stage)).toContain('ls_in_nat_hairpin');
    // The backend answers the VIP; the answer is un-SNATed and un-DNATed back to the client.
    const reply = tcpPacket({
      ethSrc: MAC.p2,
      ethDst: MAC.r1sw1,
      src: '10.0.1.12',
      dst: VIP,
      sport: 8080,
      dport: 40000,
      flags: TCP_SYN | TCP_ACK,
    });
    const back = simulate(net, { inport: 'p2', packet: reply, conntrack: r.conntrack });
    expect(back.outputs.map((o) => o.port)).toEqual(['p2']);
    expect(back.outputs[0]!.packet['ip4.src']).toBe(parseIPv4(VIP));
    expect(back.outputs[0]!.packet['tcp.src']).toBe(80);
    expect(back.outputs[0]!.packet['tcp.dst']).toBe(40000);
  });

  it('hairpin with options:hairpin_snat_ip: the client sees that address, and its answer to it comes back from the VIP', () => {
    // Seen on real packets (difftest seed 7 case 626): the reply flow chk_lb_hairpin learns matches the
    // hairpin SNAT address, not the VIP, so the answer is un-NATed back to the client, not routed away.
    const net = compileNetwork(
      new TopoBuilder()
        .lb(
          'svc',
          { [`${VIP}:80`]: '10.0.1.12:8080' },
          { protocol: 'tcp', options: { hairpin_snat_ip: '169.254.169.5' } },
        )
        .switch('sw1', ['svc'])
        .router('r1')
        .vif('p2', 'sw1', MAC.p2, '10.0.1.12')
        .connect('r1', 'sw1', MAC.r1sw1, ['10.0.1.1/24'])
        .build(),
    );
    const p = tcpPacket({ ethSrc: MAC.p2, ethDst: MAC.r1sw1, src: '10.0.1.12', dst: VIP, sport: 40000, dport: 80 });
    const r = simulate(net, { inport: 'p2', packet: p });
    expect(r.outputs.map((o) => [o.port, o.packet['ip4.src']])).toEqual([['p2', parseIPv4('169.254.169.5')]]);
    const arrived = r.outputs[0]!.packet;
    const reply = tcpPacket({
      ethSrc: MAC.p2,
      ethDst: MAC.r1sw1,
      src: '10.0.1.12',
      dst: '169.254.169.5',
      sport: arrived['tcp.dst']!,
      dport: arrived['tcp.src']!,
      flags: TCP_SYN | TCP_ACK,
    });
    const back = simulate(net, { inport: 'p2', packet: reply, conntrack: r.conntrack });
    expect(back.outputs.map((o) => [o.port, o.packet['ip4.src'], o.packet['ip4.dst'], o.packet['tcp.src']])).toEqual([
      ['p2', parseIPv4(VIP), parseIPv4('10.0.1.12'), 80],
    ]);
  });

  it('a stateful ACL on the backend side sees the backend address (after LB), and lets the reply out', () => {
    const net = withLb((b) =>
      b
        .portGroup('be', ['q1'])
        .acl('be', 'to-lport', 2000, 'outport == @be && ip', 'drop')
        .acl('be', 'to-lport', 2001, 'outport == @be && tcp.dst == 8080', 'allow-related'),
    );
    const syn = simulate(net, { inport: 'p1', packet: toVip(), select: pickQ1 });
    expect(syn.outputs.map((o) => o.port)).toEqual(['q1']);
    const synAck = tcpPacket({
      ethSrc: MAC.q1,
      ethDst: MAC.r1sw2,
      src: '10.0.2.11',
      dst: '10.0.1.11',
      sport: 8080,
      dport: 40000,
      flags: TCP_SYN | TCP_ACK,
    });
    expect(simulate(net, { inport: 'q1', packet: synAck, conntrack: syn.conntrack }).verdict).toBe('delivered');
  });
});

describe('router load balancer on a gateway router', () => {
  it('balances a VIP to a backend and un-DNATs the reply', () => {
    const t = twoSubnets({ chassis: 'node-1' })
      .lb('web', { '10.0.2.100:80': '10.0.1.12:8080' }, { protocol: 'tcp' })
      .build();
    const net = compileNetwork({ ...t, router: new Map([['r1', { ...t.router.get('r1')!, loadBalancers: ['web'] }]]) });
    const p = tcpPacket({
      ethSrc: MAC.q1,
      ethDst: MAC.r1sw2,
      src: '10.0.2.11',
      dst: '10.0.2.100',
      sport: 1234,
      dport: 80,
    });
    const r = simulate(net, { inport: 'q1', packet: p });
    expect(r.outputs.map((o) => o.port)).toEqual(['p2']);
    expect(r.outputs[0]!.packet['ip4.dst']).toBe(parseIPv4('10.0.1.12'));
    expect(r.stages.find((s) => s.stage === 'lr_in_dnat')?.rule?.kind).toBe('lb');
    const reply = tcpPacket({
      ethSrc: MAC.p2,
      ethDst: MAC.r1sw1,
      src: '10.0.1.12',
      dst: '10.0.2.11',
      sport: 8080,
      dport: 1234,
      flags: TCP_SYN | TCP_ACK,
    });
    const back = simulate(net, { inport: 'p2', packet: reply, conntrack: r.conntrack });
    expect(back.outputs.map((o) => o.port)).toEqual(['q1']);
    expect(back.outputs[0]!.packet['ip4.src']).toBe(parseIPv4('10.0.2.100'));
    expect(back.outputs[0]!.packet['tcp.src']).toBe(80);
  });
});

describe('VIPs of one family never take packets of the other', () => {
  // ::a00:10c is ::10.0.1.12, the same number as p2's IPv4 address.
  it('an IPv4 packet to 10.0.1.12 is not balanced by the VIP [::a00:10c]:80', () => {
    const t = new TopoBuilder()
      .lb('v6', { '[::a00:10c]:80': '[fd00::12]:8080' }, { protocol: 'tcp' })
      .switch('sw1', ['v6'])
      .vif('p1', 'sw1', MAC.p1, '10.0.1.11')
      .vif('p2', 'sw1', MAC.p2, '10.0.1.12')
      .build();
    const net = compileNetwork(t);
    const p = tcpPacket({
      ethSrc: MAC.p1,
      ethDst: MAC.p2,
      src: '10.0.1.11',
      dst: '10.0.1.12',
      sport: 40000,
      dport: 80,
    });
    const r = simulate(net, { inport: 'p1', packet: p });
    expect(r.choices).toEqual([]);
    expect(r.outputs.map((o) => o.port)).toEqual(['p2']);
    expect(r.outputs[0]!.packet['ip4.dst']).toBe(parseIPv4('10.0.1.12'));
    expect(r.outputs[0]!.packet['tcp.dst']).toBe(80);
  });
});

import { describe, expect, it } from 'vitest';
import { compileNetwork } from './compile/index.ts';
import { probeConnection, replyTo } from './connection.ts';
import { MAC, twoSubnets } from '../model/topology/index.ts';
import { icmpEcho, tcpPacket, udpPacket } from '../model/packet/build.ts';
import { TCP_ACK, TCP_SYN } from '../model/packet/fields.ts';

const syn = (dst: string, dport: number, ethDst: string = MAC.r1sw1) =>
  tcpPacket({ ethSrc: MAC.p1, ethDst, src: '10.0.1.11', dst, sport: 40000, dport });

describe('probeConnection', () => {
  it('builds the reply the destination would send', () => {
    const r = replyTo(syn('10.0.2.11', 80))!;
    expect(r['ip4.src']).toBe(syn('10.0.2.11', 80)['ip4.dst']);
    expect(r['tcp.src']).toBe(80);
    expect(r['tcp.dst']).toBe(40000);
    expect(r['tcp.flags']).toBe(TCP_SYN | TCP_ACK);
    expect(r['eth.dst']).toBe(syn('10.0.2.11', 80)['eth.src']);
  });

  it('TCP across a router: SYN delivered and SYN-ACK back', () => {
    const net = compileNetwork(twoSubnets().build());
    const r = probeConnection(net, { inport: 'p1', target: 'q1', packet: syn('10.0.2.11', 80) });
    expect(r.allowed).toBe(true);
    expect(r.reply?.outputs.map((o) => o.port)).toEqual(['p1']);
  });

  it('a stateless drop of the replies makes TCP denied although the SYN arrives', () => {
    const topo = twoSubnets().acl('sw2', 'from-lport', 100, 'tcp.src == 80', 'drop').build();
    const r = probeConnection(compileNetwork(topo), { inport: 'p1', target: 'q1', packet: syn('10.0.2.11', 80) });
    expect(r.forward.outputs.some((o) => o.port === 'q1')).toBe(true);
    expect(r.allowed).toBe(false);
    expect(r.reason).toMatch(/^reply dropped in sw2/);
  });

  it('allow-related on the destination lets the reply through; a default drop alone does not', () => {
    const base = () => twoSubnets().portGroup('pg', ['q1']).acl('pg', 'to-lport', 2000, 'outport == @pg && ip', 'drop');
    const denied = probeConnection(compileNetwork(base().build()), {
      inport: 'p1',
      target: 'q1',
      packet: syn('10.0.2.11', 80),
    });
    expect(denied.allowed).toBe(false);
    const topo = base().acl('pg', 'to-lport', 2001, 'outport == @pg && ip && tcp.dst == 80', 'allow-related').build();
    const net = compileNetwork(topo);
    expect(probeConnection(net, { inport: 'p1', target: 'q1', packet: syn('10.0.2.11', 80) }).allowed).toBe(true);
    expect(probeConnection(net, { inport: 'p1', target: 'q1', packet: syn('10.0.2.11', 22) }).allowed).toBe(false);
  });

  it('UDP needs only the first datagram; ICMP needs the echo reply', () => {
    const net = compileNetwork(twoSubnets().build());
    const udp = udpPacket({
      ethSrc: MAC.p1,
      ethDst: MAC.r1sw1,
      src: '10.0.1.11',
      dst: '10.0.2.11',
      sport: 5353,
      dport: 53,
    });
    const u = probeConnection(net, { inport: 'p1', target: 'q1', packet: udp });
    expect(u.allowed).toBe(true);
    expect(u.reply).toBeUndefined();
    const ping = icmpEcho({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: '10.0.1.11', dst: '10.0.2.11' });
    expect(probeConnection(net, { inport: 'p1', target: 'q1', packet: ping }).allowed).toBe(true);
  });

  it('a load-balancer VIP: the reply comes back from the VIP, un-NATed', () => {
    const topo = twoSubnets().lb('svc', { '10.96.0.10:80': '10.0.2.11:8080' }).build();
    const withLb = {
      ...topo,
      switch: new Map([...topo.switch].map(([k, s]) => [k, k === 'sw1' ? { ...s, loadBalancers: ['svc'] } : s])),
    };
    const r = probeConnection(compileNetwork(withLb), { inport: 'p1', target: 'q1', packet: syn('10.96.0.10', 80) });
    expect(r.forward.outputs.find((o) => o.port === 'q1')?.packet['tcp.dst']).toBe(8080);
    expect(r.allowed).toBe(true);
    const back = r.reply!.outputs.find((o) => o.port === 'p1')!.packet;
    expect(back['tcp.src']).toBe(80);
  });

  it('a probe to the wrong target is denied with the reason', () => {
    const net = compileNetwork(twoSubnets().build());
    const r = probeConnection(net, { inport: 'p1', target: 'p2', packet: syn('10.0.2.11', 80) });
    expect(r.allowed).toBe(false);
    expect(r.reason).toBe('never reached p2');
  });
});

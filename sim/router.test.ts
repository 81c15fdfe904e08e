// Router behaviour. Where a case was settled by running real OVN 23.03
// (ovn-northd + ovn-trace on the same topology), the test says so.
import { describe, expect, it } from 'vitest';
import { parseIPv4 } from '../model/addr/index.ts';
import { compileNetwork } from './compile/network.ts';
import { MAC, TopoBuilder, twoSubnets } from '../model/topology/index.ts';
import { arpRequest, icmpEcho, udpPacket } from '../model/packet/build.ts';
import { simulate } from './simulate.ts';

const fromP1 = (dst: string, ttl = 64) =>
  udpPacket({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: '10.0.1.11', dst, sport: 1000, dport: 53, ttl });

describe('routing between two switches', () => {
  const net = compileNetwork(twoSubnets().build());

  it('decrements TTL and rewrites both MACs (settled with ovn-trace: p1 -> q1)', () => {
    const r = simulate(net, { inport: 'p1', packet: fromP1('10.0.2.11') });
    expect(r.verdict).toBe('delivered');
    const out = r.outputs[0]!;
    expect(out.port).toBe('q1');
    expect(out.packet['ip.ttl']).toBe(63);
    expect(out.packet['eth.src']).toBe(0x00000000ff02);
    expect(out.packet['eth.dst']).toBe(0x000000000201);
    const route = r.stages.find((s) => s.stage === 'lr_in_ip_routing')!;
    expect(route.rule?.priority).toBe(24 * 3 + 2);
    expect(route.changes?.map((c) => c.field)).toEqual(['eth.src', 'ip.ttl']);
  });

  it('answers a ping to its own address; the reply is routed back (settled with ovn-trace)', () => {
    const r = simulate(net, {
      inport: 'p1',
      packet: icmpEcho({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: '10.0.1.11', dst: '10.0.1.1' }),
    });
    expect(r.outputs).toHaveLength(1);
    const out = r.outputs[0]!;
    expect(out.generated).toBe('icmp-echo-reply');
    expect(out.packet['ip4.src']).toBe(parseIPv4('10.0.1.1'));
    expect(out.packet['icmp4.type']).toBe(0);
    expect(out.packet['ip.ttl']).toBe(254); // 255, then routed (ttl--)
  });

  it('pings the far router address too (any router port address answers)', () => {
    const r = simulate(net, {
      inport: 'p1',
      packet: icmpEcho({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: '10.0.1.11', dst: '10.0.2.1' }),
    });
    expect(r.outputs[0]!.generated).toBe('icmp-echo-reply');
  });

  it('sends ICMP time exceeded for TTL 1, from the inport address', () => {
    const r = simulate(net, { inport: 'p1', packet: fromP1('10.0.2.11', 1) });
    expect(r.outputs).toHaveLength(1);
    const out = r.outputs[0]!;
    expect(out.port).toBe('p1');
    expect(out.generated).toBe('icmp-error');
    expect(out.packet['icmp4.type']).toBe(11);
    expect(out.packet['ip4.src']).toBe(parseIPv4('10.0.1.1'));
    expect(out.packet.inner?.dst).toBe(parseIPv4('10.0.2.11'));
  });

  it('drops traffic to a router address that is not a ping (non-gateway routers answer UDP with port unreachable)', () => {
    const r = simulate(net, { inport: 'p1', packet: fromP1('10.0.1.1') });
    expect(r.outputs[0]?.generated).toBe('icmp-error');
    expect(r.outputs[0]?.packet['icmp4.type']).toBe(3);
    // A gateway router just drops it (lr_in_ip_input priority 60).
    const gw = compileNetwork(twoSubnets({ chassis: 'ch1' }).build());
    const dropped = simulate(gw, { inport: 'p1', packet: fromP1('10.0.1.1') });
    expect(dropped.verdict).toBe('dropped');
    expect(dropped.drop?.rule?.priority).toBe(60);
  });

  it('drops packets with no route', () => {
    const r = simulate(net, { inport: 'p1', packet: fromP1('8.8.8.8') });
    expect(r.verdict).toBe('dropped');
    expect(r.drop?.stage).toBe('lr_in_ip_routing');
  });

  it('answers ARP for its address only from its own subnet (router ARP flows match arp.spa)', () => {
    // From a localnet port the switch's ARP responder stays out of it, so the router answers.
    const t = twoSubnets()
      .port({ name: 'ln', switch: 'sw1', type: 'localnet', addresses: ['unknown'], options: { network_name: 'phys' } })
      .build();
    const n = compileNetwork(t);
    const inSubnet = simulate(n, {
      inport: 'ln',
      packet: arpRequest({ sha: '00:00:00:00:01:09', spa: '10.0.1.9', tpa: '10.0.1.1' }),
    });
    const reply = inSubnet.outputs.find((o) => o.generated === 'arp-reply')!;
    expect(reply.port).toBe('ln');
    expect(reply.packet['arp.sha']).toBe(0x00000000ff01);
    expect(inSubnet.stages.some((s) => s.datapath === 'r1' && s.stage === 'lr_in_ip_input')).toBe(true);
    const outside = simulate(n, {
      inport: 'ln',
      packet: arpRequest({ sha: '00:00:00:00:01:09', spa: '192.168.9.9', tpa: '10.0.1.1' }),
    });
    expect(outside.outputs.some((o) => o.generated === 'arp-reply')).toBe(false);
    expect(outside.drops.some((d) => d.datapath === 'r1' && d.rule?.priority === 85)).toBe(true);
  });

  it('sends an ARP request when the next hop MAC is unknown, and forwards once it is known', () => {
    const t = twoSubnets()
      .port({ name: 'ln', switch: 'sw2', type: 'localnet', addresses: ['unknown'], options: { network_name: 'phys' } })
      .route('r1', '0.0.0.0/0', '10.0.2.254')
      .build();
    const unknown = simulate(compileNetwork(t), { inport: 'p1', packet: fromP1('8.8.8.8') });
    const req = unknown.outputs.find((o) => o.port === 'ln')!;
    expect(req.generated).toBe('arp-request');
    expect(req.packet['arp.tpa']).toBe(parseIPv4('10.0.2.254'));
    expect(req.packet['arp.spa']).toBe(parseIPv4('10.0.2.1'));
    expect(unknown.drops.some((d) => d.stage === 'lr_in_arp_request')).toBe(true);
    const known = compileNetwork(t, { neighbors: { 'r1-sw2': { '10.0.2.254': '00:00:00:00:fe:fe' } } });
    const r = simulate(known, { inport: 'p1', packet: fromP1('8.8.8.8') });
    expect(r.outputs.map((o) => o.port)).toEqual(['ln']);
    expect(r.outputs[0]!.packet['eth.dst']).toBe(0x00000000fefe);
    expect(r.outputs[0]!.packet['ip4.dst']).toBe(parseIPv4('8.8.8.8'));
  });
});

describe('static routes, route tables and policies', () => {
  const base = () =>
    twoSubnets()
      .vif('q2', 'sw2', '00:00:00:00:02:02', '10.0.2.12')
      .route('r1', '192.168.0.0/16', '10.0.2.11')
      .route('r1', '192.168.5.0/24', '10.0.2.12')
      .route('r1', '10.0.1.128/25', '10.0.2.12', { policy: 'src-ip' });

  it('longest prefix wins: static /24 over static /16', () => {
    const net = compileNetwork(base().build());
    const r = simulate(net, { inport: 'p1', packet: fromP1('192.168.5.1') });
    expect(r.outputs[0]!.packet['eth.dst']).toBe(0x000000000202);
    const r16 = simulate(net, { inport: 'p1', packet: fromP1('192.168.6.1') });
    expect(r16.outputs[0]!.packet['eth.dst']).toBe(0x000000000201);
    expect(r16.stages.find((s) => s.stage === 'lr_in_ip_routing')!.rule!.priority).toBe(16 * 3 + 1);
  });

  it('src-ip routes apply at prefix length × 3 (settled with ovn-northd: /25 src-ip is priority 75)', () => {
    const net = compileNetwork(base().vif('p3', 'sw1', '00:00:00:00:01:03', '10.0.1.200').build());
    const p = udpPacket({
      ethSrc: '00:00:00:00:01:03',
      ethDst: MAC.r1sw1,
      src: '10.0.1.200',
      dst: '192.168.6.1',
      sport: 1,
      dport: 2,
    });
    const r = simulate(net, { inport: 'p3', packet: p });
    const route = r.stages.find((s) => s.stage === 'lr_in_ip_routing')!;
    expect(route.rule!.priority).toBe(75);
    expect(r.outputs[0]!.packet['eth.dst']).toBe(0x000000000202);
  });

  it('ECMP routes pick a member with the selector', () => {
    const t = twoSubnets()
      .vif('q2', 'sw2', '00:00:00:00:02:02', '10.0.2.12')
      .route('r1', '192.168.0.0/16', '10.0.2.11')
      .route('r1', '192.168.0.0/16', '10.0.2.12')
      .build();
    const net = compileNetwork(t);
    const first = simulate(net, { inport: 'p1', packet: fromP1('192.168.1.1') });
    const second = simulate(net, {
      inport: 'p1',
      packet: fromP1('192.168.1.1'),
      select: (c) => (c.kind === 'ecmp-route' ? 1 : 0),
    });
    expect(first.outputs[0]!.port).toBe('q1');
    expect(second.outputs[0]!.port).toBe('q2');
    // The member is named as ovn-trace shows it: router, next hop, outport (verify/difftest/ecmp.ts).
    expect(second.choices).toEqual([
      { kind: 'ecmp-route', key: expect.any(String), index: 1, via: expect.stringMatching(/^r1\|10\.0\.2\.12\|/) },
    ]);
    expect(first.choices[0]!.via).toMatch(/^r1\|10\.0\.2\.11\|/);
  });

  it('route tables: a port bound to a table uses that table and connected routes, not main-table static routes', () => {
    const t = new TopoBuilder()
      .switch('sw1')
      .switch('sw2')
      .router('r1')
      .vif('p1', 'sw1', MAC.p1, '10.0.1.11')
      .vif('q1', 'sw2', MAC.q1, '10.0.2.11')
      .connect('r1', 'sw1', MAC.r1sw1, ['10.0.1.1/24'], { options: { route_table: 'blue' } })
      .connect('r1', 'sw2', MAC.r1sw2, ['10.0.2.1/24'])
      .route('r1', '8.8.8.0/24', '10.0.2.11', { routeTable: 'blue' })
      .route('r1', '9.9.9.0/24', '10.0.2.11')
      .build();
    const net = compileNetwork(t);
    expect(simulate(net, { inport: 'p1', packet: fromP1('8.8.8.8') }).verdict).toBe('delivered');
    expect(simulate(net, { inport: 'p1', packet: fromP1('9.9.9.9') }).drop?.stage).toBe('lr_in_ip_routing');
    expect(simulate(net, { inport: 'p1', packet: fromP1('10.0.2.11') }).verdict).toBe('delivered');
  });

  it('Kube-OVN policies: allow at 31000 to the subnet, reroute at 29000 (settled with ovn-trace)', () => {
    const t = base()
      .policy('r1', 31000, 'ip4.dst == 10.0.1.0/24', 'allow')
      .policy('r1', 29000, 'ip4.src == 10.0.2.0/24', 'reroute', ['10.0.1.12'])
      .policy('r1', 20000, 'ip4.dst == 9.9.9.9', 'drop')
      .route('r1', '0.0.0.0/0', '10.0.2.12')
      .build();
    const net = compileNetwork(t);
    const q1 = (dst: string) =>
      udpPacket({ ethSrc: MAC.q1, ethDst: MAC.r1sw2, src: '10.0.2.11', dst, sport: 1, dport: 2 });
    const allowed = simulate(net, { inport: 'q1', packet: q1('10.0.1.11') });
    expect(allowed.outputs[0]!.port).toBe('p1');
    expect(allowed.stages.find((s) => s.stage === 'lr_in_policy')!.rule!.priority).toBe(31000);
    const rerouted = simulate(net, { inport: 'q1', packet: q1('192.168.6.6') });
    expect(rerouted.outputs[0]!.port).toBe('p2');
    expect(rerouted.outputs[0]!.packet['ip4.dst']).toBe(parseIPv4('192.168.6.6'));
    expect(simulate(net, { inport: 'p1', packet: fromP1('9.9.9.9') }).drop?.stage).toBe('lr_in_policy');
  });

  it('a reroute whose next hop no port reaches is ignored, as northd does', () => {
    const net = compileNetwork(base().policy('r1', 100, 'ip4', 'reroute', ['172.31.0.1']).build());
    expect(net.issues.some((i) => i.code === 'sim-policy-ignored')).toBe(true);
    expect(simulate(net, { inport: 'p1', packet: fromP1('10.0.2.11') }).verdict).toBe('delivered');
  });

  it('discard routes drop', () => {
    const net = compileNetwork(base().route('r1', '192.168.7.0/24', 'discard').build());
    expect(simulate(net, { inport: 'p1', packet: fromP1('192.168.7.1') }).drop?.reason).toBe('discard route');
  });
});

describe('router-to-router peers', () => {
  it('forwards across a direct peer link and resolves the peer MAC statically', () => {
    const t = new TopoBuilder()
      .switch('sw1')
      .switch('sw2')
      .router('ra')
      .router('rb')
      .vif('a1', 'sw1', MAC.p1, '10.0.1.11')
      .vif('b1', 'sw2', MAC.q1, '10.0.2.11')
      .connect('ra', 'sw1', MAC.r1sw1, ['10.0.1.1/24'])
      .connect('rb', 'sw2', MAC.r1sw2, ['10.0.2.1/24'])
      .peer('ra', 'rb', '00:00:00:00:aa:0a', '100.65.0.1/24', '00:00:00:00:aa:0b', '100.65.0.2/24')
      .route('ra', '10.0.2.0/24', '100.65.0.2')
      .route('rb', '10.0.1.0/24', '100.65.0.1')
      .build();
    const net = compileNetwork(t);
    const r = simulate(net, {
      inport: 'a1',
      packet: udpPacket({ ethSrc: MAC.p1, ethDst: MAC.r1sw1, src: '10.0.1.11', dst: '10.0.2.11', sport: 1, dport: 2 }),
    });
    expect(r.outputs.map((o) => o.port)).toEqual(['b1']);
    expect(r.outputs[0]!.packet['ip.ttl']).toBe(62);
    expect(
      r.stages.filter((s) => s.stage === 'lr_in_admission' || s.stage === 'lr_in_ip_routing').map((s) => s.datapath),
    ).toContain('rb');
  });
});

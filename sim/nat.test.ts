// NAT on gateway routers and distributed gateway ports. The forward cases
// were compared with ovn-trace on the same NB rows (ovn-trace itself stops at
// a bare ct_snat on a gateway router, so inbound traffic to a SNAT external
// IP shows no output there; the simulator follows the datapath).
import { describe, expect, it } from 'vitest';
import { parseIPv4 } from '../model/addr/index.ts';
import { compileNetwork } from './compile/network.ts';
import { TopoBuilder } from '../model/topology/index.ts';
import { icmpEcho, tcpPacket, udpPacket } from '../model/packet/build.ts';
import { TCP_ACK, TCP_SYN } from '../model/packet/fields.ts';
import { simulate } from './simulate.ts';

const POD = '0a:00:00:00:00:0b';
const POD2 = '0a:00:00:00:00:0c';
const HOST = '0a:00:00:00:09:09';
const GW_IN = '0a:00:00:00:aa:01';
const GW_OUT = '0a:00:00:00:aa:02';

/** pods 10.16.0.0/24 ── gw ── ext 192.0.2.0/24 (host 192.0.2.9) */
function gatewayRouter(dgp: boolean): TopoBuilder {
  return new TopoBuilder()
    .switch('pods')
    .switch('ext')
    .router('gw', dgp ? {} : { chassis: 'node-1' })
    .vif('pod1', 'pods', POD, '10.16.0.11')
    .vif('pod2', 'pods', POD2, '10.16.0.12')
    .vif('host', 'ext', HOST, '192.0.2.9')
    .connect('gw', 'pods', GW_IN, ['10.16.0.1/24'])
    .connect('gw', 'ext', GW_OUT, ['192.0.2.2/24'], dgp ? { gatewayChassis: 'node-1' } : {})
    .nat('gw', 'snat', '192.0.2.2', '10.16.0.0/24')
    .nat('gw', 'dnat_and_snat', '192.0.2.50', '10.16.0.12');
}

const out = (src: string, srcMac: string, sport = 40000) =>
  tcpPacket({ ethSrc: srcMac, ethDst: GW_IN, src, dst: '192.0.2.9', sport, dport: 443 });

describe.each([
  ['gateway router', false],
  ['distributed gateway port', true],
])('NAT on a %s', (_name, dgp) => {
  const net = compileNetwork(gatewayRouter(dgp).build());

  it('SNATs a pod subnet to the external IP, and un-SNATs the reply', () => {
    const syn = simulate(net, { inport: 'pod1', packet: out('10.16.0.11', POD) });
    expect(syn.outputs.map((o) => o.port)).toEqual(['host']);
    const sent = syn.outputs[0]!.packet;
    expect(sent['ip4.src']).toBe(parseIPv4('192.0.2.2'));
    expect(sent['tcp.src']).toBe(40000);
    expect(sent['eth.src']).toBe(0x0a000000aa02);
    const reply = tcpPacket({
      ethSrc: HOST,
      ethDst: GW_OUT,
      src: '192.0.2.9',
      dst: '192.0.2.2',
      sport: 443,
      dport: 40000,
      flags: TCP_SYN | TCP_ACK,
    });
    const back = simulate(net, { inport: 'host', packet: reply, conntrack: syn.conntrack });
    expect(back.outputs.map((o) => o.port)).toEqual(['pod1']);
    expect(back.outputs[0]!.packet['ip4.dst']).toBe(parseIPv4('10.16.0.11'));
    expect(back.outputs[0]!.packet['tcp.dst']).toBe(40000);
  });

  it('an unsolicited packet to the SNAT address goes nowhere', () => {
    const cold = tcpPacket({
      ethSrc: HOST,
      ethDst: GW_OUT,
      src: '192.0.2.9',
      dst: '192.0.2.2',
      sport: 443,
      dport: 40000,
    });
    expect(simulate(net, { inport: 'host', packet: cold }).verdict).toBe('dropped');
  });

  it('dnat_and_snat: inbound to the FIP reaches the pod; the pod leaves as the FIP (more specific than the subnet SNAT)', () => {
    const inbound = tcpPacket({
      ethSrc: HOST,
      ethDst: GW_OUT,
      src: '192.0.2.9',
      dst: '192.0.2.50',
      sport: 5555,
      dport: 80,
    });
    const r = simulate(net, { inport: 'host', packet: inbound });
    expect(r.outputs.map((o) => o.port)).toEqual(['pod2']);
    expect(r.outputs[0]!.packet['ip4.dst']).toBe(parseIPv4('10.16.0.12'));
    const reply = tcpPacket({
      ethSrc: POD2,
      ethDst: GW_IN,
      src: '10.16.0.12',
      dst: '192.0.2.9',
      sport: 80,
      dport: 5555,
      flags: TCP_SYN | TCP_ACK,
    });
    const back = simulate(net, { inport: 'pod2', packet: reply, conntrack: r.conntrack });
    expect(back.outputs.map((o) => o.port)).toEqual(['host']);
    expect(back.outputs[0]!.packet['ip4.src']).toBe(parseIPv4('192.0.2.50'));
    const fresh = simulate(net, { inport: 'pod2', packet: out('10.16.0.12', POD2) });
    expect(fresh.outputs[0]!.packet['ip4.src']).toBe(parseIPv4('192.0.2.50'));
  });

  it('pings across the SNAT and gets the echo reply back', () => {
    const req = icmpEcho({ ethSrc: POD, ethDst: GW_IN, src: '10.16.0.11', dst: '192.0.2.9', id: 7 });
    const r = simulate(net, { inport: 'pod1', packet: req });
    expect(r.outputs[0]!.packet['ip4.src']).toBe(parseIPv4('192.0.2.2'));
    const rep = icmpEcho({ ethSrc: HOST, ethDst: GW_OUT, src: '192.0.2.9', dst: '192.0.2.2', kind: 'reply', id: 7 });
    const back = simulate(net, { inport: 'host', packet: rep, conntrack: r.conntrack });
    expect(back.outputs.map((o) => o.port)).toEqual(['pod1']);
  });
});

describe('NAT needs a gateway', () => {
  it('NAT rules on a router with neither options:chassis nor a gateway port are ignored', () => {
    const t = new TopoBuilder()
      .switch('pods')
      .switch('ext')
      .router('r')
      .vif('pod1', 'pods', POD, '10.16.0.11')
      .vif('host', 'ext', HOST, '192.0.2.9')
      .connect('r', 'pods', GW_IN, ['10.16.0.1/24'])
      .connect('r', 'ext', GW_OUT, ['192.0.2.2/24'])
      .nat('r', 'snat', '192.0.2.2', '10.16.0.0/24')
      .build();
    const net = compileNetwork(t);
    expect(net.issues.map((i) => i.code)).toContain('sim-nat-ignored');
    const r = simulate(net, { inport: 'pod1', packet: out('10.16.0.11', POD) });
    expect(r.outputs[0]!.packet['ip4.src']).toBe(parseIPv4('10.16.0.11'));
  });
});

describe('distributed gateway port specifics', () => {
  it('distributed dnat_and_snat uses the external MAC (settled with ovn-trace)', () => {
    const t = gatewayRouter(true)
      .nat('gw', 'dnat_and_snat', '192.0.2.60', '10.16.0.11', { logicalPort: 'pod1', externalMac: '0a:00:00:00:ee:60' })
      .build();
    const net = compileNetwork(t);
    const r = simulate(net, {
      inport: 'pod1',
      packet: udpPacket({ ethSrc: POD, ethDst: GW_IN, src: '10.16.0.11', dst: '192.0.2.9', sport: 1, dport: 2 }),
    });
    expect(r.outputs[0]!.packet['ip4.src']).toBe(parseIPv4('192.0.2.60'));
    expect(r.outputs[0]!.packet['eth.src']).toBe(0x0a000000ee60);
    const inbound = udpPacket({
      ethSrc: HOST,
      ethDst: '0a:00:00:00:ee:60',
      src: '192.0.2.9',
      dst: '192.0.2.60',
      sport: 2,
      dport: 1,
    });
    const back = simulate(net, { inport: 'host', packet: inbound });
    expect(back.outputs.map((o) => o.port)).toEqual(['pod1']);
  });

  it('from another chassis the packet is redirected to the gateway chassis and SNATed there', () => {
    const on = simulate(compileNetwork(gatewayRouter(true).build(), { chassis: 'node-1' }), {
      inport: 'pod1',
      packet: out('10.16.0.11', POD),
    });
    const off = simulate(compileNetwork(gatewayRouter(true).build(), { chassis: 'node-2' }), {
      inport: 'pod1',
      packet: out('10.16.0.11', POD),
    });
    expect(on.outputs[0]?.packet['ip4.src']).toBe(parseIPv4('192.0.2.2'));
    expect(off.outputs[0]?.packet['ip4.src']).toBe(parseIPv4('192.0.2.2'));
    expect(off.stages.find((s) => s.stage === 'lr_in_gw_redirect')?.note).toBe('tunnelled to the gateway chassis');
    expect(on.stages.find((s) => s.stage === 'lr_in_gw_redirect')?.note).toBe('gateway port resident here');
  });

  it('inbound NAT flows exist only where the gateway port is resident', () => {
    const elsewhere = compileNetwork(gatewayRouter(true).build(), { isChassisResident: (p) => p !== 'cr-gw-ext' });
    const inbound = tcpPacket({
      ethSrc: HOST,
      ethDst: GW_OUT,
      src: '192.0.2.9',
      dst: '192.0.2.50',
      sport: 5555,
      dport: 80,
    });
    const r = simulate(elsewhere, { inport: 'host', packet: inbound });
    expect(r.verdict).toBe('dropped');
    expect(r.drop?.stage).toBe('lr_in_admission');
  });
});

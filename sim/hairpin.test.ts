// Hairpin through a switch VIP (a client load-balanced to itself) as the OVS 3.1 userspace datapath runs
// ovn-controller 23.03's flows for it: chk_lb_hairpin matches the backend's port on the packet as conntrack
// NATed it, and ct_snat_to_vip's NAT is not seen by the stages after it. Both found by real packets (difftest
// seed 777 cases 591 and 1433).
import { describe, expect, it } from 'vitest';
import { parseIPv4 } from '../model/addr/index.ts';
import { sctpPacket, tcpPacket } from '../model/packet/build.ts';
import { TCP_ACK, TCP_SYN } from '../model/packet/fields.ts';
import { MAC, TopoBuilder } from '../model/topology/index.ts';
import { compileNetwork } from './compile/network.ts';
import { simulate } from './simulate.ts';

const VIP = '10.96.0.10';
const P2 = '10.0.1.12';

function hairpinSwitch(protocol: 'tcp' | 'sctp', extra: (b: TopoBuilder) => TopoBuilder = (b) => b) {
  const b = new TopoBuilder()
    .lb('svc', { [`${VIP}:80`]: `${P2}:8080` }, { protocol, options: { hairpin_snat_ip: '169.254.169.5' } })
    .switch('sw1', ['svc'])
    .router('r1')
    .vif('p2', 'sw1', MAC.p2, P2)
    .connect('r1', 'sw1', MAC.r1sw1, ['10.0.1.1/24']);
  return compileNetwork(extra(b).build());
}

describe('hairpin through a switch VIP', () => {
  it('an SCTP client balanced to itself on another port is no hairpin: SCTP ports are not NATed', () => {
    // OVS 3.1's userspace conntrack NATs SCTP by address only, so the packet reaches the backend's address on
    // the VIP's port 80; ovn-controller's chk_lb_hairpin flow wants the backend's port 8080 and the packet is
    // not looped back SNATed. It goes on to ls_in_acl_after_lb, where this reject answers it (real packets:
    // an ABORT from port 80, TTL 63).
    const net = hairpinSwitch('sctp', (b) =>
      b.acl('sw1', 'from-lport', 1000, 'ip4', 'reject', { options: { 'apply-after-lb': 'true' } }),
    );
    const p = sctpPacket({ ethSrc: MAC.p2, ethDst: MAC.r1sw1, src: P2, dst: VIP, sport: 29224, dport: 80 });
    const r = simulate(net, { inport: 'p2', packet: p });
    expect(r.stages.some((s) => s.stage === 'ls_in_nat_hairpin')).toBe(false);
    expect(
      r.outputs.map((o) => [o.port, o.generated, o.packet['ip4.src'], o.packet['sctp.src'], o.packet['ip.ttl']]),
    ).toEqual([['p2', 'sctp-abort', parseIPv4(P2), 80, 63]]);
  });

  it('a TCP client balanced to itself is a hairpin (the backend port is NATed), SNATed to hairpin_snat_ip', () => {
    const net = hairpinSwitch('tcp');
    const p = tcpPacket({ ethSrc: MAC.p2, ethDst: MAC.r1sw1, src: P2, dst: VIP, sport: 45449, dport: 80 });
    const r = simulate(net, { inport: 'p2', packet: p });
    expect(r.outputs.map((o) => [o.port, o.packet['ip4.src'], o.packet['tcp.dst']])).toEqual([
      ['p2', parseIPv4('169.254.169.5'), 8080],
    ]);
  });

  it("ct_snat_to_vip's SNAT is unseen by the stages after it: to-lport ACLs match the client's own address", () => {
    // ovn-controller's flow for ct_snat_to_vip is ct(commit, nat(src=...)) without recirculation: the packet
    // leaves SNATed, but xlate never writes the NAT back into the flow it matches the egress pipeline on. Here an
    // allow-stateless ACL for every source but the VIP takes the hairpinned packet (still from the client's
    // address there) out of conntrack, so no connection of it is committed in the port's zone and the backend's
    // SYN-ACK to the VIP finds none: conntrack finds it invalid and it is dropped (real packets, seed 777 case
    // 1433).
    const net = compileNetwork(
      new TopoBuilder()
        .lb('svc', { [`${VIP}:80`]: `${P2}:8080` }, { protocol: 'tcp' })
        .switch('sw1', ['svc'])
        .router('r1')
        .vif('p2', 'sw1', MAC.p2, P2)
        .connect('r1', 'sw1', MAC.r1sw1, ['10.0.1.1/24'])
        .acl('sw1', 'to-lport', 29489, `ip4.src != ${VIP}`, 'allow-stateless')
        .acl('sw1', 'from-lport', 2002, 'ip4', 'allow-related')
        .build(),
    );
    const syn = tcpPacket({ ethSrc: MAC.p2, ethDst: MAC.r1sw1, src: P2, dst: VIP, sport: 45449, dport: 80 });
    const r = simulate(net, { inport: 'p2', packet: syn });
    expect(r.outputs.map((o) => [o.port, o.packet['ip4.src'], o.packet['tcp.dst']])).toEqual([
      ['p2', parseIPv4(VIP), 8080],
    ]);
    const egress = r.stages.filter((s) => s.pipeline === 'egress').map((s) => s.stage);
    expect(egress).not.toContain('ls_out_pre_stateful');
    const synAck = tcpPacket({
      ethSrc: MAC.p2,
      ethDst: MAC.r1sw1,
      src: P2,
      dst: VIP,
      sport: 8080,
      dport: 45449,
      flags: TCP_SYN | TCP_ACK,
    });
    const back = simulate(net, { inport: 'p2', packet: synAck, conntrack: r.conntrack });
    expect(back.verdict).toBe('dropped');
    expect(back.ctLookups[0]?.state).toBe('inv|trk');
  });
});

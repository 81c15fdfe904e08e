// The microflow writer; backends/ovn/trace's tests check the same writer
// against real ovn-trace.
import { describe, expect, it } from 'vitest';
import { arpRequest, icmpEcho, ndNa, ndNs, tcpPacket } from './build.ts';
import { microflowFor, toMicroflow } from './format.ts';
import type { Packet } from './packet.ts';

describe('microflowFor', () => {
  it('writes every field, protocol predicates included', () => {
    const p = tcpPacket({
      ethSrc: '0a:00:00:00:00:01',
      ethDst: '0a:00:00:00:00:02',
      src: '10.0.0.2',
      dst: '10.0.0.3',
      sport: 1000,
      dport: 80,
      ttl: 5,
    });
    expect(toMicroflow(p, 'p1')).toBe(
      'inport == "p1" && eth.src == 0a:00:00:00:00:01 && eth.dst == 0a:00:00:00:00:02 && ip4 && ip4.src == 10.0.0.2 && ' +
        'ip4.dst == 10.0.0.3 && ip.ttl == 5 && ip.dscp == 0 && ip.ecn == 0 && ip.frag == 0 && tcp && tcp.src == 1000 && ' +
        'tcp.dst == 80 && tcp.flags == 0x2',
    );
  });

  it('gives ND fields only under their prerequisites (nd.sll for NS, nd.tll for NA)', () => {
    const ns = microflowFor(ndNs({ ethSrc: '0a:00:00:00:00:01', src: 'fd00::2', target: 'fd00::3' }), 'p1');
    expect(ns.text).toContain('nd.sll == 0a:00:00:00:00:01');
    expect(ns.text).not.toContain('nd.tll');
    expect(ns.omitted).toEqual(['nd.tll']);
    const na = microflowFor(
      ndNa({
        ethSrc: '0a:00:00:00:00:01',
        ethDst: '0a:00:00:00:00:02',
        src: 'fd00::2',
        dst: 'fd00::3',
        target: 'fd00::2',
      }),
      'p1',
    );
    expect(na.text).toContain('nd.tll == 0a:00:00:00:00:01');
    expect(na.omitted).toEqual(['nd.sll']);
  });

  it('leaves ND fields out of an NS that is not `nd` (hop limit below 255): nd_ns would contradict it', () => {
    const ns = { ...ndNs({ ethSrc: 1, src: 'fd00::2', target: 'fd00::3' }), 'ip.ttl': 64 } as Packet;
    const mf = microflowFor(ns, 'p1');
    expect(mf.text).toContain('ip.ttl == 64 && ');
    expect(mf.text).toMatch(/icmp6 && icmp6\.type == 135 && icmp6\.code == 0$/);
    expect(mf.omitted).toEqual(['nd.target', 'nd.sll', 'nd.tll']);
  });

  it('lists what no microflow can say (icmp.id, the ICMP error tuple)', () => {
    const e = icmpEcho({ ethSrc: 1, ethDst: 2, src: '10.0.0.1', dst: '10.0.0.2', id: 7 });
    expect(microflowFor(e, 'p').omitted).toEqual(['icmp.id']);
    expect(toMicroflow(arpRequest({ sha: 1, spa: '10.0.0.1', tpa: '10.0.0.2' }), 'p')).toContain('arp && arp.op == 1');
  });

  it('spells RARP fields rarp.*, other IP protocols ip.proto, other Ethertypes eth.type', () => {
    const rarp = { ...arpRequest({ sha: 1, spa: 0, tpa: 0 }), 'eth.type': 0x8035, 'arp.op': 3 } as Packet;
    expect(toMicroflow(rarp, 'p')).toContain('rarp && rarp.op == 3 && rarp.spa == 0.0.0.0');
    const gre = { ...icmpEcho({ ethSrc: 1, ethDst: 2, src: '10.0.0.1', dst: '10.0.0.2' }), 'ip.proto': 47 } as Packet;
    expect(toMicroflow(gre, 'p')).toMatch(/ip4 && .*ip\.proto == 47$/);
    expect(toMicroflow({ 'eth.src': 1, 'eth.dst': 2, 'eth.type': 0x88cc, 'vlan.tci': 0x1064 }, 'p')).toBe(
      'inport == "p" && eth.src == 00:00:00:00:00:01 && eth.dst == 00:00:00:00:00:02 && vlan.tci == 0x1064 && eth.type == 0x88cc',
    );
  });
});

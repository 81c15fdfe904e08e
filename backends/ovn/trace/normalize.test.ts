import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { arpRequest, icmpEcho, sctpPacket, tcpPacket, udpPacket } from '../../../model/packet/build.ts';
import { packetToJSON } from '../../../model/packet/format.ts';
import { linkLocalOf, pinctrlSendsNothing, seedGenerated } from './generated.ts';
import { QUIRKS, firstDivergence } from './normalize.ts';
import type { OvnTraceStage } from './parse.ts';

describe('QUIRKS', () => {
  it('has one documented rule per id, and every rule the code records is in it', () => {
    const ids = QUIRKS.map((q) => q.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const q of QUIRKS)
      for (const k of ['what', 'why', 'handling'] as const) expect(q[k].length).toBeGreaterThan(20);
    const dir = new URL('.', import.meta.url);
    const used = new Set<string>();
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts'))) {
      for (const m of readFileSync(new URL(f, dir), 'utf8').matchAll(/rule: '([a-z0-9-]+)'/g)) used.add(m[1] ?? '');
    }
    expect(used.size).toBeGreaterThan(4);
    for (const id of used) expect(ids).toContain(id);
  });
});

describe('generated packets: pinctrl vs ovn-trace seeds', () => {
  const tcp = tcpPacket({
    ethSrc: '00:00:00:00:00:01',
    ethDst: '00:00:00:00:00:02',
    src: '10.0.0.2',
    dst: '10.0.0.3',
    sport: 1000,
    dport: 23,
  });

  it('reject of TCP: pinctrl swaps the ports, sends RST|ACK with TTL 63; ovn-trace keeps the ports, RST, TTL 255', () => {
    const real = packetToJSON(seedGenerated(tcp, { kind: 'tcp_reset', loopback: true, mode: 'pinctrl' }));
    expect(real).toMatchObject({
      'eth.src': '00:00:00:00:00:02',
      'eth.dst': '00:00:00:00:00:01',
      'ip4.src': '10.0.0.3',
      'ip4.dst': '10.0.0.2',
      'tcp.src': '23',
      'tcp.dst': '1000',
      'tcp.flags': '0x14',
      'ip.ttl': '63',
    });
    const trace = packetToJSON(seedGenerated(tcp, { kind: 'tcp_reset', loopback: true, mode: 'ovn-trace' }));
    expect(trace).toMatchObject({ 'tcp.src': '1000', 'tcp.dst': '23', 'tcp.flags': '0x4', 'ip.ttl': '255' });
  });

  it('reject answers UDP with port unreachable (v4 code 3, v6 code 4) and anything else with code 1', () => {
    const udp4 = udpPacket({ ethSrc: 1, ethDst: 2, src: '10.0.0.2', dst: '10.0.0.3', sport: 1, dport: 53 });
    const udp6 = udpPacket({ ethSrc: 1, ethDst: 2, src: 'fd00::2', dst: 'fd00::3', sport: 1, dport: 53 });
    const ping = icmpEcho({ ethSrc: 1, ethDst: 2, src: '10.0.0.2', dst: '10.0.0.3' });
    const code = (p: typeof ping, kind: 'icmp4' | 'icmp6') => {
      const g = seedGenerated(p, { kind, loopback: true, mode: 'pinctrl' });
      return g['icmp4.code'] ?? g['icmp6.code'];
    };
    expect(code(udp4, 'icmp4')).toBe(3);
    expect(code(udp6, 'icmp6')).toBe(4);
    expect(code(ping, 'icmp4')).toBe(1);
    const g = seedGenerated(udp4, { kind: 'icmp4', loopback: true, mode: 'pinctrl' });
    expect(g.inner).toEqual({ family: 4, proto: 17, src: 0x0a000002, dst: 0x0a000003, sport: 1, dport: 53 });
    expect(g['udp.src']).toBeUndefined();
  });

  it('icmp4 {} without reject keeps the addresses for the nested actions to swap', () => {
    const udp = udpPacket({ ethSrc: 1, ethDst: 2, src: '10.0.0.2', dst: '10.0.0.3', sport: 1, dport: 53, ttl: 1 });
    expect(packetToJSON(seedGenerated(udp, { kind: 'icmp4', loopback: false, mode: 'pinctrl' }))).toMatchObject({
      'eth.src': '00:00:00:00:00:01',
      'ip4.src': '10.0.0.2',
      'ip.ttl': '255',
      'icmp4.type': '3',
      'icmp4.code': '1',
      'ip.proto': '1',
    });
  });

  it('sctp_abort swaps the ports in pinctrl', () => {
    const s = sctpPacket({ ethSrc: 1, ethDst: 2, src: '10.0.0.2', dst: '10.0.0.3', sport: 7, dport: 9 });
    expect(seedGenerated(s, { kind: 'sctp_abort', loopback: true, mode: 'pinctrl' })).toMatchObject({
      'sctp.src': 9,
      'sctp.dst': 7,
      'ip.ttl': 63,
    });
  });

  it("reject of an ARP frame: ovn-trace's ICMPv6 goes from :: to ::; pinctrl sends nothing", () => {
    const arp = arpRequest({ sha: '00:00:00:00:00:01', spa: '10.0.0.2', tpa: '10.0.0.3' });
    const trace = seedGenerated(arp, { kind: 'icmp6', loopback: true, mode: 'ovn-trace' });
    expect(trace['ip6.src']).toBe(0n);
    expect(trace['ip6.dst']).toBe(0n);
    expect(pinctrlSendsNothing(arp, 'icmp6')).toMatch(/non-IP frame \(eth.type 0x806\)/);
    expect(pinctrlSendsNothing(tcp, 'icmp4')).toBeUndefined();
    expect(pinctrlSendsNothing(arp, 'arp')).toBeUndefined();
  });

  it('link-local addresses are EUI-64 with the U/L bit flipped', () => {
    expect(linkLocalOf(0x00000000ff01)).toBe((0xfe80n << 112n) | 0x0200_00ff_fe00_ff01n);
    expect(linkLocalOf(0x0a580a100005)).toBe((0xfe80n << 112n) | 0x0858_0aff_fe10_0005n);
  });
});

describe('firstDivergence', () => {
  const st = (uuid: string, table = 1): OvnTraceStage => ({
    datapath: 'sw0',
    pipeline: 'ingress',
    table,
    uuid,
    actions: [],
    depth: 0,
    line: 1,
  });
  it('finds the first stage where two traces took different flows, within the prefix', () => {
    expect(firstDivergence([st('a'), st('b'), st('c')], [st('a'), st('b'), st('x')], 2)).toBeUndefined();
    expect(firstDivergence([st('a'), st('b')], [st('a'), st('x')], 2)).toMatchObject({
      index: 1,
      exact: { uuid: 'b' },
      other: { uuid: 'x' },
    });
    expect(firstDivergence([st('a'), st('b')], [st('a')], 2)).toMatchObject({ index: 1, exact: { uuid: 'b' } });
  });
});

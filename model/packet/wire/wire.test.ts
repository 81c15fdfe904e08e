import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../../test/fc.ts';

import { arpRequest, icmpEcho, icmpErrorFor, ndNa, ndNs, sctpPacket, tcpPacket, udpPacket } from '../build.ts';
import type { Packet } from '../packet.ts';
import { emitPacket, parsePacket, PacketParseError } from './index.ts';
import { internetChecksum } from './buffer.ts';

const mac = fc
  .integer({ min: 0, max: 0xfeffffffffff })
  .map((m) => m - (m % 0x20000000000 >= 0x10000000000 ? 0x10000000000 : 0));
const ip4 = fc.integer({ min: 0, max: 0xffffffff });
const ip6 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
const port = fc.integer({ min: 0, max: 65535 });
const ttl = fc.integer({ min: 0, max: 255 });

const arbPacket: fc.Arbitrary<Packet> = fc.oneof(
  fc
    .tuple(mac, mac, ip4, ip4, port, port, ttl, fc.integer({ min: 0, max: 0xfff }))
    .map(([a, b, s, d, sp, dp, t, flags]) =>
      tcpPacket({ ethSrc: a, ethDst: b, src: s, dst: d, sport: sp, dport: dp, ttl: t, flags }),
    ),
  fc
    .tuple(mac, mac, ip6, ip6, port, port, fc.integer({ min: 0, max: 63 }))
    .map(([a, b, s, d, sp, dp, dscp]) =>
      udpPacket({ ethSrc: a, ethDst: b, src: s, dst: d, sport: sp, dport: dp, dscp }),
    ),
  fc
    .tuple(mac, mac, ip4, ip4, port, port)
    .map(([a, b, s, d, sp, dp]) => sctpPacket({ ethSrc: a, ethDst: b, src: s, dst: d, sport: sp, dport: dp })),
  fc.tuple(mac, ip4, ip4).map(([a, s, t]) => arpRequest({ sha: a, spa: s, tpa: t })),
  fc
    .tuple(mac, mac, ip4, ip4, fc.integer({ min: 0, max: 65535 }), fc.boolean())
    .map(([a, b, s, d, id, rep]) =>
      icmpEcho({ ethSrc: a, ethDst: b, src: s, dst: d, id, kind: rep ? 'reply' : 'request' }),
    ),
  fc
    .tuple(mac, mac, ip6, ip6, fc.integer({ min: 0, max: 65535 }))
    .map(([a, b, s, d, id]) => icmpEcho({ ethSrc: a, ethDst: b, src: s, dst: d, id })),
  fc.tuple(mac, ip6, ip6).map(([a, s, t]) => ndNs({ ethSrc: a, src: s, target: t })),
  fc.tuple(mac, mac, ip6, ip6, ip6).map(([a, b, s, d, t]) => ndNa({ ethSrc: a, ethDst: b, src: s, dst: d, target: t })),
  fc
    .tuple(mac, mac, ip4, ip4, port, port)
    .map(([a, b, s, d, sp, dp]) =>
      icmpErrorFor(udpPacket({ ethSrc: a, ethDst: b, src: s, dst: d, sport: sp, dport: dp }), { type: 11, code: 0 }),
    ),
  fc
    .tuple(mac, mac, ip6, ip6, port, port)
    .map(([a, b, s, d, sp, dp]) =>
      icmpErrorFor(tcpPacket({ ethSrc: a, ethDst: b, src: s, dst: d, sport: sp, dport: dp }), { type: 1, code: 4 }),
    ),
);

describe('wire format', () => {
  it('property: parse(emit(p)) is p', () => {
    fc.assert(
      fc.property(arbPacket, (p) => {
        expect(parsePacket(emitPacket(p))).toEqual(p);
      }),
      fcParams(300),
    );
  });

  it('emits the lengths and checksums a receiver checks', () => {
    const b = emitPacket(tcpPacket({ ethSrc: 1, ethDst: 2, src: '10.0.0.1', dst: '10.0.0.2', sport: 1, dport: 80 }));
    expect(b.length).toBe(14 + 20 + 20);
    expect(internetChecksum(b.subarray(14, 34))).toBe(0); // a valid IPv4 header sums to zero
    const v6 = emitPacket(udpPacket({ ethSrc: 1, ethDst: 2, src: 'fd00::1', dst: 'fd00::2', sport: 1, dport: 2 }));
    expect(v6.length).toBe(14 + 40 + 8);
  });

  it('keeps a VLAN tag', () => {
    const p = {
      ...tcpPacket({ ethSrc: 1, ethDst: 2, src: '10.0.0.1', dst: '10.0.0.2', sport: 1, dport: 80 }),
      'vlan.tci': 0x1064,
    };
    expect(parsePacket(emitPacket(p))['vlan.tci']).toBe(0x1064);
  });

  it('reads an ARP opcode as OVS keys it: above 0xff there is none (flow.c keys only 8 bits)', () => {
    const req = arpRequest({ sha: 1, spa: '10.0.0.1', tpa: '10.0.0.2' });
    expect(parsePacket(emitPacket({ ...req, 'arp.op': 0x101 }))['arp.op']).toBe(0);
    expect(parsePacket(emitPacket({ ...req, 'arp.op': 0xff }))['arp.op']).toBe(0xff);
  });

  it('rejects truncated frames with a typed error', () => {
    const b = emitPacket(tcpPacket({ ethSrc: 1, ethDst: 2, src: '10.0.0.1', dst: '10.0.0.2', sport: 1, dport: 80 }));
    expect(() => parsePacket(b.subarray(0, 30))).toThrow(PacketParseError);
    try {
      parsePacket(b.subarray(0, 10));
    } catch (e) {
      expect((e as PacketParseError).code).toBe('truncated');
    }
  });
});

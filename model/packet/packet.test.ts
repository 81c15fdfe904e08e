import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIPv4, parseIPv6 } from '../addr/index.ts';
import { evaluateMatch, packetFromRecord, parseMatch, type MatchFieldValues } from '../match/index.ts';
import { fcParams } from '../../test/fc.ts';
import { arpRequest, icmpEcho, ndNa, ndNs, sctpPacket, solicitedNode, tcpPacket, udpPacket } from './build.ts';
import { FIELD_ORDER } from './fields.ts';
import { describePacket, packetToJSON, toMicroflow } from './format.ts';
import {
  changedFields,
  isEthMcast,
  isMcastMac,
  isNd,
  isNdNs,
  l4ProtoOf,
  withFields,
  withPorts,
  type Packet,
} from './packet.ts';

const A = '0a:00:00:00:00:01';
const B = '0a:00:00:00:00:02';

/** The packet as the match language sees it. */
function view(p: Packet, inport: string) {
  const fields: Record<string, number | bigint> = {};
  for (const f of FIELD_ORDER) {
    const v = p[f];
    if (v !== undefined && f !== 'icmp.id') fields[f] = v;
  }
  return packetFromRecord({ inport, fields: fields as MatchFieldValues });
}

const arbPacket: fc.Arbitrary<Packet> = fc.oneof(
  fc
    .record({
      s: fc.integer({ min: 1, max: 0xfffffffe }),
      d: fc.integer({ min: 1, max: 0xfffffffe }),
      sp: fc.integer({ min: 1, max: 65535 }),
      dp: fc.integer({ min: 1, max: 65535 }),
      ttl: fc.integer({ min: 0, max: 255 }),
    })
    .map(({ s, d, sp, dp, ttl }) => tcpPacket({ ethSrc: A, ethDst: B, src: s, dst: d, sport: sp, dport: dp, ttl })),
  fc
    .record({
      s: fc.bigInt({ min: 1n, max: (1n << 128n) - 1n }),
      d: fc.bigInt({ min: 1n, max: (1n << 128n) - 1n }),
      sp: fc.integer({ min: 1, max: 65535 }),
    })
    .map(({ s, d, sp }) => udpPacket({ ethSrc: A, ethDst: B, src: s, dst: d, sport: sp, dport: 53 })),
  fc
    .record({ s: fc.integer({ min: 1, max: 0xfffffffe }), d: fc.integer({ min: 1, max: 0xfffffffe }) })
    .map(({ s, d }) => sctpPacket({ ethSrc: A, ethDst: B, src: s, dst: d, sport: 5, dport: 6 })),
  fc
    .record({ s: fc.integer({ min: 1, max: 0xfffffffe }), t: fc.integer({ min: 1, max: 0xfffffffe }) })
    .map(({ s, t }) => arpRequest({ sha: A, spa: s, tpa: t })),
  fc.constantFrom(
    icmpEcho({ ethSrc: A, ethDst: B, src: '10.0.0.1', dst: '10.0.0.2' }),
    icmpEcho({ ethSrc: A, ethDst: B, src: 'fd00::1', dst: 'fd00::2', kind: 'reply' }),
    ndNs({ ethSrc: A, src: 'fe80::1', target: 'fd00::2' }),
    ndNa({ ethSrc: A, ethDst: B, src: 'fd00::1', dst: 'fd00::2', target: 'fd00::1' }),
  ),
);

describe('packets', () => {
  it('builders set the fields OVN names, by family', () => {
    const t = tcpPacket({ ethSrc: A, ethDst: B, src: '10.0.0.1', dst: '10.0.0.2', sport: 1, dport: 2 });
    expect(t['eth.type']).toBe(0x800);
    expect(t['ip4.src']).toBe(parseIPv4('10.0.0.1'));
    expect(t['tcp.flags']).toBe(0x002);
    expect(l4ProtoOf(t)).toBe('tcp');
    const u = udpPacket({ ethSrc: A, ethDst: B, src: 'fd00::1', dst: 'fd00::2', sport: 1, dport: 2 });
    expect(u['eth.type']).toBe(0x86dd);
    expect(u['ip6.dst']).toBe(parseIPv6('fd00::2'));
    expect(u['ip4.src']).toBeUndefined();
  });

  it('ND: a solicitation goes to the solicited-node group and is nd_ns', () => {
    const ns = ndNs({ ethSrc: A, src: 'fd00::1', target: 'fd00::1:2345' });
    expect(ns['ip6.dst']).toBe(solicitedNode(parseIPv6('fd00::1:2345')));
    expect(ns['ip6.dst']).toBe(parseIPv6('ff02::1:ff01:2345'));
    expect(isNdNs(ns) && isNd(ns)).toBe(true);
    expect(isEthMcast(ns)).toBe(true);
  });

  it('are immutable: updates make new packets and report changed fields', () => {
    const p = tcpPacket({ ethSrc: A, ethDst: B, src: '10.0.0.1', dst: '10.0.0.2', sport: 1, dport: 2 });
    const q = withPorts(withFields(p, { 'ip.ttl': 10 }), 7, undefined);
    expect(p['ip.ttl']).toBe(64);
    expect(changedFields(p, q)).toEqual(['ip.ttl', 'tcp.src']);
    expect(withFields(q, { 'tcp.flags': undefined })['tcp.flags']).toBeUndefined();
  });

  it('print in a short human form and as JSON', () => {
    const p = tcpPacket({ ethSrc: A, ethDst: B, src: '10.0.0.1', dst: '10.0.0.2', sport: 1, dport: 2 });
    expect(describePacket(p)).toBe(
      '0a:00:00:00:00:01 > 0a:00:00:00:00:02 10.0.0.1:1 > 10.0.0.2:2 tcp flags 0x2 ttl 64',
    );
    expect(packetToJSON(p)['ip4.dst']).toBe('10.0.0.2');
  });

  it('property: the microflow of a packet is an OVN match that the packet satisfies', () => {
    fc.assert(
      fc.property(arbPacket, (p) => {
        const text = toMicroflow(p, 'pod-a');
        return evaluateMatch(parseMatch(text), view(p, 'pod-a'));
      }),
      fcParams(300),
    );
  });

  it('property: the microflow names every field the packet carries (but the echo id and defaults)', () => {
    fc.assert(
      fc.property(arbPacket, (p) => {
        const text = toMicroflow(p, 'x');
        return FIELD_ORDER.every(
          (f) =>
            p[f] === undefined ||
            [
              'eth.type',
              'ip.proto',
              'icmp.id',
              'ip.dscp',
              'ip.ecn',
              'ip.frag',
              'ip6.label',
              'nd.sll',
              'nd.tll',
            ].includes(f) ||
            text.includes(`${f} ==`),
        );
      }),
      fcParams(100),
    );
  });

  it('property: the group bit of a MAC is bit 40 (eth.mcast), for any value a field may hold', () => {
    const value = fc.oneof(
      fc.integer({ min: 0, max: 2 ** 48 - 1 }),
      fc.integer({ min: -(2 ** 48), max: -1 }),
      fc.constantFrom(Number.NaN, 0x010000000000, 0xffffffffffff),
    );
    fc.assert(
      fc.property(value, (mac) => {
        expect(isMcastMac(mac)).toBe(Math.floor(mac / 0x10000000000) % 2 === 1);
      }),
      fcParams(300),
    );
  });
});

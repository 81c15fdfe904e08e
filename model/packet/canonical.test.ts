import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../test/fc.ts';
import { tcpPacket } from './build.ts';
import { copyPacket, publicPacket, SimPacket } from './canonical.ts';
import { FIELD_KIND, FIELD_ORDER, type FieldName } from './fields.ts';
import { type Packet, withFields, withIPs, withPorts } from './packet.ts';

const fieldValue = (f: FieldName, n: number): number | bigint =>
  FIELD_KIND[f] === 'ip6' ? BigInt(n) * 0x10000000000000001n : n;

/** A packet holding the given fields (in random order, as callers build them). */
const recordArb = fc
  .shuffledSubarray([...FIELD_ORDER], { minLength: 1 })
  .chain((fields) =>
    fc.tuple(fc.constant(fields), fc.array(fc.nat(0xffffffff), { minLength: fields.length, maxLength: fields.length })),
  )
  .map(
    ([fields, values]) => Object.fromEntries(fields.map((f, i) => [f, fieldValue(f, values[i]!)])) as unknown as Packet,
  );

describe('SimPacket, the working form', () => {
  it('property: every field survives the working form and back (public form: the fields present, in header order)', () => {
    fc.assert(
      fc.property(recordArb, (p) => {
        const back = publicPacket(SimPacket.of(p));
        expect(back).toEqual(p);
        expect(Object.keys(back)).toEqual(FIELD_ORDER.filter((f) => p[f] !== undefined));
      }),
      fcParams(200),
    );
  });

  it('keeps every key (absent fields read undefined) and is left alone by SimPacket.of', () => {
    const p = SimPacket.of(
      tcpPacket({
        ethSrc: '0a:00:00:00:00:01',
        ethDst: '0a:00:00:00:00:02',
        src: '10.0.0.1',
        dst: '10.0.0.2',
        sport: 1,
        dport: 80,
      }),
    );
    expect(SimPacket.of(p)).toBe(p);
    expect(p['udp.src']).toBeUndefined();
    expect(Object.keys(p)).toHaveLength(FIELD_ORDER.length + 1);
  });

  it('edits copy: the original never changes, removed fields read undefined', () => {
    const p = tcpPacket({
      ethSrc: '0a:00:00:00:00:01',
      ethDst: '0a:00:00:00:00:02',
      src: '10.0.0.1',
      dst: '10.0.0.2',
      sport: 1,
      dport: 80,
    });
    const q = copyPacket(p);
    q['ip.ttl'] = 1;
    expect(p['ip.ttl']).toBe(64);
    const r = withFields(p, { 'tcp.flags': undefined, 'ip.dscp': 8 });
    expect(r).toBeInstanceOf(SimPacket);
    expect([r['tcp.flags'], r['ip.dscp'], p['tcp.flags']]).toEqual([undefined, 8, 2]);
    const n = withPorts(withIPs(p, 0x0b000001, undefined), undefined, 8080);
    expect([n['ip4.src'], n['ip4.dst'], n['tcp.src'], n['tcp.dst']]).toEqual([0x0b000001, 0x0a000002, 1, 8080]);
    expect(publicPacket(n)).toEqual(withPorts(withIPs(publicPacket(p), 0x0b000001, undefined), undefined, 8080));
  });
});

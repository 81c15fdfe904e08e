import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../test/fc.ts';
import { DatapathError } from './errors.ts';
import { emitPcap, PCAP_HEADER_BYTES, parsePcapRecords, type PcapHeader, type PcapRecord } from './pcap.ts';

const header: fc.Arbitrary<PcapHeader> = fc.record({
  littleEndian: fc.boolean(),
  nanoseconds: fc.boolean(),
  snaplen: fc.integer({ min: 64, max: 262_144 }),
  linktype: fc.constantFrom(1, 113),
});
const record: fc.Arbitrary<PcapRecord> = fc.uint8Array({ minLength: 0, maxLength: 200 }).chain((data) =>
  fc.record({
    seconds: fc.nat({ max: 0xffffffff }),
    fraction: fc.nat({ max: 999_999_999 }),
    data: fc.constant(data),
    originalLength: fc.integer({ min: data.length, max: data.length + 100 }),
  }),
);

describe('pcap', () => {
  it('parse(emit(x)) gives x back, in either byte order and time unit', () => {
    fc.assert(
      fc.property(header, fc.array(record, { maxLength: 8 }), (h, recs) => {
        const r = parsePcapRecords(emitPcap(h, recs));
        expect(r.header).toEqual(h);
        expect(r.records).toEqual(recs);
      }),
      fcParams(),
    );
  });

  it('stops before an incomplete record and resumes from where it stopped', () => {
    fc.assert(
      fc.property(header, fc.array(record, { minLength: 1, maxLength: 6 }), fc.nat(), (h, recs, cutAt) => {
        const bytes = emitPcap(h, recs);
        const cut = PCAP_HEADER_BYTES + (cutAt % (bytes.length - PCAP_HEADER_BYTES + 1));
        const first = parsePcapRecords(bytes.slice(0, cut));
        const rest = parsePcapRecords(bytes, { from: first.end });
        expect([...first.records, ...rest.records]).toEqual(recs);
        expect(rest.end).toBe(bytes.length);
      }),
      fcParams(),
    );
  });

  it('a file that is no pcap is a typed error', () => {
    expect(() => parsePcapRecords(new Uint8Array(24))).toThrow(DatapathError);
    expect(() => parsePcapRecords(new Uint8Array(3))).toThrow(/header is 3 bytes/);
  });
});

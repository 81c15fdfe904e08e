import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../test/fc.ts';
import { IntTable, IpTable } from './int-table.ts';

const macArb = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 48 - 1 }),
  fc.integer({ min: 0, max: 40 }),
  fc.integer({ min: 0, max: 40 }).map((n) => n * 2 ** 32),
);

describe('IntTable', () => {
  it('property: answers as a Map would (growing, overwriting, absent keys)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(macArb, fc.nat(1000))), fc.array(macArb), (sets, probes) => {
        const t = new IntTable<number>();
        const m = new Map<number, number>();
        for (const [k, v] of sets) {
          t.set(k, v);
          m.set(k, v);
        }
        expect(t.size).toBe(m.size);
        for (const k of [...m.keys(), ...probes, Number.NaN]) {
          expect(t.get(k)).toBe(m.get(k));
          expect(t.has(k)).toBe(m.has(k));
        }
      }),
      fcParams(200),
    );
  });

  it('IpTable answers for IPv4 numbers and IPv6 bigints alike', () => {
    const t = IpTable.of(
      new Map<number | bigint, string>([
        [0x0a000001, 'v4'],
        [2n ** 100n, 'v6'],
        [5, 'small'],
      ]),
    );
    expect([t.get(0x0a000001), t.get(2n ** 100n), t.get(5), t.get(6), t.get(2n ** 99n)]).toEqual([
      'v4',
      'v6',
      'small',
      undefined,
      undefined,
    ]);
  });

  it('refuses keys that are no MAC', () => {
    expect(() => new IntTable().set(-1, 1)).toThrow(RangeError);
    expect(() => new IntTable().set(1.5, 1)).toThrow(RangeError);
  });
});

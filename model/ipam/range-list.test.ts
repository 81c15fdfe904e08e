import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../test/fc.ts';
import {
  type Addr,
  type Arith,
  ARITH4,
  ARITH6,
  RangeList,
  flatCount,
  flatHas,
  intersect,
  normalize,
  subtract,
  subtractPoints,
} from './range-list.ts';

/** The addresses of a flat list, for comparing with a Set model. */
function expand<T extends Addr>(ops: Arith<T>, flat: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < flat.length; i += 2) for (let v = flat[i]!; v <= flat[i + 1]!; v = ops.succ(v)) out.push(v);
  return out;
}

function isNormalized<T extends Addr>(ops: Arith<T>, flat: readonly T[]): boolean {
  for (let i = 0; i < flat.length; i += 2) {
    if (flat[i]! > flat[i + 1]!) return false;
    if (i > 0 && ops.succ(flat[i - 1]!) >= flat[i]!) return false; // touching or overlapping
  }
  return true;
}

describe('RangeList', () => {
  it('takes the lowest address first and merges on add', () => {
    const l = RangeList.fromFlat(ARITH4, [10, 12, 20, 20]);
    expect(l.count).toBe(4);
    expect(l.takeFirst()).toBe(10);
    expect(l.takeFirst()).toBe(11);
    expect(l.takeFirst()).toBe(12);
    expect(l.toFlat()).toEqual([20, 20]);
    expect(l.add(21)).toBe(true);
    expect(l.add(19)).toBe(true);
    expect(l.add(20)).toBe(false);
    expect(l.toFlat()).toEqual([19, 21]);
    expect(l.rangeCount).toBe(1);
  });

  it('splits a range on remove and joins both neighbours on add', () => {
    const l = RangeList.fromFlat(ARITH4, [0, 9]);
    expect(l.remove(5)).toBe(true);
    expect(l.remove(5)).toBe(false);
    expect(l.toFlat()).toEqual([0, 4, 6, 9]);
    expect(l.has(5)).toBe(false);
    expect(l.has(6)).toBe(true);
    expect(l.add(5)).toBe(true);
    expect(l.toFlat()).toEqual([0, 9]);
    expect(l.count).toBe(10);
  });

  it('keeps IPv6 counts exact beyond 2^53', () => {
    const l = RangeList.fromFlat(ARITH6, [0n, (1n << 64n) - 1n]);
    expect(l.count).toBe(1n << 64n);
    l.remove(1n << 60n);
    expect(l.count).toBe((1n << 64n) - 1n);
    expect(l.rangeCount).toBe(2);
  });

  it('stays correct across block splits (thousands of fragments)', () => {
    const l = new RangeList(ARITH4);
    for (let i = 0; i < 5000; i++) l.add(i * 2);
    expect(l.rangeCount).toBe(5000);
    for (let i = 0; i < 5000; i++) l.add(i * 2 + 1);
    expect(l.toFlat()).toEqual([0, 9999]);
    expect(l.count).toBe(10000);
  });

  const op = fc.oneof(
    fc.record({ k: fc.constant('add' as const), v: fc.integer({ min: 0, max: 300 }) }),
    fc.record({ k: fc.constant('remove' as const), v: fc.integer({ min: 0, max: 300 }) }),
    fc.record({ k: fc.constant('take' as const), v: fc.constant(0) }),
  );

  for (const [name, ops, conv] of [
    ['IPv4', ARITH4, (v: number) => v],
    ['IPv6', ARITH6, (v: number) => (1n << 100n) + BigInt(v)],
  ] as const) {
    it(`matches a Set model under random add/remove/take (${name})`, () => {
      fc.assert(
        fc.property(fc.array(op, { maxLength: 400 }), (cmds) => {
          const l = new RangeList<Addr>(ops as Arith<Addr>);
          const model = new Set<Addr>();
          for (const c of cmds) {
            const v = (conv as (v: number) => Addr)(c.v);
            if (c.k === 'add') expect(l.add(v)).toBe(!model.has(v) && (model.add(v), true));
            else if (c.k === 'remove') expect(l.remove(v)).toBe(model.delete(v));
            else {
              const min = [...model].sort((a, b) => (a < b ? -1 : 1))[0];
              expect(l.takeFirst()).toBe(min);
              if (min !== undefined) model.delete(min);
            }
          }
          const flat = l.toFlat();
          expect(isNormalized(ops as Arith<Addr>, flat)).toBe(true);
          expect(expand(ops as Arith<Addr>, flat)).toEqual([...model].sort((a, b) => (a < b ? -1 : 1)));
          expect(l.count).toBe(ops === ARITH4 ? model.size : BigInt(model.size));
        }),
        fcParams(200),
      );
    });
  }
});

describe('flat range operations', () => {
  const pairs = fc.array(
    fc
      .tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 20 }))
      .map(([s, len]): [number, number] => [s, s + len]),
    { maxLength: 12 },
  );
  const setOf = (flat: readonly number[]) => new Set(expand(ARITH4, flat));

  it('normalize, subtract, intersect, subtractPoints agree with set algebra', () => {
    fc.assert(
      fc.property(pairs, pairs, fc.uniqueArray(fc.integer({ min: 0, max: 230 })), (pa, pb, pts) => {
        const a = normalize(ARITH4, pa);
        const b = normalize(ARITH4, pb);
        expect(isNormalized(ARITH4, a)).toBe(true);
        const A = setOf(a);
        const B = setOf(b);
        const expected = new Set(pa.flatMap(([s, e]) => expand(ARITH4, [s, e])));
        expect(A).toEqual(expected);
        const diff = subtract(ARITH4, a, b);
        expect(isNormalized(ARITH4, diff)).toBe(true);
        expect(setOf(diff)).toEqual(new Set([...A].filter((x) => !B.has(x))));
        const inter = intersect(a, b);
        expect(setOf(inter)).toEqual(new Set([...A].filter((x) => B.has(x))));
        const sortedPts = [...pts].sort((x, y) => x - y);
        const minus = subtractPoints(ARITH4, a, sortedPts);
        expect(isNormalized(ARITH4, minus)).toBe(true);
        expect(setOf(minus)).toEqual(new Set([...A].filter((x) => !pts.includes(x))));
        expect(flatCount(ARITH4, a)).toBe(A.size);
        for (let x = 0; x < 230; x += 7) expect(flatHas(a, x)).toBe(A.has(x));
      }),
      fcParams(300),
    );
  });
});

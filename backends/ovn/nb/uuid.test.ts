import { describe, expect, it } from 'vitest';
import { randomRowUuid } from './uuid.ts';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('randomRowUuid', () => {
  it('makes distinct version-4 uuids, across many refills of its pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const u = randomRowUuid();
      expect(u).toMatch(V4);
      seen.add(u);
    }
    expect(seen.size).toBe(5000);
  });

  it('uses every hex digit in every random position (not a constant pattern)', () => {
    const digits = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) [...randomRowUuid()].forEach((c, p) => digits[p]?.add(c));
    const random = [...Array(36).keys()].filter((p) => ![8, 13, 14, 18, 19, 23].includes(p));
    for (const p of random) expect(digits[p]?.size, `position ${p}`).toBe(16);
    expect(digits[19]).toEqual(new Set(['8', '9', 'a', 'b']));
  });
});

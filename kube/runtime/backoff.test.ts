import { describe, expect, it } from 'vitest';
import { backoffMs } from './backoff.ts';

describe('backoffMs', () => {
  it('doubles from the first delay per failure and stops at the cap, however many failures', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, 5, 60_000))).toEqual([5, 10, 20, 40]);
    expect([6, 7, 8].map((n) => backoffMs(n, 800, 30_000))).toEqual([25_600, 30_000, 30_000]);
    expect(backoffMs(1_000_000, 50, 5_000)).toBe(5_000);
    expect(backoffMs(1_000_000, 0, 5_000)).toBe(0);
  });
});

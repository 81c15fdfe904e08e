/**
 * CI's short pass of every fuzz target (`npm run fuzz` runs the long one):
 * a fixed seed, each target's `ciRuns` inputs, no finding allowed, and every
 * target must accept some of its input (a target fed only junk proves little).
 */
import { describe, expect, it } from 'vitest';
import { fcSeed } from '../fc.ts';
import { fuzzFiles, loadTargets, runTarget } from './run.ts';

const files = fuzzFiles();

describe('fuzz targets (short fixed-seed pass)', () => {
  it('finds the fuzz targets of the tree', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  for (const file of files) {
    it(file, { timeout: 120_000 }, async () => {
      for (const target of await loadTargets(file)) {
        const r = await runTarget(file, target, { runs: target.ciRuns ?? 300, seed: fcSeed() });
        expect(r.examples, `${target.name}: findings`).toEqual([]);
        expect(r.findings).toBe(0);
        expect(r.accepted, `${target.name} accepted nothing`).toBeGreaterThan(0);
        expect(r.rejected, `${target.name} rejected nothing: no invalid input reached it`).toBeGreaterThan(0);
      }
    });
  }
});

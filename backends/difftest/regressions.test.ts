// Every disagreement the differential test ever found, minimized (regressions/*.json):
// the simulator must give OVN's verdict as recorded; where OVN is installed, ovn-trace
// must still give it too (so a recorded expectation cannot go stale silently).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateTopology } from '../../model/topology/index.ts';
import { requireOvn } from '../ovn/control-plane/index.ts';
import { caseFromJSON } from './case.ts';
import { formatDiff, type Observed } from './compare.ts';
import { evaluateCase } from './evaluate.ts';
import { checkRegression, readRegressions } from './regressions.ts';
import { simulateCase } from './simulate-case.ts';
import { createOvnWorld, type OvnWorld } from './world.ts';

const files = await readRegressions();
const name = (path: string) => path.split('/').pop() ?? path;
/** Verdict and outputs (sorted), without the partial-comparison annotations. */
const bare = (o: Observed) => ({
  verdict: o.verdict,
  outputs: [...o.outputs]
    .map((x) => ({ port: x.port, packet: x.packet }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
});
/** The normalize.ts rules an observation was made under. */
const rules = (o: Observed | { error: unknown }) => ('error' in o ? [] : (o.partial ?? []).map((p) => p.rule).sort());

describe('difftest regression cases: simulator', () => {
  it('every regression file holds a valid case and an OVN verdict', () => {
    for (const { path, file } of files) {
      expect(validateTopology(caseFromJSON(file.case).topology), path).toEqual([]);
      expect(['delivered', 'dropped'], path).toContain(file.expected.verdict);
    }
  });

  for (const { path, file } of files) {
    it(`${name(path)} (${file.found})`, () => {
      const d = checkRegression(file);
      expect(d === undefined ? '' : formatDiff(d), file.note ?? 'simulator differs from the recorded OVN verdict').toBe(
        '',
      );
    });
  }
});

describe.skipIf(files.length === 0 || !requireOvn('difftest regressions'))(
  'difftest regression cases: ovn-trace still gives the recorded verdict',
  () => {
    let world: OvnWorld;
    beforeAll(async () => {
      world = await createOvnWorld();
    });
    afterAll(async () => {
      await world?.close();
    });

    for (const { path, file } of files) {
      it(name(path), async () => {
        // The differential test's own evaluation (retraces under the documented rules included).
        const c = caseFromJSON(file.case);
        const o = await evaluateCase(world, c);
        expect(o.agree, o.diff === undefined ? JSON.stringify(o.ovn) : formatDiff(o.diff)).toBe(true);
        // With ECMP, northd numbers the members anew at each load and ovn-trace may take another one
        // than when the case was recorded: agreeing with the simulator's run for it is what is checked.
        if (simulateCase(c).length > 1) return;
        expect('error' in o.ovn ? o.ovn.error : bare(o.ovn)).toEqual(bare(file.expected));
        expect(rules(o.ovn)).toEqual(rules(file.expected));
      });
    }
  },
);

// Every disagreement the differential test ever found, minimized (regressions/*.json):
// the simulator must give the recorded verdict (OVN's: real packets where `oracle` is
// datapath, else ovn-trace's). Where OVN is installed each case also runs in the three
// worlds: the simulator must agree with real packets through the datapath, and with
// ovn-trace wherever ovn-trace agrees with the datapath; and the recorded expectation must
// still be what its oracle gives (so it cannot go stale silently).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateTopology } from '../../model/topology/index.ts';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { caseFromJSON } from './case.ts';
import { formatDiff, type Observed } from './compare.ts';
import { checkRegression, readRegressions } from './regressions.ts';
import { simulateCase } from './simulate-case.ts';
import { evaluateThreeWay } from './three-way.ts';
import { createOvnWorld, type OvnWorld } from './world.ts';

const files = await readRegressions();
const name = (path: string) => path.split('/').pop() ?? path;
/** Verdict and outputs (sorted), without the partial-comparison annotations and generator names. */
const bare = (o: Observed) => ({
  verdict: o.verdict,
  outputs: [...o.outputs]
    .map((x) => ({ port: x.port, packet: x.packet }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
});
/** The normalize.ts rules an observation was made under. */
const rules = (o: Observed | { error: unknown }) => ('error' in o ? [] : (o.partial ?? []).map((p) => p.rule).sort());

describe('difftest regression cases: simulator', () => {
  it('the regression folder holds cases, each a valid case with an OVN verdict', () => {
    expect(files.length).toBeGreaterThan(0);
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

describe.skipIf(!requireOvn('difftest regressions'))(
  'difftest regression cases in three worlds: real packets judge, ovn-trace still gives the recorded verdict',
  () => {
    let world: OvnWorld;
    beforeAll(async () => {
      world = await createOvnWorld({ datapath: true });
    });
    afterAll(async () => {
      await world?.close();
    });

    for (const { path, file } of files) {
      it(name(path), async () => {
        const c = caseFromJSON(file.case);
        const o = await evaluateThreeWay(world, c, 'both');
        const dp = o.datapath!;
        const dpDiff = dp.diff ? `step ${dp.diff.step}: ${formatDiff(dp.diff.diff)}` : '';
        // OVS 3.1's conntrack can abort vswitchd on a later packet of a connection (conn_update_state's
        // assertion, verify/datapath/chassis.ts): the file records the steps before that crash, and
        // none of those may crash.
        if (dp.crashedAt !== undefined)
          expect(dp.crashedAt, 'vswitchd crashed within the recorded steps').toBeGreaterThan(
            file.connection?.length ?? 0,
          );
        expect(dpDiff, 'simulator against the datapath').toBe('');
        expect(o.agree, JSON.stringify(o.trace?.diff ?? o.trace?.ovn)).toBe(true);
        // With ECMP or several LB backends the member taken may differ from the recorded one.
        const single = simulateCase(c).length === 1 && dp.lbPick === c.lbPick;
        if (file.oracle === 'datapath') {
          if (single) expect(bare(dp.datapath[0]!)).toEqual(bare(file.expected));
          return;
        }
        const t = o.trace!;
        if (!single) return;
        expect('error' in t.ovn ? t.ovn.error : bare(t.ovn)).toEqual(bare(file.expected));
        expect(rules(t.ovn)).toEqual(rules(file.expected));
      });
    }
  },
);

// The differential test in three worlds: 300 random cases (fixed seed, FC_SEED overrides)
// through the simulator, ovn-trace over real northd output, and real packets through
// ovn-controller and the OVS userspace datapath (the judge). Every case must agree with the
// datapath, and with ovn-trace wherever ovn-trace agrees with the datapath. Measured here: 135 s
// for the 300 cases in a clean-checkout CI run with the rest of the suite besides (2 vCPUs). A disagreement is
// minimized and reported with its diff; it is written to regressions/ only when
// KOVN_WRITE_REGRESSIONS=1 (a developer keeping it), so `npm test` never dirties a checkout.
// `kovn difftest` always writes.
import { describe, expect, it } from 'vitest';
import { fcSeed } from '../../test/fc.ts';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { FULL_RULES, formatDiff, type PartialRule } from './compare.ts';
import { type Disagreement, runDifftest } from './run.ts';

const CASES = 300;

function describeDisagreement(d: Disagreement): string {
  const why =
    'error' in d.ovn ? `ovn-trace: ${d.ovn.error.code}` : d.diff ? formatDiff(d.minimized?.diff ?? d.diff) : '';
  return `case ${d.case} (seed ${d.seed}, judged by ${d.oracle}${d.step ? `, step ${d.step}` : ''})${d.regression ? ` → ${d.regression}` : ''}\n${why}`;
}

describe.skipIf(!requireOvn('differential test'))('differential test against real OVN 23.03 and OVS 3.1', () => {
  it(`${CASES} random cases agree with the datapath and with ovn-trace where it agrees`, {
    timeout: 30 * 60_000,
  }, async () => {
    const keep = process.env.KOVN_WRITE_REGRESSIONS === '1';
    const r = await runDifftest({
      cases: CASES,
      seed: fcSeed(),
      oracle: 'both',
      shrinkTimeMs: 60_000,
      ...(keep ? {} : { regressionsDir: null }),
    });
    const partialCases = Object.entries(r.partial)
      .filter(([rule]) => !FULL_RULES.has(rule as PartialRule['rule']))
      .reduce((n, [, k]) => n + k, 0);
    console.log(
      `difftest: ${r.agree}/${r.cases} agree with the datapath in ${(r.timing.totalMs / 1000).toFixed(1)} s ` +
        `(datapath ${(r.timing.datapathMs / 1000).toFixed(1)} s, load ${(r.timing.loadMs / 1000).toFixed(1)} s); ` +
        `pairs ${JSON.stringify(r.pairs)}; partial ${JSON.stringify(r.partial)}; artefacts ${JSON.stringify(r.artefacts)}; ` +
        `datapath artefacts ${JSON.stringify(r.datapathArtefacts)}; ` +
        `connections ${r.connections}; restarts ${r.restarts}; crashes ${JSON.stringify(r.crashes)}`,
    );
    expect(r.disagreements.map(describeDisagreement)).toEqual([]);
    const simDp = r.pairs['sim-datapath']!;
    expect(simDp.agree).toBe(simDp.cases);
    // Only a crash of OVS on the first packet leaves a case unjudged by the datapath.
    expect(simDp.cases).toBeGreaterThanOrEqual(CASES - r.crashes.count);
    expect(r.agree).toBe(CASES);
    // Multi-packet connections were really exercised, and the datapath really judged.
    expect(r.connections).toBeGreaterThan(CASES / 10);
    // The share of cases ovn-trace could show only in part (the rules that compare in full after a
    // retrace do not count) is held to 2 %: measured 1.7 % on this seed (5 of 300), 1.0 % on seed 7
    // × 2000. Real packets judge those cases in full; ovn-trace's view of them is what is partial.
    console.log(`difftest: ovn-trace partial share ${((100 * partialCases) / CASES).toFixed(1)} %`);
    expect(partialCases).toBeLessThanOrEqual(0.02 * CASES);
    // Cases that agree with the datapath only under a rule for its own departure from OVN's flows
    // (datapath-side.ts: sctp-keyed-by-address), each shown on its case, are held to 1 %.
    const dpArtefacts = Object.values(r.datapathArtefacts).reduce((n, a) => n + a.count, 0);
    expect(dpArtefacts).toBeLessThanOrEqual(0.01 * CASES);
  });
});

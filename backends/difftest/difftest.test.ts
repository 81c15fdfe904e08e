// The differential test: 300 random cases (fixed seed, FC_SEED overrides) through real OVN
// (northd + ovn-trace) and the simulator; every case must agree. A disagreement is minimized
// and reported with its diff; it is written to regressions/ only when KOVN_WRITE_REGRESSIONS=1
// (a developer keeping it), so `npm test` never dirties a checkout. `kovn difftest` always writes.
import { describe, expect, it } from 'vitest';
import { fcSeed } from '../../test/fc.ts';
import { requireOvn } from '../ovn/control-plane/index.ts';
import { formatDiff } from './compare.ts';
import { type Disagreement, runDifftest } from './run.ts';

const CASES = 300;

function describeDisagreement(d: Disagreement): string {
  const why =
    'error' in d.ovn ? `ovn-trace: ${d.ovn.error.code}` : d.diff ? formatDiff(d.minimized?.diff ?? d.diff) : '';
  return `case ${d.case} (seed ${d.seed})${d.regression ? ` → ${d.regression}` : ''}\n${why}`;
}

describe.skipIf(!requireOvn('differential test'))('differential test against real OVN 23.03', () => {
  it(`${CASES} random cases agree with ovn-trace`, { timeout: 20 * 60_000 }, async () => {
    const keep = process.env.KOVN_WRITE_REGRESSIONS === '1';
    const r = await runDifftest({
      cases: CASES,
      seed: fcSeed(),
      shrinkTimeMs: 60_000,
      ...(keep ? {} : { regressionsDir: null }),
    });
    // Measured here (2 vCPU VM): ~30 s for 300 cases (load + northd ~85%, trace ~9%, simulate ~2%).
    console.log(
      `difftest: ${r.agree}/${r.cases} agree in ${(r.timing.totalMs / 1000).toFixed(1)} s; partial: ${JSON.stringify(r.partial)}`,
    );
    expect(r.disagreements.map(describeDisagreement)).toEqual([]);
    expect(r.agree).toBe(CASES);
  });
});

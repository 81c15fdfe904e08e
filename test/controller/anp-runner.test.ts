/**
 * The AdminNetworkPolicy conformance suite (../shared/conformance/anp, read
 * in place) through `kovn sim run`'s path: each file loaded as a scenario,
 * its objects created in the in-memory cluster, the real controller building
 * the network on the simulator backend, every probe answered as
 * docs/architecture.md defines it. CI prints `anp conformance: A/B probes`.
 */
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatWarning } from '../../kube/objects/warnings.ts';
import { loadScenario } from '../../scenarios/load.ts';
import { runScenario, SimWorld } from '../../scenarios/run.ts';
import { ANP_DIR, ANP_PROBES, anpFiles } from '../anp-suite.ts';

describe('AdminNetworkPolicy conformance through the controller and the scenario runner', () => {
  it('finds the suite in place', () => {
    expect(statSync(ANP_DIR).isDirectory()).toBe(true);
    expect(anpFiles().length).toBe(29);
  });

  it('every probe of every file agrees', { timeout: 20 * 60_000 }, async () => {
    let probes = 0;
    const wrong: string[] = [];
    const warnings: string[] = [];
    for (const file of anpFiles()) {
      const world = new SimWorld();
      const r = await runScenario(loadScenario(file), { world });
      await world.close();
      for (const w of r.warnings) warnings.push(`${file.split('/').pop()}: ${formatWarning(w)}`);
      for (const x of r.results) {
        probes++;
        if (!x.ok)
          wrong.push(
            `${file.split('/').pop()} step ${x.step}: ${x.from} → ${x.to} ${x.protocol}/${x.port}: want ${x.expected}, ${x.unsure ?? x.reason ?? 'allowed'}`,
          );
      }
    }
    console.log(`anp conformance: ${probes - wrong.length}/${probes} probes (${anpFiles().length} files)`);
    expect(warnings.slice(0, 10)).toEqual([]);
    expect(wrong.slice(0, 20)).toEqual([]);
    expect(probes).toBe(ANP_PROBES);
  });
});

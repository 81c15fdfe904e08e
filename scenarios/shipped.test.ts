// Every shipped scenario (scenarios/*.yaml) passes its own expectations on the simulator; the
// same scenarios on real OVN, with the same verdicts, are in test/e2e/controller-ovn.test.ts.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from './load.ts';
import { runScenario, SimWorld } from './run.ts';

const files = readdirSync(import.meta.dirname).filter((f) => f.endsWith('.yaml'));

describe('shipped scenarios on the simulator', () => {
  it.each(files)('%s: every probe as expected', async (f) => {
    const world = new SimWorld();
    const r = await runScenario(loadScenario(join(import.meta.dirname, f)), { world });
    await world.close();
    expect(r.results.filter((x) => !x.ok)).toEqual([]);
    expect(r.results.length).toBeGreaterThanOrEqual(5);
    expect(r.warnings).toEqual([]);
  });
});

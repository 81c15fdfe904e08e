/**
 * The AdminNetworkPolicy conformance suite on real OVN: every
 * ANP_OVN_EVERY-th file (test/anp-suite.ts) through the scenario runner's
 * `ovn` world (the controller's rows in a real NB, northd, ovn-trace), each
 * on a fresh control plane as `kovn sim run --backend ovn` has it: every
 * probe as the suite expects, and the same verdicts as the simulator.
 */
import { describe, expect, it } from 'vitest';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { loadScenario } from '../../scenarios/load.ts';
import { OvnWorld } from '../../scenarios/ovn-world.ts';
import { runScenario, SimWorld } from '../../scenarios/run.ts';
import { ANP_OVN_EVERY, anpFiles } from '../anp-suite.ts';

describe.skipIf(!requireOvn('ANP suite on real OVN'))('the ANP conformance suite on real OVN', () => {
  const which = ANP_OVN_EVERY === 1 ? 'every file' : `every ${ANP_OVN_EVERY}th file`;
  it(`${which}: every probe as expected, the simulator's verdicts`, {
    timeout: 900_000,
  }, async () => {
    const sample = anpFiles().filter((_, i) => i % ANP_OVN_EVERY === 0);
    let probes = 0;
    const wrong: string[] = [];
    const differ: string[] = [];
    for (const file of sample) {
      const s = loadScenario(file);
      const sim = new SimWorld();
      const a = await runScenario(s, { world: sim }).finally(() => sim.close());
      const own = await OvnWorld.start();
      const b = await runScenario(s, { world: own }).finally(() => own.close());
      const name = file.split('/').pop();
      expect(b.results.length).toBe(a.results.length);
      b.results.forEach((x, i) => {
        probes++;
        const at = `${name} ${x.from} → ${x.to} ${x.protocol}/${x.port}`;
        if (!x.ok) wrong.push(`${at}: want ${x.expected}, ${x.reason ?? 'allowed'}`);
        if (x.allowed !== a.results[i]!.allowed) differ.push(`${at}: ovn ${x.allowed}, sim ${a.results[i]!.allowed}`);
      });
    }
    console.log(`anp conformance on ovn-trace: ${probes - wrong.length}/${probes} probes (${sample.length} files)`);
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(differ.slice(0, 10)).toEqual([]);
    expect(sample.length).toBe(Math.ceil(anpFiles().length / ANP_OVN_EVERY));
  });
});

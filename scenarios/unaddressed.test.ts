// A pod the controller gives no address (its Subnet refused) has no interface: a probe to or from
// it is denied, naming why, beside the warnings that say what was refused; it used to stop the run
// with "no pod", as if the scenario had misspelt the pod's name.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenario } from './load.ts';
import { runScenario, SimWorld } from './run.ts';

const SCENARIO = `
apiVersion: kubeovn.io/v1
kind: Subnet
metadata: { name: under }
spec: { cidrBlock: 10.50.0.0/24, vlan: vlan10, namespaces: [u] }
---
apiVersion: v1
kind: Pod
metadata: { name: u1, namespace: u }
spec: { containers: [] }
---
apiVersion: v1
kind: Pod
metadata: { name: p, namespace: default }
spec: { containers: [] }
---
apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: { name: unaddressed }
spec:
  expect:
    - { from: default/p, to: u/u1, protocol: TCP, port: 80, allowed: false }
    - { from: u/u1, to: default/p, protocol: ICMP, allowed: false }
`;

describe('a pod the controller gave no address', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kovn-unaddressed-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is an end with no interface: denied, with the refusal among the warnings', async () => {
    const file = join(dir, 's.yaml');
    writeFileSync(file, SCENARIO);
    const world = new SimWorld();
    const r = await runScenario(loadScenario(file), { world });
    await world.close();
    expect(r.results.map((x) => [x.allowed, x.ok])).toEqual([
      [false, true],
      [false, true],
    ]);
    for (const x of r.results) expect(x.reason).toContain('u/u1 has no address');
    expect(r.warnings.map((w) => [w.code, w.kind, w.name, w.field])).toEqual(
      expect.arrayContaining([
        ['AcquireAddressFailed', 'Pod', 'u1', ''],
        ['ValidateLogicalSwitchFailed', 'Subnet', 'under', 'spec.vlan'],
      ]),
    );
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from './load.ts';
import { runScenario, SimWorld } from './run.ts';

const SCENARIO = `
apiVersion: v1
kind: Pod
metadata: { name: client, namespace: a }
spec: { containers: [] }
---
apiVersion: v1
kind: Pod
metadata: { name: server, namespace: b }
spec: { containers: [] }
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: { name: from-team-x, namespace: b }
spec:
  podSelector: {}
  ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: x } } }] }]
---
apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: { name: relabel }
spec:
  expect:
    - { from: a/client, to: b/server, protocol: UDP, port: 53, allowed: false }
  steps:
    - apply:
        - { apiVersion: v1, kind: Namespace, metadata: { name: a, labels: { team: x } } }
      expect:
        - { from: a/client, to: b/server, protocol: UDP, port: 53, allowed: true }
`;

describe('the scenario runner', () => {
  it('a step that labels a namespace created implicitly earlier relabels it (policies follow)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kovn-run-'));
    writeFileSync(join(dir, 's.yaml'), SCENARIO);
    const world = new SimWorld();
    const r = await runScenario(loadScenario(join(dir, 's.yaml')), { world }).finally(() => world.close());
    rmSync(dir, { recursive: true, force: true });
    expect(r.results.map((x) => [x.step, x.allowed, x.ok])).toEqual([
      [0, false, true],
      [1, true, true],
    ]);
  });

  it('a probe naming a pod that does not exist names the probe, the step and the close names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kovn-run-'));
    writeFileSync(
      join(dir, 's.yaml'),
      SCENARIO.replace(
        'to: b/server, protocol: UDP, port: 53, allowed: true',
        'to: b/sever, protocol: UDP, port: 53, allowed: true',
      ),
    );
    const world = new SimWorld();
    const run = runScenario(loadScenario(join(dir, 's.yaml')), { world }).finally(() => world.close());
    await expect(run).rejects.toThrow(
      'relabel: spec.steps[0].expect[0] (a/client -> b/sever UDP/53): no pod b/sever (did you mean b/server?)',
    );
    rmSync(dir, { recursive: true, force: true });
  });
});

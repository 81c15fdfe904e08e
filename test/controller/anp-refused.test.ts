// An AdminNetworkPolicy Kube-OVN would refuse (or the API server would) is applied not at all, never in
// part, and the answer says so: a warning naming the object and the field, every probe unsure.
import { describe, expect, it } from 'vitest';
import { assembleScenario, readScenarioText } from '../../scenarios/load.ts';
import { runScenario, SimWorld } from '../../scenarios/run.ts';

const scenario = (anps: string) =>
  assembleScenario(
    readScenarioText(
      'refused.yaml',
      `
apiVersion: v1
kind: Pod
metadata: { name: a, namespace: default }
spec: { containers: [{ name: c, image: x }] }
---
apiVersion: v1
kind: Pod
metadata: { name: b, namespace: default }
spec: { containers: [{ name: c, image: x }] }
${anps}
---
apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: { name: refused }
spec:
  expect:
    - { from: default/a, to: default/b, protocol: TCP, port: 80, allowed: true }
    - { from: default/b, to: default/a, protocol: TCP, port: 80, allowed: true }
    - { from: default/a, to: default/b, protocol: TCP, port: 81, allowed: true }
    - { from: default/b, to: default/a, protocol: TCP, port: 81, allowed: true }
    - { from: default/a, to: default/b, protocol: UDP, port: 80, allowed: true }
`,
    ),
    'refused',
  );

const denyAll = (name: string, priority: number, extra = '') => `---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: { name: ${name} }
spec:
  priority: ${priority}
  subject: { namespaces: {} }
  ingress:
    - { name: deny, action: Deny, from: [{ namespaces: {} }] }${extra}
`;

async function run(anps: string) {
  const world = new SimWorld();
  return runScenario(scenario(anps), { world }).finally(() => world.close());
}

describe('refused AdminNetworkPolicies', () => {
  it('a valid one applies (the probes below would be denied by it)', async () => {
    const r = await run(denyAll('deny-all', 5));
    expect(r.results.map((x) => x.allowed)).toEqual([false, false, false, false, false]);
  });

  it.each([
    [
      'a malformed rule',
      denyAll('deny-all', 5, '\n    - { name: bad, action: Reject, from: [{ namespaces: {} }] }'),
      'spec.ingress[1].action',
    ],
    ['a priority above 99', denyAll('deny-all', 100), 'spec.priority'],
  ])('%s: nothing of it applied, a warning naming the field, probes unsure', async (_, anps, field) => {
    const r = await run(anps);
    expect(r.results.map((x) => x.allowed)).toEqual([true, true, true, true, true]);
    const w = r.warnings.filter((x) => x.code === 'InvalidAdminNetworkPolicy');
    expect(w.map((x) => [x.kind, x.name, x.field])).toContainEqual(['AdminNetworkPolicy', 'deny-all', field]);
    expect(r.results.every((x) => x.unsure !== undefined)).toBe(true);
  });

  it('two with one priority: the name that sorts first is in force, the other refused', async () => {
    const r = await run(`${denyAll('b-deny', 5)}${denyAll('a-allow', 5).replace('action: Deny', 'action: Allow')}`);
    expect(r.results.map((x) => x.allowed)).toEqual([true, true, true, true, true]);
    expect(r.warnings.filter((x) => x.code === 'InvalidAdminNetworkPolicy').map((x) => x.message)).toEqual([
      expect.stringContaining('already held by AdminNetworkPolicy a-allow'),
    ]);
  });
});

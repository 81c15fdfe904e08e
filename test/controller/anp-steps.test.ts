// An ANP's rows follow the cluster: a Pass added by another ANP (with a smaller priority) lifts its
// Deny, a pod joining a peer namespace joins the rule, a relabelled namespace leaves the subject, a
// deleted ANP takes its rows with it. Each step's probes are answered on the simulator.
import { describe, expect, it } from 'vitest';
import { assembleScenario, readScenarioText } from '../../scenarios/load.ts';
import { runScenario, SimWorld } from '../../scenarios/run.ts';

const TEXT = `
apiVersion: v1
kind: Namespace
metadata: { name: prod, labels: { env: prod } }
---
apiVersion: v1
kind: Namespace
metadata: { name: dev, labels: { env: dev } }
---
apiVersion: v1
kind: Pod
metadata: { name: api, namespace: prod }
spec: { containers: [{ name: c, image: x }] }
---
apiVersion: v1
kind: Pod
metadata: { name: t1, namespace: dev }
spec: { containers: [{ name: c, image: x }] }
---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: { name: deny-dev }
spec:
  priority: 20
  subject: { namespaces: { matchLabels: { env: prod } } }
  ingress:
    - { name: deny, action: Deny, from: [{ namespaces: { matchLabels: { env: dev } } }] }
---
apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: { name: anp-steps }
spec:
  expect:
    - { from: dev/t1, to: prod/api, protocol: TCP, port: 80, allowed: false }
  steps:
    - apply:
        - apiVersion: v1
          kind: Pod
          metadata: { name: t2, namespace: dev }
          spec: { containers: [{ name: c, image: x }] }
      expect:
        - { from: dev/t2, to: prod/api, protocol: TCP, port: 80, allowed: false }
    - apply:
        - apiVersion: policy.networking.k8s.io/v1alpha1
          kind: AdminNetworkPolicy
          metadata: { name: pass-dev-80 }
          spec:
            priority: 10
            subject: { namespaces: { matchLabels: { env: prod } } }
            ingress:
              - name: pass
                action: Pass
                from: [{ namespaces: { matchLabels: { env: dev } } }]
                ports: [{ portNumber: { protocol: TCP, port: 80 } }]
      expect:
        - { from: dev/t1, to: prod/api, protocol: TCP, port: 80, allowed: true }
        - { from: dev/t2, to: prod/api, protocol: TCP, port: 81, allowed: false }
    - apply:
        - apiVersion: v1
          kind: Namespace
          metadata: { name: prod, labels: { env: staging } }
      expect:
        - { from: dev/t1, to: prod/api, protocol: TCP, port: 81, allowed: true }
    - apply:
        - apiVersion: v1
          kind: Namespace
          metadata: { name: prod, labels: { env: prod } }
      expect:
        - { from: dev/t1, to: prod/api, protocol: TCP, port: 81, allowed: false }
    - delete:
        - { kind: AdminNetworkPolicy, name: deny-dev }
      expect:
        - { from: dev/t1, to: prod/api, protocol: TCP, port: 81, allowed: true }
`;

describe('ANP rows follow the cluster, step by step', () => {
  it('every step as expected', async () => {
    const world = new SimWorld();
    const r = await runScenario(assembleScenario(readScenarioText('anp-steps.yaml', TEXT), 'anp-steps'), {
      world,
    }).finally(() => world.close());
    expect(r.warnings).toEqual([]);
    expect(r.results.filter((x) => !x.ok)).toEqual([]);
    expect(r.results.map((x) => x.step)).toEqual([0, 1, 2, 2, 3, 4, 5]);
  });
});

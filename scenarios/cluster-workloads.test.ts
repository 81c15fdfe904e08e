/**
 * A scenario's workloads and placement over its steps, as the cluster's own
 * controllers keep them (kube/cluster/controllers.ts): what a step changes
 * (a node, a pod, a workload) is followed the way Kubernetes follows it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenario } from './load.ts';
import { runScenario, SimWorld } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'kovn-cluster-workloads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const node = (name: string, spec = '') =>
  `apiVersion: v1\nkind: Node\nmetadata: {name: ${name}}\n${spec ? `spec: ${spec}\n` : ''}`;
const pod = (name: string, spec = '') =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: default, labels: {app: ${name}}}\nspec: {containers: [{name: c, image: x}]${spec}}\n`;
const tpl = '{metadata: {labels: {app: w}}, spec: {containers: [{name: c, image: x}]}}';

/** Each step's pods as `name@node` (`name@` when pending), sorted. */
async function placements(docs: readonly string[], steps: string): Promise<string[][]> {
  const file = join(dir, `s${Math.abs(hash(docs.join() + steps))}.yaml`);
  const scenario = `apiVersion: kovn.io/v1alpha1\nkind: Scenario\nmetadata: {name: w}\nspec:\n  expect: []\n  steps:\n${steps}`;
  writeFileSync(file, [...docs, scenario].join('---\n'));
  const out: string[][] = [];
  const world = new SimWorld();
  try {
    await runScenario(loadScenario(file), {
      world,
      onConverged: async (step, ix) => {
        out[step] = [
          ...[...ix.pods.values()].map((p) => `${p.name}@${p.node}`),
          ...[...ix.pending].map((k) => `${k.split('/')[1]}@`),
        ].sort();
      },
    });
  } finally {
    await world.close();
  }
  return out;
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}

const names = (step: readonly string[] | undefined) => (step ?? []).map((p) => p.split('@')[0]);
const nodesOf = (step: readonly string[] | undefined, prefix: string) =>
  (step ?? []).filter((p) => p.startsWith(prefix)).map((p) => p.split('@')[1]);

describe('workloads and placement follow a scenario step by step', () => {
  it('a DaemonSet gets a pod on a node a later step adds, and on a cordoned node', async () => {
    const ds = `apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: default}\nspec: {template: ${tpl}}\n`;
    const steps = `    - apply:\n        - {apiVersion: v1, kind: Node, metadata: {name: n3}}\n      expect: []\n`;
    const r = await placements([node('n1'), node('n2', '{unschedulable: true}'), ds], steps);
    expect(nodesOf(r[0], 'agent-').sort()).toEqual(['n1', 'n2']);
    expect(nodesOf(r[1], 'agent-').sort()).toEqual(['n1', 'n2', 'n3']);
  });

  it('a pod no node fits at first is bound when a later step adds one that fits', async () => {
    const steps = `    - apply:\n        - {apiVersion: v1, kind: Node, metadata: {name: gpu, labels: {gpu: "yes"}}}\n      expect: []\n`;
    const r = await placements([node('n1'), pod('trainer', ', nodeSelector: {gpu: "yes"}')], steps);
    expect(r[0]).toEqual(['trainer@']);
    expect(r[1]).toEqual(['trainer@gpu']);
  });

  it('a pod written again (new labels) stays on its node: an update never moves a bound pod', async () => {
    const steps = `    - apply:\n        - {apiVersion: v1, kind: Pod, metadata: {name: b, namespace: default, labels: {app: b, v: "2"}}, spec: {containers: [{name: c, image: x}]}}\n      expect: []\n`;
    const r = await placements([node('n1'), node('n2'), pod('a'), pod('b')], steps);
    expect(r[0]).toEqual(['a@n1', 'b@n2']);
    expect(r[1]).toEqual(['a@n1', 'b@n2']);
  });

  it("a Deployment's deleted pod is replaced under a new name; a deleted Deployment takes its pods", async () => {
    const deploy = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec: {replicas: 2, template: ${tpl}}\n`;
    const first = await placements([node('n1'), deploy], '');
    const victim = names(first[0])[0]!;
    const steps = `    - delete: [{kind: Pod, namespace: default, name: ${victim}}]\n      expect: []\n    - delete: [{kind: Deployment, namespace: default, name: web}]\n      expect: []\n`;
    const r = await placements([node('n1'), deploy], steps);
    expect(names(r[1])).toHaveLength(2);
    expect(names(r[1])).not.toContain(victim);
    expect(names(r[1])).toContain(names(first[0])[1]);
    expect(r[2]).toEqual([]);
  });

  it('a Job runs as many pods as it may at once: parallelism, at most completions', async () => {
    const job = `apiVersion: batch/v1\nkind: Job\nmetadata: {name: once, namespace: default}\nspec: {parallelism: 3, completions: 1, template: ${tpl}}\n`;
    const r = await placements([node('n1'), job], '');
    expect(names(r[0])).toHaveLength(1);
  });

  it("a dump's Deployment, deleted in a step, takes the pods that stood for it", async () => {
    const dump = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, uid: d-1}
spec: {replicas: 1, template: ${tpl}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-5d9c, namespace: default, uid: rs-1, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d-1, controller: true}]}
spec: {replicas: 1, template: ${tpl}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-5d9c-abcde, namespace: default, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d9c, uid: rs-1, controller: true}]}
spec: {containers: [{name: c, image: x}]}
`;
    const steps = '    - delete: [{kind: Deployment, namespace: default, name: web}]\n      expect: []\n';
    const r = await placements([node('n1'), dump, pod('other')], steps);
    expect(r[0]).toEqual(['other@n1', 'web-5d9c-abcde@n1']);
    expect(r[1]).toEqual(['other@n1']);
  });
});

import { describe, expect, it } from 'vitest';
import { ClusterControllers } from './controllers.ts';
import { MemoryCluster } from './memory.ts';
import type { KubeObject } from './types.ts';
import { suffix } from './workloads.ts';

const template = (labels: Record<string, string>, spec: Record<string, unknown> = {}) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'c', image: 'x' }], ...spec },
});

const node = (name: string, extra: { labels?: Record<string, string>; spec?: Record<string, unknown> } = {}) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: extra.labels ?? {} },
  ...(extra.spec ? { spec: extra.spec } : {}),
});

const workload = (kind: string, name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: kind === 'Job' ? 'batch/v1' : 'apps/v1',
  kind,
  metadata: { name, namespace: 'shop' },
  spec,
});

async function cluster(nodes = ['n1', 'n2']) {
  const c = new MemoryCluster();
  const w = new ClusterControllers(c);
  await w.start();
  for (const n of nodes) await c.create(node(n));
  await w.idle();
  return { c, w };
}

const pods = async (c: MemoryCluster) =>
  (await c.list('Pod')).items.map((p) => [p.metadata.name, (p.spec as { nodeName?: string }).nodeName ?? '']);

describe('the workload controllers of the in-memory cluster', () => {
  it('Deployment → ReplicaSet named with its hash → pods, each with its controller reference (uid)', async () => {
    const { c, w } = await cluster();
    const d = await c.create(workload('Deployment', 'web', { replicas: 2, template: template({ app: 'web' }) }));
    await w.idle();
    const hash = suffix('shop/web/template', 10);
    const [rs] = (await c.list('ReplicaSet')).items;
    expect(rs?.metadata.name).toBe(`web-${hash}`);
    expect(rs?.metadata.ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid, controller: true },
    ]);
    const made = (await c.list('Pod')).items;
    expect(made.map((p) => p.metadata.name).sort()).toEqual(
      [0, 1].map((i) => `web-${hash}-${suffix(`shop/web-${hash}/${i}`, 5)}`).sort(),
    );
    for (const p of made) {
      expect(p.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'ReplicaSet', uid: rs!.metadata.uid });
      expect(p.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
    }
    // Placed round-robin in creation order.
    expect(made.map((p) => (p.spec as { nodeName: string }).nodeName).sort()).toEqual(['n1', 'n2']);
  });

  it('a scale change follows: down removes the newest first, up makes new names; a template change makes a new ReplicaSet', async () => {
    const { c, w } = await cluster();
    await c.create(workload('ReplicaSet', 'rs', { replicas: 3, template: template({ app: 'rs' }) }));
    await w.idle();
    const first = (await pods(c)).map(([n]) => n);
    const order = [0, 1, 2].map((i) => `rs-${suffix(`shop/rs/${i}`, 5)}`);
    expect(first.sort()).toEqual([...order].sort());
    await c.patch({ kind: 'ReplicaSet', namespace: 'shop', name: 'rs' }, { spec: { replicas: 1 } });
    await w.idle();
    expect((await pods(c)).map(([n]) => n)).toEqual([order[0]]);
    await c.patch({ kind: 'ReplicaSet', namespace: 'shop', name: 'rs' }, { spec: { replicas: 2 } });
    await w.idle();
    // A name once given is not given again: the new pod is the fourth name.
    expect((await pods(c)).map(([n]) => n).sort()).toEqual([order[0], `rs-${suffix('shop/rs/3', 5)}`].sort());

    const d = await c.create(workload('Deployment', 'web', { replicas: 1, template: template({ app: 'web' }) }));
    await w.idle();
    await c.update({ ...d, spec: { replicas: 1, template: template({ app: 'web', v: '2' }) } });
    await w.idle();
    const sets = (await c.list('ReplicaSet')).items.filter((r) => r.metadata.name.startsWith('web-'));
    expect(sets.map((r) => (r.spec as { replicas: number }).replicas).sort()).toEqual([0, 1]);
    const web = (await c.list('Pod')).items.filter((p) => p.metadata.name.startsWith('web-'));
    expect(web.map((p) => p.metadata.labels?.v)).toEqual(['2']);
  });

  it('StatefulSet pods are <name>-<i>; scale down removes the highest ordinals; a deleted pod comes back under its name', async () => {
    const { c, w } = await cluster();
    await c.create(workload('StatefulSet', 'db', { replicas: 3, template: template({ app: 'db' }) }));
    await w.idle();
    expect((await pods(c)).map(([n]) => n)).toEqual(['db-0', 'db-1', 'db-2']);
    const db1 = await c.get({ kind: 'Pod', namespace: 'shop', name: 'db-1' });
    expect(db1?.metadata.labels).toMatchObject({
      app: 'db',
      'statefulset.kubernetes.io/pod-name': 'db-1',
      'apps.kubernetes.io/pod-index': '1',
    });
    await c.delete({ kind: 'Pod', namespace: 'shop', name: 'db-1' });
    await w.idle();
    expect((await pods(c)).map(([n]) => n)).toEqual(['db-0', 'db-1', 'db-2']);
    await c.patch({ kind: 'StatefulSet', namespace: 'shop', name: 'db' }, { spec: { replicas: 1 } });
    await w.idle();
    expect((await pods(c)).map(([n]) => n)).toEqual(['db-0']);
  });

  it('DaemonSet: one pod per node its template fits, one more when a node comes, tolerating what its controller adds', async () => {
    const { c, w } = await cluster(['n1']);
    await c.create(node('cordoned', { spec: { unschedulable: true } }));
    await c.create(node('gpu', { spec: { taints: [{ key: 'gpu', value: 'yes', effect: 'NoSchedule' }] } }));
    await c.create(workload('DaemonSet', 'agent', { template: template({ app: 'agent' }) }));
    await w.idle();
    // unschedulable is tolerated (the DaemonSet controller's toleration), the gpu taint is not.
    expect((await pods(c)).map(([, n]) => n).sort()).toEqual(['cordoned', 'n1']);
    await c.create(node('n2'));
    await w.idle();
    expect((await pods(c)).map(([, n]) => n).sort()).toEqual(['cordoned', 'n1', 'n2']);
    expect((await pods(c)).map(([p]) => p)).toContain(`agent-${suffix('shop/agent/n2', 5)}`);
    await c.delete({ kind: 'Node', name: 'n2' });
    await w.idle();
    expect((await pods(c)).map(([, n]) => n).sort()).toEqual(['cordoned', 'n1']);
  });

  it('Job: as many pods as run at once (parallelism, at most completions), labelled with the job', async () => {
    const { c, w } = await cluster();
    await c.create(workload('Job', 'batch', { parallelism: 3, completions: 2, template: template({}) }));
    await w.idle();
    const made = (await c.list('Pod')).items;
    expect(made.map((p) => p.metadata.name).sort()).toEqual(
      [0, 1].map((i) => `batch-${suffix(`shop/batch/${i}`, 5)}`).sort(),
    );
    expect(made[0]?.metadata.labels).toEqual({ 'job-name': 'batch' });
    expect(made[0]?.metadata.ownerReferences?.[0]).toMatchObject({ apiVersion: 'batch/v1', kind: 'Job' });
  });

  it('deleting a workload deletes what it made (the garbage collector), and nothing else', async () => {
    const { c, w } = await cluster();
    await c.create(workload('Deployment', 'web', { replicas: 2, template: template({ app: 'web' }) }));
    await c.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'solo', namespace: 'shop' }, spec: {} });
    await w.idle();
    await c.delete({ kind: 'Deployment', namespace: 'shop', name: 'web' });
    await w.idle();
    expect((await c.list('ReplicaSet')).items).toEqual([]);
    expect((await pods(c)).map(([n]) => n)).toEqual(['solo']);
  });

  it('makes pods for any create through the API after start, as `kubectl apply` would', async () => {
    const c = new MemoryCluster();
    const w = new ClusterControllers(c);
    await w.start();
    await c.create(workload('StatefulSet', 'db', { replicas: 1, template: template({}) }));
    await w.idle();
    // No node yet: the pod waits, pending, and is bound when one comes.
    expect(await pods(c)).toEqual([['db-0', '']]);
    await c.create(node('late'));
    await w.idle();
    expect(await pods(c)).toEqual([['db-0', 'late']]);
    w.stop();
  });

  it('a Deployment scaled follows through its ReplicaSet; objects there before start are reconciled at start', async () => {
    const c = new MemoryCluster();
    await c.create(node('n1'));
    await c.create(workload('Deployment', 'web', { replicas: 3, template: template({ app: 'web' }) }));
    const w = new ClusterControllers(c);
    await w.start();
    await w.idle();
    expect(await pods(c)).toHaveLength(3);
    await c.patch({ kind: 'Deployment', namespace: 'shop', name: 'web' }, { spec: { replicas: 1 } });
    await w.idle();
    expect(await pods(c)).toHaveLength(1);
    const [rs] = (await c.list('ReplicaSet')).items;
    expect((rs!.spec as { replicas: number }).replicas).toBe(1);
    w.stop();
  });

  it('the same writes give the same names on the same nodes', async () => {
    const run = async () => {
      const { c, w } = await cluster(['a', 'b', 'c']);
      await c.create(workload('Deployment', 'web', { replicas: 4, template: template({ app: 'web' }) }));
      await c.create(workload('Job', 'j', { parallelism: 2, template: template({}) }));
      await w.idle();
      return pods(c);
    };
    expect(await run()).toEqual(await run());
  });
});

describe('the scheduler of the in-memory cluster', () => {
  const pod = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'shop' },
    spec: { containers: [], ...spec },
  });

  it('binds by nodeSelector, required node affinity and tolerations; round-robin among those that fit', async () => {
    const { c, w } = await cluster([]);
    await c.create(node('hdd', { labels: { disk: 'hdd', zone: '1' } }));
    await c.create(node('ssd', { labels: { disk: 'ssd', zone: '2' } }));
    await c.create(node('tainted', { labels: { disk: 'ssd' }, spec: { taints: [{ key: 'k', effect: 'NoExecute' }] } }));
    const affinity = (op: string, values: string[]) => ({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: op, values }] }],
        },
      },
    });
    await c.create(pod('sel', { nodeSelector: { disk: 'ssd' } }));
    await c.create(pod('gt', { affinity: affinity('Gt', ['1']) }));
    await c.create(pod('tol', { nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'k', operator: 'Exists' }] }));
    await c.create(pod('tol2', { nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'k', operator: 'Exists' }] }));
    await c.create(pod('named', { nodeName: 'hdd' }));
    await w.idle();
    expect(Object.fromEntries(await pods(c))).toEqual({
      sel: 'ssd',
      gt: 'ssd',
      tol: 'tainted',
      tol2: 'ssd',
      named: 'hdd',
    });
  });

  it('a pod no node fits stays pending with a FailedScheduling event, and is bound when a node that fits comes', async () => {
    const { c, w } = await cluster(['n1']);
    await c.patch({ kind: 'Node', name: 'n1' }, { spec: { unschedulable: true } });
    await c.create(pod('gpu', { nodeSelector: { gpu: 'yes' } }));
    await w.idle();
    expect(await pods(c)).toEqual([['gpu', '']]);
    const [e] = c.events({ kind: 'Pod', namespace: 'shop', name: 'gpu' });
    expect(e).toMatchObject({
      type: 'Warning',
      reason: 'FailedScheduling',
      message: "0/1 nodes are available: 1 node(s) didn't match unschedulable",
      source: { component: 'default-scheduler' },
    });
    await c.create(node('n2', { labels: { gpu: 'yes' } }));
    await w.idle();
    expect(await pods(c)).toEqual([['gpu', 'n2']]);
  });
});

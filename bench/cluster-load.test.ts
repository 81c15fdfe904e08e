import { describe, expect, it } from 'vitest';
import { SimBackend } from '../backends/sim/index.ts';
import { Controller } from '../controller/controller.ts';
import { SimKubelet } from '../kube/cluster/kubelet.ts';
import { MemoryCluster } from '../kube/cluster/memory.ts';
import { realClock } from '../kube/runtime/clock.ts';
import { seededRandomBytes } from '../model/ipam/index.ts';
import { BENCH_NAMESPACE, createHollowNodes, hollowNodeName, runClusterLoad } from './cluster-load.ts';

describe('the load of bench cluster', () => {
  it('hollow nodes and pods on an in-memory cluster: the controller routes every pod, the kubelet runs them', async () => {
    const cluster = new MemoryCluster({ now: () => Date.now() });
    const controller = new Controller({
      cluster,
      backend: new SimBackend(),
      clock: realClock,
      random: seededRandomBytes(1),
    });
    const kubelet = new SimKubelet(cluster, { clock: realClock });
    await controller.start();
    await kubelet.start();
    await createHollowNodes(cluster, 3);
    const r = await runClusterLoad(cluster, {
      nodes: 3,
      pods: 20,
      concurrency: 4,
      now: () => performance.now(),
      clock: realClock,
    });
    await kubelet.idle();
    await kubelet.stop();
    await controller.stop();
    expect(r.missing).toBe(0);
    expect(r.routedMs.length).toBe(20);
    const pods = (await cluster.list('Pod', { namespace: BENCH_NAMESPACE })).items;
    expect(pods.length).toBe(20);
    const byNode = new Map<string, number>();
    for (const p of pods) {
      const node = (p.spec as { nodeName: string }).nodeName;
      byNode.set(node, (byNode.get(node) ?? 0) + 1);
      expect(p.status).toMatchObject({
        phase: 'Running',
        podIP: p.metadata.annotations?.['ovn.kubernetes.io/ip_address'],
      });
    }
    expect([...byNode.keys()].sort()).toEqual([0, 1, 2].map(hollowNodeName));
    const node = await cluster.get({ kind: 'Node', name: hollowNodeName(0) });
    expect(node?.status).toMatchObject({
      addresses: [{ type: 'InternalIP', address: '172.16.0.1' }, { type: 'Hostname' }],
    });
    expect(pods.find((p) => (p.spec as { nodeName: string }).nodeName === hollowNodeName(0))?.status).toMatchObject({
      hostIP: '172.16.0.1',
    });
  });
});

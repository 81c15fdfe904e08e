import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiDescription } from '../kube/apiserver/describe/index.ts';
import { renderKubeconfig, selfSignedCertificate, startApiServer } from '../kube/apiserver/http/index.ts';
import { connectApiSource } from '../kube/cluster/api/connect.ts';
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

describe('the load of bench cluster through the API', () => {
  it('the controller and the kubelet over the API source, against the API front: every pod routed and Running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kovn-bench-load-'));
    const cluster = new MemoryCluster({ now: () => Date.now() });
    const description = await createApiDescription(cluster, { crdFiles: [], now: () => Date.now() });
    const tls = await selfSignedCertificate();
    const api = await startApiServer({
      cluster,
      description,
      clock: realClock,
      random: () => 0.5,
      token: 't',
      tls,
      port: 0,
    });
    const kubeconfig = join(dir, 'k.yaml');
    writeFileSync(kubeconfig, renderKubeconfig({ server: api.url, caCert: tls.cert, token: 't' }));
    const connect = () => connectApiSource({ kubeconfig, clock: realClock, random: Math.random });
    const [forController, forKubelet, forLoad] = [await connect(), await connect(), await connect()];
    const controller = new Controller({
      cluster: forController,
      backend: new SimBackend(),
      clock: realClock,
      random: seededRandomBytes(1),
    });
    const kubelet = new SimKubelet(forKubelet, { clock: realClock, nodes: [0, 1].map(hollowNodeName) });
    try {
      await controller.start();
      await kubelet.start();
      await createHollowNodes(forLoad, 2);
      const r = await runClusterLoad(forLoad, { nodes: 2, pods: 10, now: () => performance.now(), clock: realClock });
      expect(r.missing).toBe(0);
      await kubelet.idle();
      const pods = (await cluster.list('Pod', { namespace: BENCH_NAMESPACE })).items;
      expect(pods.map((p) => (p.status as { phase?: string } | undefined)?.phase)).toEqual(Array(10).fill('Running'));
      // The controller's default objects went through the API too.
      expect(await cluster.get({ kind: 'Subnet', name: 'ovn-default' })).toBeDefined();
      expect(api.handler.stats().byVerb['patch']).toBeGreaterThanOrEqual(20);
    } finally {
      await kubelet.stop();
      await controller.stop();
      for (const s of [forController, forKubelet, forLoad]) s.close();
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

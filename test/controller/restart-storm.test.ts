/**
 * Restarts under a storm: pods are created and deleted while the controller
 * runs, the controller is killed at seeded random moments (its cluster and
 * backend connections cut at once, as a crash cuts them: whatever it was
 * doing stops, a batch in flight lands or not), the storm goes on while it
 * is down, a new controller starts. At the end: no two pods share an
 * address, every pod's annotation, IP object and NB port agree, no port or
 * IP object without a pod, no lease without an owner, and one more restart
 * with nothing changed writes nothing.
 */
import { describe, expect, it } from 'vitest';
import { SimBackend } from '../../backends/sim/index.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import { plan } from '../../model/topology/index.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { fcSeed } from '../fc.ts';
import { splitmix } from '../../bench/drift.ts';
import { Cut, cutBackend, cutCluster } from '../model-based/faults.ts';

const pod = (name: string, node: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels: { app: name.length % 2 ? 'a' : 'b' } },
  spec: { nodeName: node, containers: [] },
});

describe('controller restarts in the middle of a pod storm', () => {
  it('leaves no duplicate address, no orphan port, no leaked allocation, and a quiet restart', {
    timeout: 120_000,
  }, async () => {
    const seed = fcSeed();
    const random = splitmix(seed);
    const cluster = new MemoryCluster({ now: () => Date.now() });
    const backend = new SimBackend();
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } });
    await cluster.create({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'np', namespace: 'default' },
      spec: {
        podSelector: { matchLabels: { app: 'a' } },
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'b' } } }] }],
      },
    });
    const live = new Set<string>();
    let next = 0;
    const storm = async (n: number, killAt = -1, kill: () => Promise<void> = async () => {}) => {
      for (let i = 0; i < n; i++) {
        if (i === killAt) await kill();
        if (live.size > 0 && random() < 0.3) {
          const victim = [...live][Math.floor(random() * live.size)]!;
          live.delete(victim);
          await cluster.delete({ kind: 'Pod', namespace: 'default', name: victim });
        } else {
          const name = `p${next++}`;
          live.add(name);
          await cluster.create(pod(name, random() < 0.5 ? 'n1' : 'n2'));
        }
        if (random() < 0.2) await new Promise((r) => setImmediate(r));
      }
    };
    let kills = 0;
    /** Pods the killed controllers had not finished: the kills really came mid-storm. */
    let unfinished = 0;
    for (let round = 0; round < 6; round++) {
      const cut = new Cut();
      const c = new Controller({
        cluster: cutCluster(cluster, cut),
        backend: cutBackend(backend, cut),
        clock: realClock,
        random: seededRandomBytes(seed + round),
      });
      await c.start();
      // Changes while it runs, a kill at a seeded moment inside them (some work done, some in flight),
      // and the storm goes on while no controller runs.
      const n = 30 + Math.floor(random() * 40);
      await storm(n, 10 + Math.floor(random() * (n - 10)), async () => {
        cut.dead = true;
        kills++;
        unfinished += (await cluster.list('Pod')).items.filter(
          (p) => p.metadata.annotations?.['ovn.kubernetes.io/routed'] !== 'true',
        ).length;
        // Its connections are cut: stopping must still end (nothing it waits for will ever answer).
        await c.stop();
      });
    }
    const final = new Controller({ cluster, backend, clock: realClock, random: seededRandomBytes(seed + 99) });
    await final.start();
    await settled(final);

    const pods = (await cluster.list('Pod')).items;
    expect(pods.map((p) => p.metadata.name).sort()).toEqual([...live].sort());
    const ann = (p: KubeObject, k: string) => p.metadata.annotations?.[`ovn.kubernetes.io/${k}`];
    const addresses = pods.map((p) => ann(p, 'ip_address'));
    expect(addresses.every((a) => a !== undefined)).toBe(true);
    expect(new Set(addresses).size).toBe(addresses.length);
    const t = await backend.read();
    const podPorts = [...t.switchPort.values()].filter((p) => p.externalIds.pod !== undefined);
    expect(podPorts.map((p) => p.name).sort()).toEqual(pods.map((p) => `${p.metadata.name}.default`).sort());
    for (const p of pods) {
      const port = t.switchPort.get(`${p.metadata.name}.default`)!;
      expect(port.addresses).toEqual([`${ann(p, 'mac_address')} ${ann(p, 'ip_address')}`]);
    }
    const ips = (await cluster.list('IP')).items;
    expect(ips.map((o) => o.metadata.name).sort()).toEqual(pods.map((p) => `${p.metadata.name}.default`).sort());
    for (const o of ips) {
      const p = pods.find((x) => `${x.metadata.name}.default` === o.metadata.name)!;
      expect((o.spec as { ipAddress: string }).ipAddress).toBe(ann(p, 'ip_address'));
    }
    // Leases: one per pod and one per node, nothing else.
    const leases = final.ipam
      .snapshot()
      .map((r) => r.owner)
      .sort();
    expect(leases).toEqual([...pods.map((p) => `${p.metadata.name}.default`), 'node-n1', 'node-n2'].sort());
    expect(plan(await backend.read(), final.store.topology())).toEqual([]);
    await final.stop();
    const quiet = new Controller({ cluster, backend, clock: realClock, random: seededRandomBytes(seed + 100) });
    const writes = cluster.stats().writes;
    const r = await quiet.start();
    await settled(quiet);
    expect(r.operations).toBe(0);
    expect(cluster.stats().writes).toBe(writes);
    await quiet.stop();
    expect(unfinished).toBeGreaterThan(0);
    console.log(
      `restart storm (seed ${seed}): ${kills} kills with ${unfinished} pods unfinished, ${next} created, ${pods.length} alive`,
    );
  });
});

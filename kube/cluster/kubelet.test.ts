import { describe, expect, it } from 'vitest';
import { encodePodNetwork } from '../annotations.ts';
import { SimClock } from '../runtime/clock.ts';
import { apiTime, kubeletStatus, SimKubelet } from './kubelet.ts';
import { MemoryCluster } from './memory.ts';
import type { KubeObject } from './types.ts';

const node = (name: string, ip?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name },
  ...(ip
    ? {
        status: {
          addresses: [
            { type: 'Hostname', address: name },
            { type: 'InternalIP', address: ip },
          ],
        },
      }
    : {}),
});

const pod = (name: string, nodeName: string | undefined, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'shop' },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'app', image: 'nginx' }], ...extra },
});

const routed = (ips: string[], isRouted = true) =>
  encodePodNetwork({
    ips,
    mac: '0a:58:0a:10:00:05',
    cidrs: ['10.16.0.0/16'],
    gateways: ['10.16.0.1'],
    logicalSwitch: 'ovn-default',
    logicalRouter: 'ovn-cluster',
    podNicType: 'veth-pair',
    routed: isRouted,
  });

async function world(nodes?: string[]) {
  const clock = new SimClock(Date.UTC(2026, 0, 1));
  const c = new MemoryCluster({ now: () => clock.now() });
  await c.create(node('n1', '172.18.0.2'));
  await c.create(node('n2', '172.18.0.3'));
  const errors: unknown[] = [];
  const k = new SimKubelet(c, { clock, ...(nodes ? { nodes } : {}), onError: (e) => errors.push(e) });
  await k.start();
  const settle = async () => {
    await clock.settle();
    await k.idle();
    await clock.settle();
  };
  const status = async (name: string) =>
    (await c.get({ kind: 'Pod', namespace: 'shop', name }))?.status as Record<string, unknown> | undefined;
  const annotate = (name: string, annotations: Record<string, string>) =>
    c.patch({ kind: 'Pod', namespace: 'shop', name }, { metadata: { annotations } });
  return { clock, c, k, errors, settle, status, annotate };
}

describe('the simulated kubelet', () => {
  it('reports a pod Running with its IPs, hostIP and Ready conditions once the controller says routed', async () => {
    const w = await world();
    await w.c.create(pod('web', 'n1'));
    await w.settle();
    expect(await w.status('web')).toBeUndefined();
    // Allocated but not yet routed: the CNI would still be waiting.
    await w.annotate('web', routed(['10.16.0.5', 'fd00:10:16::5'], false));
    await w.settle();
    expect(await w.status('web')).toBeUndefined();
    await w.annotate('web', routed(['10.16.0.5', 'fd00:10:16::5']));
    await w.settle();
    const s = await w.status('web');
    expect(s).toMatchObject({
      phase: 'Running',
      podIP: '10.16.0.5',
      podIPs: [{ ip: '10.16.0.5' }, { ip: 'fd00:10:16::5' }],
      hostIP: '172.18.0.2',
      startTime: '2026-01-01T00:00:00Z',
      containerStatuses: [{ name: 'app', image: 'nginx', ready: true, restartCount: 0 }],
    });
    expect(
      ((s?.['conditions'] ?? []) as { type: string; status: string }[]).map((c) => `${c.type}=${c.status}`),
    ).toEqual(['Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True']);
    expect(w.k.stats()).toEqual({ writes: 1, nodeWrites: 2, failures: 0 });
    expect(w.errors).toEqual([]);
  });

  it('writes once per change: its own write and unrelated changes write nothing more', async () => {
    const w = await world();
    await w.c.create({
      ...pod('web', 'n1'),
      metadata: { name: 'web', namespace: 'shop', annotations: routed(['10.16.0.5']) },
    });
    await w.settle();
    await w.c.patch({ kind: 'Pod', namespace: 'shop', name: 'web' }, { metadata: { labels: { tier: 'a' } } });
    await w.clock.tick(60_000);
    await w.settle();
    expect(w.k.stats().writes).toBe(1);
    // A new address (the annotation rewritten) is reported, and the start time kept.
    await w.clock.tick(5_000);
    await w.annotate('web', { 'ovn.kubernetes.io/ip_address': '10.16.0.9' });
    await w.settle();
    expect(await w.status('web')).toMatchObject({ podIP: '10.16.0.9', startTime: '2026-01-01T00:00:00Z' });
    expect(w.k.stats().writes).toBe(2);
  });

  it('runs only the pods of its own nodes, and leaves unbound, finished and deleting pods alone', async () => {
    const w = await world(['n1']);
    const meta = (name: string, more: Record<string, unknown> = {}) => ({
      metadata: { name, namespace: 'shop', annotations: routed(['10.16.0.7']), ...more },
    });
    await w.c.create({ ...pod('other', 'n2'), ...meta('other') });
    await w.c.create({ ...pod('unbound', undefined), ...meta('unbound') });
    await w.c.create({ ...pod('done', 'n1'), ...meta('done'), status: { phase: 'Succeeded' } });
    // Being deleted (held by a finalizer) by the time it is routed.
    await w.c.create({ ...pod('going', 'n1'), metadata: { name: 'going', namespace: 'shop', finalizers: ['x/y'] } });
    await w.c.delete({ kind: 'Pod', namespace: 'shop', name: 'going' });
    await w.annotate('going', routed(['10.16.0.8']));
    await w.settle();
    expect(await w.status('other')).toBeUndefined();
    expect(await w.status('unbound')).toBeUndefined();
    expect(await w.status('done')).toEqual({ phase: 'Succeeded' });
    expect(await w.status('going')).toBeUndefined();
    expect(w.k.stats().writes).toBe(0);
  });

  it('runs a host-network pod at once with its node address, and follows the node address when it comes', async () => {
    const w = await world();
    await w.c.create(node('n3'));
    await w.c.create(pod('agent', 'n3', { hostNetwork: true }));
    await w.settle();
    // No InternalIP yet: the pod has no address to report.
    expect(await w.status('agent')).toBeUndefined();
    await w.c.patch(
      { kind: 'Node', name: 'n3' },
      { status: { addresses: [{ type: 'InternalIP', address: '172.18.0.9' }] } },
      { subresource: 'status' },
    );
    await w.settle();
    expect(await w.status('agent')).toMatchObject({ phase: 'Running', podIP: '172.18.0.9', hostIP: '172.18.0.9' });
  });

  it('a pod deleted between its read and its write is not an error', async () => {
    const clock = new SimClock();
    const c = new MemoryCluster();
    // The pod goes just before the kubelet's write reaches the cluster.
    const racing = Object.assign(Object.create(c) as MemoryCluster, {
      patch: async (...args: Parameters<MemoryCluster['patch']>) => {
        await c.delete(args[0]);
        return c.patch(...args);
      },
    });
    const errors: unknown[] = [];
    const k = new SimKubelet(racing, { clock, onError: (e) => errors.push(e) });
    await k.start();
    await c.create(node('n1', '172.18.0.2'));
    await c.create({
      ...pod('web', 'n1'),
      metadata: { name: 'web', namespace: 'shop', annotations: routed(['10.16.0.5']) },
    });
    await clock.settle();
    await k.idle();
    expect(await c.get({ kind: 'Pod', namespace: 'shop', name: 'web' })).toBeUndefined();
    expect(errors).toEqual([]);
    expect(k.stats()).toEqual({ writes: 0, nodeWrites: 0, failures: 0 });
  });
});

describe('the simulated kubelet and its nodes', () => {
  it('reports its own nodes Ready once (other conditions kept), and leaves other nodes alone', async () => {
    const clock = new SimClock(Date.UTC(2026, 0, 1));
    const c = new MemoryCluster({ now: () => clock.now() });
    const pressure = { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory' };
    await c.create({ ...node('n1'), status: { conditions: [pressure] } });
    await c.create(node('n2'));
    const k = new SimKubelet(c, { clock, nodes: ['n1'] });
    await k.start();
    await clock.settle();
    await k.idle();
    await clock.settle();
    const conditions = async (name: string) =>
      ((await c.get({ kind: 'Node', name }))?.status as { conditions?: unknown[] } | undefined)?.conditions;
    expect(await conditions('n1')).toEqual([
      pressure,
      expect.objectContaining({ type: 'Ready', status: 'True', reason: 'KubeletReady' }),
    ]);
    expect(await conditions('n2')).toBeUndefined();
    await c.patch({ kind: 'Node', name: 'n1' }, { metadata: { labels: { zone: 'a' } } });
    await clock.settle();
    await k.idle();
    expect(k.stats().nodeWrites).toBe(1);
    await k.stop();
  });
});

describe('kubeletStatus', () => {
  const p: KubeObject = {
    ...pod('web', 'n1'),
    metadata: { name: 'web', namespace: 'shop', annotations: routed(['10.16.0.5']) },
  };

  it('is satisfied by the status as an API server stores it (nulls dropped, times rounded): no endless rewrite', () => {
    const first = kubeletStatus(p, node('n1', '172.18.0.2'), apiTime(1_500))!;
    const stored = JSON.parse(JSON.stringify(first, (k, v) => (k === 'lastProbeTime' ? undefined : v)));
    expect(kubeletStatus({ ...p, status: stored }, node('n1', '172.18.0.2'), apiTime(9_000))).toBeUndefined();
  });

  it('keeps the transition times of conditions that stay true', () => {
    const first = kubeletStatus(p, node('n1', '172.18.0.2'), '2026-01-01T00:00:00Z')!;
    const moved = kubeletStatus({ ...p, status: first }, node('n1', '172.18.0.4'), '2026-01-01T01:00:00Z')!;
    expect(moved.hostIP).toBe('172.18.0.4');
    expect(new Set(moved.conditions.map((c) => c.lastTransitionTime))).toEqual(new Set(['2026-01-01T00:00:00Z']));
  });

  it('apiTime writes whole seconds', () => {
    expect(apiTime(1_999)).toBe('1970-01-01T00:00:01Z');
  });
});

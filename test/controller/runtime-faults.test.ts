/**
 * The controller runtime as a real API server and a real backend stress it,
 * with faults injected by wrappers (kube/cluster/faults.ts, a backend
 * that refuses applies): a watch that fails and a relist that fails, a
 * Conflict on the annotation write after a commit, a backend that refuses
 * every apply while the controller stops, and watch events that arrive late
 * while the controller creates Kube-OVN's defaults. Each must end with the
 * cluster and NB as they should be, and no call that never returns.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../backends/backend.ts';
import { SimBackend } from '../../backends/sim/index.ts';
import { FaultyCluster } from '../../kube/cluster/faults.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import { type KubeObject, formatKey } from '../../kube/cluster/types.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { CommitterClosedError } from '../../controller/desired/commit.ts';
import type { Clock } from '../../kube/runtime/clock.ts';
import { InformerStoppedError } from '../../kube/runtime/informer.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';

/** Real timers a hundred times faster: backoff delays (800 ms before a relist) pass in milliseconds. */
function fastClock(): Clock {
  const start = Date.now();
  return {
    now: () => start + (Date.now() - start) * 100,
    setTimeout: (fn, ms) => setTimeout(fn, ms / 100),
    clearTimeout: (h) => clearTimeout(h as Parameters<typeof clearTimeout>[0]),
  };
}

const pod = (name: string, namespace = 'default'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace },
  spec: { nodeName: 'n1', containers: [] },
});
const node = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } });

type Failure = readonly [kind: string, key: string | undefined, reason: string];

/** A controller on `cluster`, its failures as [kind, key, reason]. */
function controller(cluster: FaultyCluster | MemoryCluster, backend: Backend) {
  const failures: Failure[] = [];
  const c = new Controller({
    cluster,
    backend,
    clock: fastClock(),
    random: seededRandomBytes(1),
    onError: (kind, key, err) =>
      failures.push([
        kind,
        key === undefined ? key : formatKey(key),
        (err as { reason?: string }).reason ?? String(err),
      ]),
  });
  running.push(c);
  return { c, failures };
}

const running: Controller[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop();
});

const annotations = async (cluster: MemoryCluster, name: string, namespace = 'default') =>
  (await cluster.get({ kind: 'Pod', namespace, name }))?.metadata.annotations ?? {};

/**
 * Waits until `done` holds, letting the controller work (and its retries,
 * which wait out a backoff, come due); fails naming `what` after `rounds`.
 */
async function until(c: Controller, what: string, done: () => Promise<boolean>, rounds = 500): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await settled(c);
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never happened: ${what}`);
}

const allocated =
  (cluster: MemoryCluster, name: string, namespace = 'default') =>
  async () =>
    (await annotations(cluster, name, namespace))['ovn.kubernetes.io/allocated'] === 'true';

describe('the controller under injected faults', () => {
  it('recovers when a watch fails and the relist after it fails: a pod created meanwhile gets its address', async () => {
    const cluster = new MemoryCluster();
    const faulty = new FaultyCluster(cluster);
    await cluster.create(node('n1'));
    const { c, failures } = controller(faulty, new SimBackend());
    await c.start();
    await settled(c);
    faulty.fail('list', { kind: 'Pod' });
    faulty.breakWatches('Pod');
    await cluster.create(pod('late'));
    await until(c, 'the pod created while the Pod informer relisted got its address', allocated(cluster, 'late'));
    expect(faulty.refused).toEqual({ watch: 1, list: 1 });
    // Both failures reported against the kind's informer (no object key).
    expect(failures).toEqual([
      ['Pod', undefined, 'ServiceUnavailable'],
      ['Pod', undefined, 'ServiceUnavailable'],
    ]);
  });

  it('retries an annotation write refused with Conflict, at start-up and after, naming the pod', async () => {
    const cluster = new MemoryCluster();
    const faulty = new FaultyCluster(cluster);
    await cluster.create(node('n1'));
    await cluster.create(pod('early'));
    faulty.fail('patch', { kind: 'Pod', reason: 'Conflict' });
    const backend = new SimBackend();
    const { c, failures } = controller(faulty, backend);
    await c.start();
    await until(c, 'the pod of the start-up pass got its annotations', allocated(cluster, 'early'));
    faulty.fail('patch', { kind: 'Pod', reason: 'Conflict' });
    await cluster.create(pod('web.v2'));
    await until(c, 'the pod created later got its annotations', allocated(cluster, 'web.v2'));
    expect(faulty.refused).toEqual({ patch: 2 });
    expect(failures).toEqual([
      ['Pod', 'default/early', 'Conflict'],
      ['Pod', 'default/web.v2', 'Conflict'],
    ]);
    const ports = (await backend.read()).switchPort;
    for (const name of ['early', 'web.v2']) {
      const a = await annotations(cluster, name);
      expect(ports.get(`${name}.default`)?.addresses).toEqual([
        `${a['ovn.kubernetes.io/mac_address']} ${a['ovn.kubernetes.io/ip_address']}`,
      ]);
    }
  });

  it('stops while the backend refuses every apply, and a start-up waiting for its commit ends', {
    timeout: 20_000,
  }, async () => {
    const inner = new SimBackend();
    let refuse = false;
    let refused = 0;
    const backend: Backend = {
      kind: 'sim',
      read: () => inner.read(),
      readRows: (keys) => inner.readRows(keys),
      watch: (listener) => inner.watch(listener),
      close: () => inner.close(),
      apply: async (p, o) => {
        if (refuse) {
          refused++;
          throw new Error('backend refuses applies');
        }
        return inner.apply(p, o);
      },
    };
    const cluster = new MemoryCluster();
    await cluster.create(node('n1'));
    // settled() would wait for a commit that never comes: wait on the refusals themselves.
    const refusals = async (n: number) => {
      for (let i = 0; i < 1_000 && refused < n; i++) await new Promise((r) => setTimeout(r, 5));
      expect(refused).toBeGreaterThanOrEqual(n);
    };
    // Running: a pod's port is never committed, its annotation write waits for that commit.
    const { c } = controller(cluster, backend);
    await c.start();
    await settled(c);
    refuse = true;
    await cluster.create(pod('a'));
    await refusals(2);
    await c.stop();
    // Starting: the start-up flush itself is refused.
    const second = controller(cluster, backend).c;
    const started = second.start();
    await refusals(4);
    await second.stop();
    await expect(started).rejects.toBeInstanceOf(CommitterClosedError);
  });

  it('keeps listing while the API server is down at start-up, starts once it answers, and a stop ends a start that waits', async () => {
    const cluster = new MemoryCluster();
    await cluster.create(node('n1'));
    await cluster.create(pod('a'));
    const faulty = new FaultyCluster(cluster);
    faulty.fail('list', { kind: 'Pod', times: 3 });
    const { c, failures } = controller(faulty, new SimBackend());
    await c.start();
    await settled(c);
    expect(faulty.refused).toEqual({ list: 3 });
    expect(failures.filter(([kind]) => kind === 'Pod')).toHaveLength(3);
    expect((await annotations(cluster, 'a'))['ovn.kubernetes.io/ip_address']).toBe('10.16.0.2');
    // Down for good: start waits for it, and stop ends that wait.
    faulty.fail('list', { kind: 'Pod', times: 1_000_000 });
    const second = controller(faulty, new SimBackend()).c;
    const started = second.start();
    for (let i = 0; i < 1_000 && (faulty.refused.list ?? 0) < 5; i++) await new Promise((r) => setTimeout(r, 5));
    await second.stop();
    await expect(started).rejects.toBeInstanceOf(InformerStoppedError);
  });

  it('waits for the informer to deliver the default subnets it created, however late', async () => {
    const cluster = new MemoryCluster();
    const faulty = new FaultyCluster(cluster);
    await cluster.create(node('n1'));
    await cluster.create(pod('a'));
    faulty.hold('Subnet');
    const { c, failures } = controller(faulty, new SimBackend());
    let started = false;
    const start = c.start().then(() => (started = true));
    // Far more turns than any fixed poll would wait: start-up must still be waiting for the event.
    for (let i = 0; i < 3_000; i++) await new Promise((r) => setImmediate(r));
    expect(started).toBe(false);
    faulty.release('Subnet');
    await start;
    await settled(c);
    expect(failures).toEqual([]);
    const events = (await cluster.list('Event')).items.map((e) => (e as { reason?: string }).reason);
    expect(events).not.toContain('AcquireAddressFailed');
    expect((await annotations(cluster, 'a'))['ovn.kubernetes.io/ip_address']).toBe('10.16.0.2');
  });
});

/**
 * The load of `kovn bench cluster`, over any cluster source (the API, or an
 * in-memory cluster in its test): kubemark's hollow nodes and the pods a
 * cluster's users would create. Nodes `hollow-node-<i>` with an InternalIP
 * and a Ready condition; pods `bench-<i>` in namespace `bench`, bound to the
 * nodes round-robin (as the scheduler would spread them; kubemark's pods go
 * through kube-scheduler, this load measures the network controller),
 * created with at most `concurrency` requests in flight. A watch on the
 * namespace sees each pod's annotations: the latency is from the create
 * being sent to the pod seen `routed` (what the CNI waits for), and, when a
 * kubelet runs, to the pod seen Running.
 */
import type { ClusterSource, KubeObject } from '../kube/cluster/types.ts';
import { ClusterError } from '../kube/cluster/types.ts';
import { annotationKey, OVN_PROVIDER } from '../kube/annotations.ts';
import type { Clock } from '../kube/runtime/clock.ts';
import { Informer } from '../kube/runtime/informer.ts';

export const BENCH_NAMESPACE = 'bench';

export interface ClusterLoadOptions {
  readonly nodes: number;
  readonly pods: number;
  /** Creates in flight at once (default 64). */
  readonly concurrency?: number;
  /** Milliseconds, for the latencies (performance.now in the bench). */
  readonly now: () => number;
  /** The informer's retries. */
  readonly clock: Clock;
  /** Give up waiting after this long without a new pod routed (default 60 s). */
  readonly stallMs?: number;
  /** Pod names `<prefix>-<i>` (default `bench`). */
  readonly prefix?: string;
}

export interface ClusterLoadResult {
  /** From the first create sent to the last pod routed (or the wait given up). */
  readonly ms: number;
  /** Creation → routed, per pod routed. */
  readonly routedMs: readonly number[];
  /** Creation → Running, per pod seen running. */
  readonly runningMs: readonly number[];
  /** Pods created but not routed when the wait ended. */
  readonly missing: number;
  /** From the first create sent to the last one answered. */
  readonly createMs: number;
}

export const hollowNodeName = (i: number): string => `hollow-node-${i}`;

/** A hollow node's address: 172.16.0.0/12, one per node. */
const nodeIP = (i: number): string => `172.${16 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;

/**
 * The hollow nodes, created (an existing one kept) with their address and Ready condition.
 *
 * @example await createHollowNodes(source, 200);
 */
export async function createHollowNodes(source: ClusterSource, nodes: number): Promise<void> {
  await ignoreExisting(source.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: BENCH_NAMESPACE } }));
  await inParallel(nodes, 16, async (i) => {
    const name = hollowNodeName(i);
    await ignoreExisting(
      source.create({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', kubemark: 'true' } },
      }),
    );
    // A create's status is not kept by an API server: the node's kubelet reports it.
    const status = {
      addresses: [
        { type: 'InternalIP', address: nodeIP(i + 1) },
        { type: 'Hostname', address: name },
      ],
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
    };
    await source.patch({ kind: 'Node', name }, { status }, { subresource: 'status' });
  });
}

/**
 * Creates the pods and waits until each is routed (or no progress for `stallMs`).
 *
 * @example const r = await runClusterLoad(source, { nodes: 200, pods: 10_000, now: () => performance.now(), clock: realClock });
 */
export async function runClusterLoad(source: ClusterSource, o: ClusterLoadOptions): Promise<ClusterLoadResult> {
  const sent = new Map<string, number>();
  const routedMs: number[] = [];
  const runningMs: number[] = [];
  const routed = new Set<string>();
  const running = new Set<string>();
  let progress = o.now();
  let wake: () => void = () => {};
  const routedKey = annotationKey(OVN_PROVIDER, 'routed');
  const seen = (p: KubeObject): void => {
    const name = p.metadata.name;
    const t0 = sent.get(name);
    if (t0 === undefined) return;
    if (!routed.has(name) && p.metadata.annotations?.[routedKey] === 'true') {
      routed.add(name);
      routedMs.push(o.now() - t0);
      progress = o.now();
      wake();
    }
    if (!running.has(name) && (p.status as { phase?: string } | undefined)?.phase === 'Running') {
      running.add(name);
      runningMs.push(o.now() - t0);
    }
  };
  const pods = new Informer(source, 'Pod', { clock: o.clock, namespace: BENCH_NAMESPACE });
  pods.addHandlers({ onAdd: seen, onUpdate: (_, p) => seen(p) });
  await pods.start();
  const start = o.now();
  let createMs = 0;
  try {
    await inParallel(o.pods, o.concurrency ?? 64, async (i) => {
      const name = `${o.prefix ?? 'bench'}-${i}`;
      sent.set(name, o.now());
      await source.create(benchPod(name, hollowNodeName(i % o.nodes)));
    });
    createMs = o.now() - start;
    const stall = o.stallMs ?? 60_000;
    while (routed.size < o.pods && o.now() - progress < stall) {
      await new Promise<void>((resolve) => {
        const timer = o.clock.setTimeout(resolve, 250);
        wake = () => {
          o.clock.clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    pods.stop();
  }
  return { ms: o.now() - start, routedMs, runningMs, missing: o.pods - routed.size, createMs };
}

function benchPod(name: string, node: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: BENCH_NAMESPACE, labels: { app: 'bench' } },
    spec: { nodeName: node, containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.9' }] },
  };
}

async function ignoreExisting(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof ClusterError && err.reason === 'AlreadyExists')) throw err;
  }
}

/** `f(0) … f(n-1)` with at most `width` running at once; the first failure rejects. */
async function inParallel(n: number, width: number, f: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await f(next++);
  };
  await Promise.all(Array.from({ length: Math.min(n, Math.max(1, width)) }, worker));
}

/**
 * A simulated kubelet (kubemark's hollow kubelet, in small): for the nodes
 * it is given, it reports pods running once their network is there. A real
 * kubelet's CNI ADD returns once Kube-OVN's controller has annotated the pod
 * `routed` (the port is in NB); the kubelet then starts the containers and
 * writes the pod's status: phase Running, podIP/podIPs from the addresses
 * the CNI returned (the pod's `ip_address` annotation), hostIP (the node's
 * InternalIP), and the Ready conditions. This kubelet does exactly those
 * writes, through any ClusterSource, so `kubectl get pods -o wide` on
 * `kovn sim serve` shows the addresses IPAM gave, and a benchmark measures
 * the controller through the same writes a cluster would see.
 *
 * Choices:
 * - Pods on the host network are reported running at once with the node's
 *   address (Kube-OVN does not annotate them; the CNI is not called).
 * - Only pods in phase Pending (or none) or Running are touched: a pod that
 *   finished stays as it is. Pods being deleted are left alone (the cluster
 *   deletes them; there is no grace period here).
 * - Nothing is written before the pod is routed, and nothing when the status
 *   already says what it would write: one status write per pod in the
 *   ordinary case (a real kubelet writes more; this one writes what is read).
 * - Containers are "running" from the moment the pod is: every container of
 *   the spec is reported ready, with no restarts.
 */
import { decodePodNetwork } from '../annotations.ts';
import type { Clock } from '../runtime/clock.ts';
import { Informer } from '../runtime/informer.ts';
import { WorkQueue } from '../runtime/queue.ts';
import { apiTime } from './time.ts';
import { ClusterError, type ClusterSource, type KubeObject, keyOf } from './types.ts';

export { apiTime } from './time.ts';

/** The part of a pod's status the kubelet writes (a JSON merge patch of `status`). */
export interface KubeletPodStatus {
  readonly phase: 'Running';
  readonly podIP?: string;
  readonly podIPs?: readonly { readonly ip: string }[];
  readonly hostIP?: string;
  readonly startTime: string;
  readonly conditions: readonly PodCondition[];
  readonly containerStatuses: readonly ContainerStatus[];
}

export interface PodCondition {
  readonly type: 'Initialized' | 'Ready' | 'ContainersReady' | 'PodScheduled';
  readonly status: 'True';
  readonly lastProbeTime: null;
  readonly lastTransitionTime: string;
}

export interface ContainerStatus {
  readonly name: string;
  readonly image: string;
  readonly imageID: string;
  readonly containerID: string;
  readonly ready: true;
  readonly started: true;
  readonly restartCount: 0;
  readonly state: { readonly running: { readonly startedAt: string } };
}

const CONDITIONS: readonly PodCondition['type'][] = ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

type Rec = Readonly<Record<string, unknown>>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const arr = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * A node's first InternalIP (`status.addresses`), what a kubelet reports as its pods' hostIP.
 *
 * @example nodeInternalIP({ ..., status: { addresses: [{ type: 'InternalIP', address: '172.18.0.2' }] } }) // '172.18.0.2'
 */
export function nodeInternalIP(node: KubeObject | undefined): string | undefined {
  for (const a of arr(rec(node?.status)['addresses'])) {
    const r = rec(a);
    if (r['type'] === 'InternalIP' && str(r['address']) !== undefined) return r['address'] as string;
  }
  return undefined;
}

/**
 * The pod's addresses once it may run: a host-network pod's are its node's;
 * another's are the `ip_address` annotation once the controller says
 * `routed`. Undefined while the pod must wait.
 */
function runnableIPs(pod: KubeObject, hostIP: string | undefined): readonly string[] | undefined {
  if (rec(pod.spec)['hostNetwork'] === true) return hostIP === undefined ? undefined : [hostIP];
  const net = decodePodNetwork(pod.metadata.annotations ?? {});
  return net.ok && net.value.routed ? net.value.ips : undefined;
}

/**
 * The status the kubelet would write for `pod` on `node`, or undefined when
 * there is nothing to write: the pod is not bound, is being deleted, has
 * finished, waits for its network, or already has this status.
 * Transition times already recorded are kept (a condition that stays true
 * keeps its time, as the kubelet's status manager does).
 *
 * @example
 * const s = kubeletStatus(pod, node, '2026-01-01T00:00:00Z');
 * if (s) await cluster.patch(refOf(pod), { status: s }, { subresource: 'status' });
 */
export function kubeletStatus(
  pod: KubeObject,
  node: KubeObject | undefined,
  now: string,
): KubeletPodStatus | undefined {
  if (str(rec(pod.spec)['nodeName']) === undefined || pod.metadata.deletionTimestamp !== undefined) return undefined;
  const current = rec(pod.status);
  const phase = current['phase'];
  if (phase !== undefined && phase !== 'Pending' && phase !== 'Running') return undefined;
  const hostIP = nodeInternalIP(node);
  const ips = runnableIPs(pod, hostIP);
  if (ips === undefined) return undefined;
  const started = str(current['startTime']) ?? now;
  const since = (type: string): string => {
    const c = arr(current['conditions'])
      .map(rec)
      .find((x) => x['type'] === type);
    return c?.['status'] === 'True' ? (str(c['lastTransitionTime']) ?? now) : now;
  };
  const status: KubeletPodStatus = {
    phase: 'Running',
    ...(ips[0] !== undefined ? { podIP: ips[0], podIPs: ips.map((ip) => ({ ip })) } : {}),
    ...(hostIP !== undefined ? { hostIP } : {}),
    startTime: started,
    conditions: CONDITIONS.map((type) => ({
      type,
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: since(type),
    })),
    containerStatuses: containerStatuses(pod, current, started),
  };
  return sameStatus(current, status) ? undefined : status;
}

function containerStatuses(pod: KubeObject, current: Rec, started: string): ContainerStatus[] {
  const before = new Map(arr(current['containerStatuses']).map((c) => [rec(c)['name'], rec(c)]));
  return arr(rec(pod.spec)['containers']).flatMap((c) => {
    const name = str(rec(c)['name']);
    if (name === undefined) return [];
    const was = rec(rec(before.get(name)?.['state'])['running']);
    return [
      {
        name,
        image: str(rec(c)['image']) ?? '',
        imageID: '',
        containerID: `sim://${pod.metadata.uid ?? pod.metadata.name}/${name}`,
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: str(was['startedAt']) ?? started } },
      },
    ];
  });
}

/**
 * Whether the status already says what `next` would: compared by meaning, not
 * as JSON, since an API server may drop a null or round a time, and a
 * kubelet that compared bytes would write for ever.
 */
function sameStatus(current: Rec, next: KubeletPodStatus): boolean {
  const ips = (s: Rec) => JSON.stringify(arr(s['podIPs']).map((x) => rec(x)['ip']));
  const trueConditions = new Set(
    arr(current['conditions'])
      .map(rec)
      .filter((c) => c['status'] === 'True')
      .map((c) => c['type']),
  );
  const ready = (s: Rec | KubeletPodStatus) =>
    JSON.stringify(
      arr((s as Rec)['containerStatuses'])
        .map(rec)
        .filter((c) => c['ready'] === true && rec(c['state'])['running'] !== undefined)
        .map((c) => c['name']),
    );
  return (
    current['phase'] === next.phase &&
    current['podIP'] === next.podIP &&
    current['hostIP'] === next.hostIP &&
    ips(current) === ips(next as unknown as Rec) &&
    CONDITIONS.every((t) => trueConditions.has(t)) &&
    ready(current) === ready(next)
  );
}

export interface SimKubeletOptions {
  /** Timestamps and the informers' and queue's retries. */
  readonly clock: Clock;
  /** The nodes this kubelet runs (default: every node). */
  readonly nodes?: readonly string[];
  /** Status writes in flight at once (default 8). */
  readonly workers?: number;
  /** Failed lists, watches and writes (each is retried). */
  readonly onError?: (err: unknown) => void;
}

export interface SimKubeletStats {
  /** Pod status writes sent and accepted. */
  readonly writes: number;
  /** Node status writes (Ready reported) sent and accepted. */
  readonly nodeWrites: number;
  /** Writes that failed (and were retried). */
  readonly failures: number;
}

/**
 * @example
 * const kubelet = new SimKubelet(cluster, { clock: realClock, nodes: ['node-1', 'node-2'] });
 * await kubelet.start(); // pods on node-1 and node-2 become Running once routed
 * kubelet.stop();
 */
export class SimKubelet {
  readonly #source: ClusterSource;
  readonly #pods: Informer;
  readonly #nodes: Informer;
  readonly #queue: WorkQueue<string>;
  readonly #mine: ((node: string) => boolean) | undefined;
  readonly #clock: Clock;
  readonly #workers: number;
  readonly #stats = { writes: 0, nodeWrites: 0, failures: 0 };

  constructor(source: ClusterSource, opts: SimKubeletOptions) {
    this.#source = source;
    this.#clock = opts.clock;
    this.#workers = Math.max(1, opts.workers ?? 8);
    const only = opts.nodes === undefined ? undefined : new Set(opts.nodes);
    this.#mine = only === undefined ? undefined : (n) => only.has(n);
    const onError = opts.onError;
    const informerOpts = { clock: opts.clock, ...(onError !== undefined ? { onError } : {}) };
    this.#pods = new Informer(source, 'Pod', informerOpts);
    this.#nodes = new Informer(source, 'Node', informerOpts);
    this.#pods.addIndexers({ node: (p) => [str(rec(p.spec)['nodeName']) ?? ''] });
    this.#queue = new WorkQueue<string>({
      clock: opts.clock,
      onError: (_key, err) => {
        this.#stats.failures++;
        onError?.(err);
      },
    });
    const pod = (p: KubeObject): void => {
      if (this.#runs(p)) this.#queue.add(keyOf(p));
    };
    this.#pods.addHandlers({ onAdd: pod, onUpdate: (_, p) => pod(p) });
    // A node's address is its pods' hostIP: a node that gets one (or a new one) rewrites them.
    const node = (n: KubeObject): void => {
      if (this.#mine === undefined || this.#mine(n.metadata.name)) this.#queue.add(`${NODE_KEY}${n.metadata.name}`);
      for (const p of this.#pods.byIndex('node', n.metadata.name)) pod(p);
    };
    this.#nodes.addHandlers({ onAdd: node, onUpdate: (_, n) => node(n) });
  }

  /** Resolves once both caches are filled; pods are then written as they become runnable. */
  async start(): Promise<void> {
    await Promise.all([this.#nodes.start(), this.#pods.start()]);
    this.#queue.run((key) => this.#sync(key), this.#workers);
  }

  /** Stops watching; writes in flight finish. */
  stop(): Promise<void> {
    this.#pods.stop();
    this.#nodes.stop();
    return this.#queue.shutdown();
  }

  /** Resolves when no pod waits to be written (the writes seen so far are done). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  stats(): SimKubeletStats {
    return { ...this.#stats };
  }

  #runs(pod: KubeObject): boolean {
    const node = str(rec(pod.spec)['nodeName']);
    return node !== undefined && (this.#mine === undefined || this.#mine(node));
  }

  async #sync(key: string): Promise<void> {
    if (key.startsWith(NODE_KEY)) return this.#syncNode(key.slice(NODE_KEY.length));
    const pod = this.#pods.get(key);
    if (pod === undefined || !this.#runs(pod)) return;
    const node = this.#nodes.get(str(rec(pod.spec)['nodeName']) ?? '');
    const status = kubeletStatus(pod, node, apiTime(this.#clock.now()));
    if (status === undefined) return;
    try {
      await this.#source.patch(
        { kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace ?? 'default' },
        { status },
        { subresource: 'status' },
      );
      this.#stats.writes++;
    } catch (err) {
      // Deleted meanwhile: nothing to report (a pod made again under the name comes as a new event).
      if (err instanceof ClusterError && err.reason === 'NotFound') return;
      throw err;
    }
  }

  /** A node of this kubelet reports Ready, as a kubelet's first status post does (its other conditions kept). */
  async #syncNode(name: string): Promise<void> {
    const node = this.#nodes.get(name);
    if (node === undefined) return;
    const conditions = nodeReadyConditions(node, apiTime(this.#clock.now()));
    if (conditions === undefined) return;
    try {
      await this.#source.patch({ kind: 'Node', name }, { status: { conditions } }, { subresource: 'status' });
      this.#stats.nodeWrites++;
    } catch (err) {
      if (err instanceof ClusterError && err.reason === 'NotFound') return;
      throw err;
    }
  }
}

/** Queue keys of nodes (pod keys are `ns/name`, and a node's name has no colon). */
const NODE_KEY = 'node:';

/**
 * A node's conditions with Ready set True, or undefined when it already is
 * (a merge patch replaces the list, so the others are carried over).
 *
 * @example nodeReadyConditions(node, '2026-01-01T00:00:00Z')?.at(-1)?.reason // 'KubeletReady'
 */
export function nodeReadyConditions(node: KubeObject, now: string): Record<string, unknown>[] | undefined {
  const current = rec(node.status)['conditions'];
  const list = Array.isArray(current) ? current.map((c) => rec(c)) : [];
  if (list.some((c) => c['type'] === 'Ready' && c['status'] === 'True')) return undefined;
  return [
    ...list.filter((c) => c['type'] !== 'Ready'),
    {
      type: 'Ready',
      status: 'True',
      reason: 'KubeletReady',
      message: 'kubelet is posting ready status',
      lastHeartbeatTime: now,
      lastTransitionTime: now,
    },
  ];
}

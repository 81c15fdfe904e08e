/**
 * `kovn bench controller`: the controller kubemark-style on one machine. An
 * in-memory cluster of N nodes gets P pods as fast as it takes them (a
 * storm), in namespaces of 100 pods, each namespace with two
 * NetworkPolicies (one selecting by label, one admitting the namespaces of
 * its team) and two Services with endpoints; a team is ten namespaces, so a
 * policy's peers stay 1,000 pods however large the cluster grows (a selector
 * matching a fixed share of all namespaces would make every policy's
 * address set grow with the cluster: 1,500 sets of 15,000 addresses at 150k
 * pods, a cluster nobody runs); then 10 % of the pods are deleted and as
 * many created (churn); then the controller is stopped and a new one
 * started on the same cluster and backend (restart); then one more pod.
 *
 * Reported, never asserted: `pods_per_s` (storm pods / time until the last
 * one is ready), `ready_p50_ms` / `ready_p99_ms` (created → its port
 * committed and `routed` written), `nb_transactions` (storm and churn),
 * `restart_converge_ms`, `restart_nb_writes` (operations the restart wrote;
 * 0 when nothing changed), `rss_mb` (peak seen), `single_pod_ms` (one more
 * pod, created → ready, the median of five one after another: in a heap of
 * gigabytes one pod can meet a major collection, which is the heap's cost,
 * not the pod's); `controller_heap_mb`, the heap the controller itself
 * retains (measured by stopping it: `rss_mb` is the whole process, with
 * the in-memory API server and the simulated NB in it).
 *
 * With `drift`: after the extra pods, another writer drifts that many rows
 * of ours and adds 10 of its own (bench/drift.ts): `drift_repaired`,
 * `drift_repair_p50_ms`, `drift_repair_p99_ms`, `foreign_touched`.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Backend } from '../backends/backend.ts';
import { SimBackend } from '../backends/sim/index.ts';
import { type DriftMetrics, DriftProbe, type ForeignWriter, runDrift, simForeignWriter, splitmix } from './drift.ts';
import { seededRandomBytes } from '../model/ipam/index.ts';
import { MemoryCluster } from '../kube/cluster/memory.ts';
import type { KubeObject, WatchEvent } from '../kube/cluster/types.ts';
import { type ControllerSettings, DEFAULT_SETTINGS } from '../controller/config.ts';
import { Controller } from '../controller/controller.ts';
import { settled } from '../controller/settle.ts';
import { realClock } from '../kube/runtime/clock.ts';
import { annotationKey, OVN_PROVIDER } from '../kube/annotations.ts';

const ROUTED = annotationKey(OVN_PROVIDER, 'routed');

export interface ControllerBenchParams {
  readonly nodes?: number;
  readonly pods?: number;
  readonly backend?: 'sim' | 'ovn';
  /** Rows of ours another writer drifts once the cluster settled (default 0: no drift phase). */
  readonly drift?: number;
  readonly onProgress?: (what: string) => void;
}

export interface ControllerBenchReport {
  name: 'controller';
  params: { nodes: number; pods: number; backend: 'sim' | 'ovn'; drift?: number };
  metrics: Partial<DriftMetrics> & {
    pods_per_s: number;
    ready_p50_ms: number;
    ready_p99_ms: number;
    nb_transactions: number;
    restart_converge_ms: number;
    restart_nb_writes: number;
    rss_mb: number;
    single_pod_ms: number;
    churn_ms: number;
    /** Heap the controller itself retains after the run (rss_mb is the whole process: API server and NB too). */
    controller_heap_mb: number;
  };
}

const PODS_PER_NS = 100;

function pod(name: string, ns: string, node: string, app: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels: { app } },
    spec: { nodeName: node, containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }] }] },
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** Heap in use after a full collection (V8's gc, reached without a command-line flag). */
function settledHeap(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Watches pods and reports when each becomes ready (`routed` written). */
class ReadyWatch {
  readonly readyAt = new Map<string, number>();
  private readonly waiters = new Map<string, (() => void)[]>();
  constructor(cluster: MemoryCluster, rv: string) {
    cluster.watch('Pod', rv, (e: WatchEvent) => this.seen(e));
  }
  private seen(e: WatchEvent): void {
    if (e.type === 'DELETED') return;
    const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
    if (this.readyAt.has(key) || e.object.metadata.annotations?.[ROUTED] !== 'true') return;
    this.readyAt.set(key, performance.now());
    for (const w of this.waiters.get(key) ?? []) w();
    this.waiters.delete(key);
  }
  until(key: string): Promise<void> {
    if (this.readyAt.has(key)) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.waiters.get(key);
      if (list) list.push(resolve);
      else this.waiters.set(key, [resolve]);
    });
  }
}

interface Run {
  readonly cluster: MemoryCluster;
  /** The backend the controllers use (through the drift probe). */
  readonly backend: Backend;
  readonly probe: DriftProbe;
  readonly settings: ControllerSettings;
  readonly nodes: number;
  readonly pods: number;
  readonly progress: (what: string) => void;
  readonly sample: () => void;
}

export async function runControllerBench(p: ControllerBenchParams = {}): Promise<ControllerBenchReport> {
  const nodes = p.nodes ?? 200;
  const pods = p.pods ?? 10_000;
  const backendKind = p.backend ?? 'sim';
  let peakRss = process.memoryUsage().rss;
  const sample = () => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  };
  const rssTimer = setInterval(sample, 200);
  const opened = await openBackend(backendKind);
  try {
    const cluster = new MemoryCluster({ now: () => Date.now(), historyLimit: 50_000 });
    const run: Run = {
      cluster,
      probe: new DriftProbe(
        opened.backend,
        (t, k) => current?.store.row(t, k),
        () => performance.now(),
      ),
      backend: undefined as unknown as Backend,
      settings: { ...DEFAULT_SETTINGS, defaultCIDR: '10.128.0.0/9' },
      nodes,
      pods,
      progress: p.onProgress ?? (() => {}),
      sample,
    };
    (run as { backend: Backend }).backend = run.probe.backend;
    let current: Controller | undefined;
    const phases = await runPhases(run, (c) => (current = c));
    const drift = p.drift ? await driftPhase(run, current as Controller, p.drift, opened.writer) : undefined;
    const controllerHeap = await heapOf(async () => {
      await (current as Controller).stop();
      current = undefined;
    });
    return {
      name: 'controller',
      params: { nodes, pods, backend: backendKind, ...(p.drift ? { drift: p.drift } : {}) },
      metrics: {
        ...phases,
        rss_mb: round(peakRss / 2 ** 20),
        controller_heap_mb: round(controllerHeap / 2 ** 20),
        ...drift,
      },
    };
  } finally {
    clearInterval(rssTimer);
    await opened.cleanup();
  }
}

/** The backend of the run, how to close it, and its foreign writer (for the drift phase). */
async function openBackend(kind: 'sim' | 'ovn'): Promise<{
  backend: Backend;
  cleanup: () => Promise<void>;
  writer: () => Promise<ForeignWriter>;
}> {
  if (kind === 'sim') {
    const sim = new SimBackend();
    return { backend: sim, cleanup: async () => {}, writer: async () => simForeignWriter(sim) };
  }
  const { startControlPlane } = await import('../backends/ovn/control-plane/index.ts');
  const { OvnBackend } = await import('../backends/ovn/nb/backend.ts');
  const { ovnForeignWriter } = await import('./drift-ovn.ts');
  const cp = await startControlPlane({ northd: false });
  const be = await OvnBackend.connect({ remotes: cp.nb.remote });
  return {
    backend: be,
    cleanup: async () => {
      await be.close();
      await cp.stop();
    },
    writer: () => ovnForeignWriter(be, cp.nb.remote),
  };
}

/** Storm, churn, restart, one more pod: the figures every run reports. */
async function runPhases(run: Run, setCurrent: (c: Controller) => void) {
  const { cluster, nodes, pods } = run;
  const nsCount = Math.max(1, Math.ceil(pods / PODS_PER_NS));
  for (let n = 0; n < nodes; n++)
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: `node-${n}` } });
  for (let i = 0; i < nsCount; i++) await createNamespace(cluster, i);
  let controller = newController(run, 1);
  setCurrent(controller);
  run.progress(`controller start: ${nodes} nodes, ${nsCount} namespaces`);
  await controller.start();
  await settled(controller);
  const tx0 = controller.committer.stats.transactions;
  const watch = new ReadyWatch(cluster, (await cluster.list('Namespace')).resourceVersion);
  const storm = await runStorm(run, controller, watch);
  const churnMs = await runChurn(run, controller, watch);
  const nbTransactions = controller.committer.stats.transactions - tx0;
  run.progress('restart');
  await controller.stop();
  const tr = performance.now();
  controller = newController(run, 2);
  setCurrent(controller);
  await controller.start();
  await settled(controller);
  const restartMs = performance.now() - tr;
  // Everything the new controller wrote: its start-up flush and any commit after it.
  const restartWrites = controller.committer.stats.operations;
  run.sample();
  const singleMs = await singlePods(run, controller, watch);
  return {
    pods_per_s: round(pods / (storm.ms / 1000)),
    ready_p50_ms: round(percentile(storm.latencies, 50)),
    ready_p99_ms: round(percentile(storm.latencies, 99)),
    nb_transactions: nbTransactions,
    restart_converge_ms: round(restartMs),
    restart_nb_writes: restartWrites,
    single_pod_ms: round(singleMs, 2),
    churn_ms: round(churnMs),
  };
}

function newController(run: Run, seed: number): Controller {
  const { cluster, backend, settings } = run;
  return new Controller({ cluster, backend, clock: realClock, random: seededRandomBytes(seed), settings });
}

/** A namespace of the bench: two NetworkPolicies and two Services, in a team of ten namespaces. */
async function createNamespace(cluster: MemoryCluster, i: number): Promise<void> {
  const ns = `ns-${i}`;
  const team = `t${Math.floor(i / 10)}`;
  await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { team } } });
  await cluster.create({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'db', namespace: ns },
    spec: {
      podSelector: { matchLabels: { app: 'db' } },
      ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 'http' }] }],
    },
  });
  await cluster.create({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'team', namespace: ns },
    spec: {
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { team } } }] }],
    },
  });
  for (const app of ['web', 'db'])
    await cluster.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: app, namespace: ns },
      spec: {
        clusterIP: `10.96.${Math.floor((2 * i) / 250)}.${((2 * i) % 250) + (app === 'web' ? 1 : 2)}`,
        selector: { app },
        ports: [{ port: 80, targetPort: 'http' }],
      },
    });
}

const APPS = ['web', 'db', 'api', 'cache'];

/** P pods as fast as the cluster takes them; the time until the last is ready, and each one's latency. */
async function runStorm(run: Run, controller: Controller, watch: ReadyWatch) {
  const { cluster, nodes, pods } = run;
  const created = new Map<string, number>();
  run.progress(`storm: ${pods} pods`);
  const t0 = performance.now();
  for (let i = 0; i < pods; i++) {
    const ns = `ns-${Math.floor(i / PODS_PER_NS)}`;
    const name = `p-${i}`;
    created.set(`${ns}/${name}`, performance.now());
    await cluster.create(pod(name, ns, `node-${i % nodes}`, APPS[i % APPS.length]!));
    if (i % 1000 === 999) await new Promise((r) => setImmediate(r));
  }
  await Promise.all([...created.keys()].map((k) => watch.until(k)));
  const ms = performance.now() - t0;
  await settled(controller);
  const latencies = [...created].map(([k, at]) => watch.readyAt.get(k)! - at).sort((a, b) => a - b);
  run.sample();
  return { ms, latencies };
}

/** 10 % of the pods deleted and as many created; the time until all are ready and the controller idle. */
async function runChurn(run: Run, controller: Controller, watch: ReadyWatch): Promise<number> {
  const { cluster, nodes, pods } = run;
  run.progress(`churn: ${Math.floor(pods / 10)} pods deleted and created`);
  const tc = performance.now();
  const churn = Math.floor(pods / 10);
  const fresh: string[] = [];
  for (let i = 0; i < churn; i++) {
    const victim = i * 10;
    const ns = `ns-${Math.floor(victim / PODS_PER_NS)}`;
    await cluster.delete({ kind: 'Pod', namespace: ns, name: `p-${victim}` });
    const name = `q-${i}`;
    fresh.push(`${ns}/${name}`);
    await cluster.create(pod(name, ns, `node-${i % nodes}`, APPS[i % APPS.length]!));
  }
  await Promise.all(fresh.map((k) => watch.until(k)));
  await settled(controller);
  run.sample();
  return performance.now() - tc;
}

/** One more pod, created → ready, five times one after another: the median. */
async function singlePods(run: Run, controller: Controller, watch: ReadyWatch): Promise<number> {
  run.progress('one more pod, five times');
  const singles: number[] = [];
  for (let k = 0; k < 5; k++) {
    const ts = performance.now();
    await run.cluster.create(pod(`single-${k}`, 'ns-0', 'node-0', 'web'));
    await watch.until(`ns-0/single-${k}`);
    singles.push(performance.now() - ts);
    await settled(controller);
  }
  return percentile(
    singles.sort((a, b) => a - b),
    50,
  );
}

/** Rows of ours drifted by another writer while the controller runs, and their repair. */
async function driftPhase(
  run: Run,
  controller: Controller,
  rows: number,
  writer: () => Promise<ForeignWriter>,
): Promise<DriftMetrics> {
  run.progress(`drift: ${rows} rows of ours changed or deleted by another writer, 10 rows of its own`);
  const w = await writer();
  try {
    return await runDrift({
      probe: run.probe,
      writer: w,
      topology: await run.backend.read(),
      rows,
      random: splitmix(18),
      timeoutMs: 60_000,
      idle: () => settled(controller),
    });
  } finally {
    await w.close();
  }
}

/**
 * The controller's own heap: everything retained with it, less everything retained once it is stopped and gone
 * (the in-memory API server and the simulated NB stay; a real controller's process holds neither).
 */
async function heapOf(stopAndDrop: () => Promise<void>): Promise<number> {
  const heapWith = settledHeap();
  await stopAndDrop();
  return Math.max(0, heapWith - settledHeap());
}

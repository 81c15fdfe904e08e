/**
 * `kovn bench cluster`: kubemark's set-up with kovn's pieces, each in its
 * own process as in a cluster. `kovn sim serve --no-controller
 * --no-kubelet` is the API server (the in-memory cluster behind HTTPS);
 * `kovn controller --kubeconfig` is the network controller, talking to it
 * through the API source; this process is the cluster's users and its
 * hollow kubelets (the simulated kubelet over the API source, for every
 * hollow node), and creates the nodes and pods (./cluster-load.ts).
 *
 * Figures: pods_per_s (pods over the time from the first create to the last
 * pod routed), ready_p50/p99_ms (a pod's create to its `routed` annotation
 * seen through a watch), running_p99_ms (to Running, the kubelet's write),
 * the controller process's RSS (now and its peak, /proc), API requests and
 * watch events per pod as the API server counted them (`/kovn/stats`: every
 * client's), and the controller's own requests per pod (the server's count
 * less this process's). Before the timed run one pod is created and waited
 * for, so the figures do not include the controller's start.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectApiSource } from '../kube/cluster/api/connect.ts';
import type { ApiClusterSource } from '../kube/cluster/api/source.ts';
import { SimKubelet } from '../kube/cluster/kubelet.ts';
import type { Clock } from '../kube/runtime/clock.ts';
import { REPO_ROOT } from '../node/bundle/index.ts';
import { percentile } from './cni.ts';
import {
  BENCH_NAMESPACE,
  type ClusterLoadResult,
  createHollowNodes,
  hollowNodeName,
  runClusterLoad,
} from './cluster-load.ts';

export interface ClusterBenchParams {
  readonly nodes: number;
  readonly pods: number;
  /** Pod creates in flight (default 64). */
  readonly concurrency?: number;
  /** Extra arguments of `kovn controller` (after `--kubeconfig F`). */
  readonly controllerArgs?: readonly string[];
  readonly clock: Clock;
  readonly random: () => number;
  /** Progress lines (stderr). */
  readonly log?: (line: string) => void;
}

export interface ClusterBenchReport {
  name: 'cluster';
  params: { nodes: number; pods: number; concurrency: number; node: string };
  metrics: {
    pods_per_s: number;
    /** The pods' creates answered per second (the API's pace, without the controller). */
    creates_per_s: number;
    ready_p50_ms: number;
    ready_p99_ms: number;
    running_p99_ms: number;
    controller_rss_mb: number;
    controller_peak_rss_mb: number;
    api_requests_per_pod: number;
    controller_requests_per_pod: number;
    watch_events_per_pod: number;
    /** Pods not routed when the wait ended (0 for a complete run). */
    missing: number;
    /** CPU time of each process during the timed run (where the time went). */
    serve_cpu_s: number;
    controller_cpu_s: number;
    bench_cpu_s: number;
  };
}

/** The API front's counters (kube/apiserver/http ApiStats). */
interface ServedStats {
  readonly requests: number;
  readonly watchEvents: number;
}

const round = (x: number, places = 1) => Math.round(x * 10 ** places) / 10 ** places;

/**
 * @example
 * printReport(await runClusterBench({ nodes: 200, pods: 10_000, clock: realClock, random: Math.random }), true);
 */
export async function runClusterBench(p: ClusterBenchParams): Promise<ClusterBenchReport> {
  const log = p.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'kovn-bench-cluster-'));
  const run: Run = { children: [], sources: [] };
  try {
    const { serve, controller, kubeconfig } = await startProcesses(p, dir, run, log);
    const connect = async () => {
      const s = await connectApiSource({ kubeconfig, clock: p.clock, random: p.random, maxSockets: 64 });
      run.sources.push(s);
      return s;
    };
    const load = await connect();
    run.kubelet = new SimKubelet(await connect(), {
      clock: p.clock,
      nodes: Array.from({ length: p.nodes }, (_, i) => hollowNodeName(i)),
      workers: 32,
    });
    await run.kubelet.start();
    await createHollowNodes(load, p.nodes);
    log(`${p.nodes} hollow nodes; waiting for the controller`);
    // A process that ends before the run does ends the bench, with its last words.
    const alive = <T>(work: Promise<T>): Promise<T> => Promise.race([work, ...run.children.map((c) => c.died)]);
    const now = () => performance.now();
    const warmup = { nodes: 1, pods: 1, prefix: 'warmup', now, clock: p.clock, stallMs: 120_000 };
    const warm = await alive(runClusterLoad(load, warmup));
    if (warm.missing > 0) throw new Error(`the controller did not route a first pod in 120 s: ${controller.tail()}`);
    log(`controller ready; creating ${p.pods} pods`);
    const concurrency = p.concurrency ?? 64;
    const metrics = await measure(load, run, serve, controller, p.pods, () =>
      alive(runClusterLoad(load, { nodes: p.nodes, pods: p.pods, concurrency, now, clock: p.clock })),
    );
    return { name: 'cluster', params: { nodes: p.nodes, pods: p.pods, concurrency, node: process.version }, metrics };
  } finally {
    await run.kubelet?.stop();
    for (const s of run.sources) s.close();
    for (const c of run.children.reverse()) await c.stop(p.clock);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the bench started, for the clean-up. */
interface Run {
  readonly children: Child[];
  readonly sources: ApiClusterSource[];
  kubelet?: SimKubelet;
}

/** The bench's pod network (a /9, as `bench controller` uses); `--controller-arg` may override it. */
export const BENCH_DEFAULT_CIDR = '10.128.0.0/9';

/** `sim serve` (until its kubeconfig is written), then `kovn controller` against it. */
async function startProcesses(
  p: ClusterBenchParams,
  dir: string,
  run: Run,
  log: (line: string) => void,
): Promise<{ serve: Child; controller: Child; kubeconfig: string }> {
  const manifest = join(dir, 'bench.yaml');
  writeFileSync(manifest, `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${BENCH_NAMESPACE}\n`);
  const kubeconfig = join(dir, 'kubeconfig.yaml');
  const serve = startChild('serve', [
    ...['sim', 'serve', manifest, '--port', '0', '--kubeconfig-out', kubeconfig],
    ...['--no-controller', '--no-kubelet'],
  ]);
  run.children.push(serve);
  await waitFor(p.clock, 60_000, () => existsSync(kubeconfig), serve, 'the kubeconfig of sim serve');
  log(`serve up (pid ${serve.child.pid})`);
  const controller = startChild('controller', [
    ...['controller', '--kubeconfig', kubeconfig, '--metrics-addr', '127.0.0.1:0'],
    // Room for 150k pods, as `bench controller` gives them: Kube-OVN's default /16 holds 65,533.
    ...['--default-cidr', BENCH_DEFAULT_CIDR],
    ...(p.controllerArgs ?? []),
  ]);
  run.children.push(controller);
  return { serve, controller, kubeconfig };
}

/** The timed run and its figures: the server's counters, the processes' CPU and the controller's memory. */
async function measure(
  load: ApiClusterSource,
  run: Run,
  serve: Child,
  controller: Child,
  pods: number,
  timed: () => Promise<ClusterLoadResult>,
): Promise<ClusterBenchReport['metrics']> {
  const before = await served(load);
  const ours = clientRequests(run.sources);
  const cpu0 = [cpuSeconds(serve.child.pid), cpuSeconds(controller.child.pid), process.cpuUsage()] as const;
  const r = await timed();
  const after = await served(load);
  const here = process.cpuUsage(cpu0[2]);
  const rss = processMemory(controller.child.pid);
  const requests = after.requests - before.requests;
  const controllerRequests = requests - (clientRequests(run.sources) - ours);
  return {
    pods_per_s: round((pods - r.missing) / (r.ms / 1000)),
    creates_per_s: round(pods / (r.createMs / 1000)),
    ready_p50_ms: round(percentile(r.routedMs, 50)),
    ready_p99_ms: round(percentile(r.routedMs, 99)),
    running_p99_ms: round(percentile(r.runningMs, 99)),
    controller_rss_mb: round(rss.rssMb),
    controller_peak_rss_mb: round(rss.peakMb),
    api_requests_per_pod: round(requests / pods, 2),
    controller_requests_per_pod: round(controllerRequests / pods, 2),
    watch_events_per_pod: round((after.watchEvents - before.watchEvents) / pods, 2),
    missing: r.missing,
    serve_cpu_s: round(cpuSeconds(serve.child.pid) - cpu0[0], 2),
    controller_cpu_s: round(cpuSeconds(controller.child.pid) - cpu0[1], 2),
    bench_cpu_s: round((here.user + here.system) / 1e6, 2),
  };
}

async function served(source: ApiClusterSource): Promise<ServedStats> {
  const s = (await source.getRaw('/kovn/stats')) as Partial<ServedStats>;
  if (typeof s.requests !== 'number' || typeof s.watchEvents !== 'number')
    throw new Error(`/kovn/stats: no requests and watchEvents counts in ${JSON.stringify(s).slice(0, 200)}`);
  return { requests: s.requests, watchEvents: s.watchEvents };
}

const clientRequests = (sources: readonly ApiClusterSource[]): number =>
  sources.reduce((n, s) => n + s.stats().requests, 0);

/** VmRSS and VmHWM (the peak) of a process, from /proc. */
function processMemory(pid: number | undefined): { rssMb: number; peakMb: number } {
  const status = pid === undefined ? '' : readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/** A process's CPU time (user + system) so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  // The fields after the command (which may hold spaces) start after its closing parenthesis.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / CLOCK_TICKS;
}

/** USER_HZ, 100 on Linux. */
const CLOCK_TICKS = 100;

interface Child {
  readonly child: ChildProcess;
  /** The end of its stderr, for an error message. */
  tail(): string;
  readonly exited: Promise<number | null>;
  /** Rejects when the process ends before `stop` was asked for; never resolves. */
  readonly died: Promise<never>;
  stop(clock: Clock): Promise<void>;
}

/** `kovn <args>` as its own node process (its pid is the process measured). */
function startChild(name: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'cli/bin/kovn.js'), ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (err = (err + c).slice(-4_000)));
  let done = false;
  let stopping = false;
  const tail = () => `kovn ${name}: ${err.trim().split('\n').slice(-5).join(' | ')}`;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      done = true;
      resolve(code);
    }),
  );
  const died = exited.then((code) => {
    if (!stopping) throw new Error(`ended (exit ${code}) during the bench. ${tail()}`);
    return new Promise<never>(() => {});
  });
  died.catch(() => {});
  return {
    child,
    tail,
    exited,
    died,
    stop: async (clock) => {
      stopping = true;
      if (done) return;
      child.kill('SIGTERM');
      let timer: unknown;
      const killed = new Promise<void>((resolve) => {
        timer = clock.setTimeout(() => {
          if (!done) child.kill('SIGKILL');
          resolve();
        }, 10_000);
      });
      await Promise.race([exited, killed]);
      clock.clearTimeout(timer);
    },
  };
}

/** Polls `ready` until it holds; fails when the child ends first or time runs out. */
async function waitFor(clock: Clock, ms: number, ready: () => boolean, child: Child, what: string): Promise<void> {
  let ended = false;
  void child.exited.then(() => (ended = true));
  for (let waited = 0; !ready(); waited += 100) {
    if (ended) throw new Error(`waiting for ${what}: the process ended. ${child.tail()}`);
    if (waited >= ms) throw new Error(`waiting for ${what}: nothing after ${ms} ms. ${child.tail()}`);
    await new Promise<void>((resolve) => clock.setTimeout(resolve, 100));
  }
}

/**
 * One model-based run: an in-memory cluster with two nodes, a backend, and a
 * controller that the ops disturb. Ops are applied one after another without
 * waiting for the controller, so a crash or a fault lands while it works;
 * `settle` heals the watches and lets it (and its retries) finish before the
 * invariants are checked.
 */
import type { Backend } from '../../backends/backend.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { FaultyCluster } from '../../kube/cluster/faults.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import { type ClusterSource, formatKey, type KubeObject } from '../../kube/cluster/types.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import { Cut, CutError, cutBackend, cutCluster, RunClock, WatchFaults } from './faults.ts';
import { NODES, objectsOf, type Op } from './ops.ts';

/** Counts over every run of a test file, for its summary line. */
export const totals = {
  sequences: 0,
  events: 0,
  restarts: 0,
  crashes: 0,
  dup: 0,
  held: 0,
  dropped: 0,
  relists: 0,
  excusedRows: 0,
  excusedSequences: 0,
};

/** Retries that come due within this much virtual time after the last change are waited for. */
const SETTLE_MS = 10 * 60_000;
/** Real time a settle, a start or a stop may take before the run calls it hung. */
const HANG_MS = 20_000;

export class HungError extends Error {
  override readonly name = 'HungError';
  readonly code = 'hung';
  constructor(readonly what: string) {
    super(`${what}: no progress after ${HANG_MS / 1000} s`);
  }
}

const turn = () => new Promise<void>((r) => setImmediate(r));

export class Harness {
  readonly clock = new RunClock();
  readonly faults: WatchFaults;
  controller!: Controller;
  private cut = new Cut();
  private started: Promise<unknown> = Promise.resolve();
  private startError: unknown;
  private boots = 0;
  /** The live controller's last failures (retried by it), shown when a run hangs. */
  readonly errors: string[] = [];

  /** The API as the controller sees it: calls refused on demand (`refuse` ops), watches disturbed (`watch` ops). */
  readonly api: FaultyCluster;

  constructor(
    readonly cluster: MemoryCluster,
    readonly backend: Backend,
    private readonly seed: number,
  ) {
    this.api = new FaultyCluster(cluster);
    this.faults = new WatchFaults(this.api);
  }

  /** A cluster with the nodes every sequence starts from, and a controller starting on it. */
  static async create(backend: Backend, seed: number): Promise<Harness> {
    const clock = { now: () => 0 };
    const cluster = new MemoryCluster({ now: () => clock.now() });
    const h = new Harness(cluster, backend, seed);
    clock.now = () => h.clock.now();
    for (const name of NODES) await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
    h.boot();
    return h;
  }

  /** A new controller on the cluster and backend, started in the background (a held watch may hold its start). */
  boot(source: ClusterSource = this.faults): void {
    this.cut = new Cut();
    const c = new Controller({
      cluster: cutCluster(source, this.cut),
      backend: cutBackend(this.backend, this.cut),
      clock: this.clock,
      random: seededRandomBytes(this.seed * 31 + this.boots++),
      policyDelayMs: 0,
      onError: (kind, key, err) => {
        if (this.controller !== c || err instanceof CutError) return;
        this.errors.push(`${kind} ${key === undefined ? '(informer)' : formatKey(key)}: ${String(err)}`);
        if (this.errors.length > 20) this.errors.shift();
      },
    });
    this.controller = c;
    this.startError = undefined;
    this.started = c.start().catch((err: unknown) => {
      if (this.controller === c) this.startError = err;
    });
  }

  async apply(op: Op): Promise<void> {
    totals.events++;
    switch (op.op) {
      case 'crash':
        totals.crashes++;
        this.cut.kill();
        await this.drive(this.cut.landed(), 'the last transaction of the crashed controller');
        await this.drive(this.controller.stop(), 'stopping a crashed controller');
        await this.started;
        this.boot();
        return;
      case 'restart':
        totals.restarts++;
        await this.drive(this.controller.stop(), 'stopping the controller');
        // A stop that gave up on a batch in flight: its process exits, and what it sent lands first.
        this.cut.kill();
        await this.drive(this.cut.landed(), 'the last transaction of the stopped controller');
        await this.started;
        this.boot();
        return;
      case 'refuse':
        this.api.fail(op.verb, { kind: op.kind, times: op.times });
        return;
      case 'watch':
        this.faults.set(op.kind, op.fault);
        return;
      case 'wait':
        for (let i = 0; i < op.turns; i++) await turn();
        this.clock.advance(op.ms);
        return;
      case 'delete':
        await this.cluster
          .delete({ kind: op.kind, name: op.name, ...(op.ns ? { namespace: op.ns } : {}) })
          .catch(ignoreNotFound);
        return;
      case 'schedule':
        await this.patch('Pod', op.ns, op.name, { spec: { nodeName: op.node } });
        return;
      case 'relabel': {
        const labels = { [op.kind === 'Pod' ? 'app' : 'team']: op.value ?? null };
        await this.patch(op.kind, op.kind === 'Pod' ? op.ns : undefined, op.name ?? op.ns, { metadata: { labels } });
        return;
      }
      case 'pod':
        await this.cluster.create(objectsOf(op)!).catch(ignoreExists);
        return;
      default:
        await this.put(objectsOf(op)!);
    }
  }

  /** Creates the object, or replaces it (its labels and everything but metadata and status) when it exists. */
  private async put(o: KubeObject): Promise<void> {
    const ns = o.metadata.namespace;
    const have = await this.cluster.get({ kind: o.kind, name: o.metadata.name, ...(ns ? { namespace: ns } : {}) });
    if (have === undefined) {
      await this.cluster.create(o);
      return;
    }
    // What the controller wrote (finalizers, annotations) stays; unconditional, as `kubectl replace --force` is not.
    const { resourceVersion: _rv, labels: _l, ...meta } = have.metadata;
    const metadata = { ...meta, ...(o.metadata.labels ? { labels: o.metadata.labels } : {}) };
    await this.cluster.update({ ...o, metadata }).catch(ignoreNotFound);
  }

  private async patch(kind: string, ns: string | undefined, name: string, p: unknown): Promise<void> {
    await this.cluster.patch({ kind, name, ...(ns ? { namespace: ns } : {}) }, p).catch(ignoreNotFound);
  }

  /**
   * Watches back to normal, the start finished, and every queue, commit and
   * write done; retries due within SETTLE_MS of virtual time are let run.
   */
  async settle(): Promise<void> {
    this.faults.heal();
    await this.drive(this.started, 'the controller start');
    // A start that failed (the API refused to create a default Subnet, say) ends the process, and its
    // supervisor starts it again, as Kubernetes restarts a crashed pod.
    for (let tries = 0; this.startError !== undefined; tries++) {
      if (tries === 10) throw this.startError;
      totals.restarts++;
      await this.drive(this.controller.stop(), 'stopping a controller that failed to start');
      this.boot();
      await this.drive(this.started, 'the controller start');
    }
    const limit = this.clock.now() + SETTLE_MS;
    for (let round = 0; ; round++) {
      await this.drive(settled(this.controller), 'the controller going idle');
      const at = this.clock.nextAt();
      if (at === undefined || at > limit) break;
      this.clock.fireNext();
      if (round > 100_000) throw new HungError('settling (timers keep coming)');
    }
    await this.drive(settled(this.controller), 'the controller going idle');
  }

  /** What the live controller is doing, for a hang's message. */
  private state(): string {
    const c = this.controller;
    return JSON.stringify({
      committer: c.committer.stats,
      delayed: c.delayed(),
      processed: c.processed(),
      errors: this.errors,
      nextTimer: this.clock.nextAt(),
    });
  }

  async stop(): Promise<void> {
    this.faults.heal();
    await this.drive(this.controller.stop(), 'the last stop');
    await this.started;
  }

  /**
   * Waits for `p`, firing delayed timers when nothing else moves (a stop
   * waits out a grace period, a start a relist backoff); fails after HANG_MS.
   */
  private async drive(p: Promise<unknown>, what: string): Promise<void> {
    let done = false;
    const settled = p.then(
      () => void (done = true),
      () => void (done = true),
    );
    const deadline = Date.now() + HANG_MS;
    for (let round = 1; !done; round++) {
      await Promise.race([settled, turns(20)]);
      if (done) break;
      if (Date.now() > deadline) throw new HungError(`${what} (${this.state()})`);
      // Real I/O (a real NB) takes many turns: time is moved only when nothing has come for a while.
      if (round % 20 === 0) this.clock.fireNext();
    }
    await p;
  }
}

async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await turn();
}

function ignoreNotFound(e: unknown): void {
  if ((e as { reason?: string }).reason !== 'NotFound') throw e;
}

function ignoreExists(e: unknown): void {
  if ((e as { reason?: string }).reason !== 'AlreadyExists') throw e;
}

/**
 * One replica of the controller as `kovn controller` runs it: it campaigns
 * for the Lease (controller/leader), and only once it leads opens the
 * backend and starts the controller; it ends the process when it stops
 * leading (Kube-OVN's controller exits too: its supervisor starts it again
 * as a candidate, with nothing of the old term in memory). On SIGTERM it
 * stops the controller first, then releases the Lease, so the next leader
 * starts at its next retry and never while this one still writes.
 *
 * Health for the probes: `healthy` fails once the replica is done for
 * (lost, failed to start); `ready` holds for a leader whose controller has
 * started and for a standby candidate (a rolling update needs standbys
 * Ready), and fails while the leader starts up or the replica terminates.
 *
 * Clock, randomness, logger and the exit are injected; the CLI hands in
 * wall time, the process's exit and its stderr.
 */
import { Gauge, type Registry } from 'prom-client';
import type { Backend } from '../backends/backend.ts';
import type { RandomBytes } from '../model/ipam/index.ts';
import type { ClusterSource, ObjectKey } from '../kube/cluster/types.ts';
import type { Logger } from '../kube/observe/log.ts';
import { workQueueMetrics } from '../kube/observe/queue-metrics.ts';
import type { Clock } from '../kube/runtime/clock.ts';
import type { ControllerSettings } from './config.ts';
import { Controller } from './controller.ts';
import { type ElectionTiming, LeaderElector } from './leader/elector.ts';
import type { LeaseRef } from './leader/record.ts';
import { meteredBackend, registerControllerMetrics } from './metrics.ts';

/** How long a controller that stops gets before the process ends anyway. */
const STOP_GRACE_MS = 5_000;

export interface ReplicaOptions {
  readonly cluster: ClusterSource;
  /** Opened when this replica starts leading (a standby holds no NB session). */
  readonly openBackend: () => Promise<Backend>;
  readonly clock: Clock;
  /** Uniform in [0, 1): the election's retry jitter. */
  readonly random: () => number;
  /** MAC randomness for the IPAM. */
  readonly macRandom: RandomBytes;
  readonly lease: LeaseRef;
  readonly identity: string;
  readonly timing?: ElectionTiming;
  readonly settings?: ControllerSettings;
  readonly log: Logger;
  /** Metrics of the controller, its queues and backend, and the election, when given. */
  readonly registry?: Registry;
  /** The process ends with this status (1: leadership lost or the controller failed to start). */
  readonly exit: (code: number) => void;
}

export type ReplicaPhase = 'candidate' | 'starting' | 'running' | 'terminating' | 'done';

/**
 * @example
 * const r = new Replica({ cluster, openBackend: async () => new SimBackend(), clock: realClock, random: Math.random,
 *   macRandom: crypto.getRandomValues.bind(crypto), lease, identity: process.env.POD_NAME!, log, exit: process.exit });
 * r.start();
 * process.on('SIGTERM', async () => { await r.terminate(); process.exit(0); });
 */
export class Replica {
  readonly elector: LeaderElector;
  private phase: ReplicaPhase = 'candidate';
  private running: Controller | undefined;
  private backend: Backend | undefined;
  private failure: string | undefined;

  constructor(private readonly o: ReplicaOptions) {
    this.elector = new LeaderElector({
      cluster: o.cluster,
      clock: o.clock,
      random: o.random,
      lease: o.lease,
      identity: o.identity,
      ...(o.timing ? { timing: o.timing } : {}),
      onStartedLeading: () => void this.lead(),
      onStoppedLeading: (why) => {
        if (why === 'lost') void this.lost();
      },
      onNewLeader: (holder) => o.log.info('leader seen', { leader: holder === '' ? '(none)' : holder }),
      onError: (err) => o.log.warn('lease request failed', { object: leaseObject(o.lease), err }),
    });
    if (o.registry !== undefined) {
      const elector = this.elector;
      registerControllerMetrics(o.registry, () => this.running);
      new Gauge({
        name: 'leader_election_master_status',
        help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
        labelNames: ['name'],
        registers: [o.registry],
        collect() {
          this.set({ name: o.lease.name }, elector.isLeader() ? 1 : 0);
        },
      });
    }
  }

  /** The controller while this replica leads and runs it. */
  controller(): Controller | undefined {
    return this.running;
  }

  get state(): ReplicaPhase {
    return this.phase;
  }

  start(): void {
    this.o.log.info('campaigning', { object: leaseObject(this.o.lease), identity: this.o.identity });
    this.elector.start();
  }

  /** /healthz: undefined when fine, else why not. */
  healthy(): string | undefined {
    if (this.failure !== undefined) return this.failure;
    return this.phase === 'done' ? 'stopped' : undefined;
  }

  /** /readyz: a running leader or a standby candidate. */
  ready(): string | undefined {
    if (this.phase === 'running' || this.phase === 'candidate') return this.healthy();
    return this.phase === 'starting' ? 'leading, the controller is starting' : this.phase;
  }

  /** SIGTERM: the controller stopped, then the Lease released; resolves once both are done. */
  async terminate(): Promise<void> {
    if (this.phase === 'terminating' || this.phase === 'done') return;
    this.phase = 'terminating';
    this.o.log.info('terminating: stopping the controller, then releasing the lease');
    // A start under way is not waited for (opening the backend may hang): what it made is stopped here or by lead.
    await this.stopController();
    await this.elector.release();
    this.phase = 'done';
    this.o.log.info('lease released', { object: leaseObject(this.o.lease) });
  }

  private async lead(): Promise<void> {
    const { o } = this;
    if (this.phase !== 'candidate') return;
    this.phase = 'starting';
    o.log.info('started leading', { object: leaseObject(o.lease), identity: o.identity });
    void this.event('became leader');
    try {
      const inner = await o.openBackend();
      // Lost or terminating meanwhile: the controller must not start.
      if (this.phase !== 'starting') {
        await inner.close().catch(() => {});
        return;
      }
      this.backend = inner;
      const backend = o.registry ? meteredBackend(inner, { registry: o.registry, clock: o.clock }) : inner;
      const queues = o.registry ? workQueueMetrics(o.registry) : undefined;
      const c = new Controller({
        cluster: o.cluster,
        backend,
        clock: o.clock,
        random: o.macRandom,
        ...(o.settings ? { settings: o.settings } : {}),
        ...(queues ? { queueMetrics: queues } : {}),
        onError: (kind, key, err) =>
          o.log.warn(key === undefined ? 'list or watch failed' : 'reconcile failed', {
            ...(key !== undefined ? { object: objectOf(kind, key) } : { kind }),
            err,
          }),
        onCommit: (info) => o.log.debug('committed', { ...info }),
        onReconciled: (kind, key) => o.log.debug('reconciled', { object: objectOf(kind, key) }),
      });
      this.running = c;
      // Terminating meanwhile: stopController waits for this start and stops what it started.
      const report = await c.start();
      if (this.phase !== 'starting') return;
      this.phase = 'running';
      o.log.info('controller started', {
        operations: report.operations,
        staleIpObjects: report.staleIpObjects.length,
      });
    } catch (err) {
      // Stopped meanwhile (lost, terminating): whoever stopped it ends the process.
      if (this.phase !== 'starting') return;
      this.failure = `the controller failed to start: ${err instanceof Error ? err.message : String(err)}`;
      o.log.error('controller failed to start', { err });
      await this.stopController();
      this.phase = 'done';
      o.exit(1);
    }
  }

  /** Leadership lost: stop writing at once, and end the process (its supervisor restarts it). */
  private async lost(): Promise<void> {
    this.o.log.error('leader election lost', { object: leaseObject(this.o.lease) });
    void this.event('stopped leading');
    this.failure = 'leader election lost';
    this.phase = 'done';
    await this.stopController();
    this.o.exit(1);
  }

  /** An Event on the Lease, as client-go's resource lock records one (reason LeaderElection). */
  private async event(what: string): Promise<void> {
    const { o } = this;
    await o.cluster
      .recordEvent({
        involved: leaseObject(o.lease),
        type: 'Normal',
        reason: 'LeaderElection',
        message: `${o.identity} ${what}`,
        source: 'kube-ovn-controller',
      })
      .catch((err: unknown) => o.log.warn('event not recorded', { object: leaseObject(o.lease), err }));
  }

  /** Stops the controller and closes its backend, waiting at most STOP_GRACE_MS. */
  private async stopController(): Promise<void> {
    const c = this.running;
    const backend = this.backend;
    this.running = this.backend = undefined;
    if (c === undefined && backend === undefined) return;
    let timer: unknown;
    const grace = new Promise<void>((resolve) => {
      timer = this.o.clock.setTimeout(resolve, STOP_GRACE_MS);
    });
    const stop = async () => {
      await c?.stop().catch((err: unknown) => this.o.log.warn('controller stop failed', { err }));
      await backend?.close().catch((err: unknown) => this.o.log.warn('backend close failed', { err }));
    };
    await Promise.race([stop(), grace]);
    this.o.clock.clearTimeout(timer);
  }
}

const leaseObject = (l: LeaseRef) => ({ kind: 'Lease', namespace: l.namespace, name: l.name });
const objectOf = (kind: string, key: ObjectKey) => ({ kind, ...key });

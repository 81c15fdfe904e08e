/**
 * Leader election over a Lease, with client-go's algorithm
 * (tools/leaderelection): a candidate reads the Lease every `retryPeriod`
 * (with jitter); it takes the Lease when nobody holds it, when it holds it
 * already, or when the record it sees has not changed for `leaseDuration`
 * of its own clock (never by comparing another process's timestamps: clocks
 * differ). Every write carries the resourceVersion read, so two candidates
 * racing for one Lease cannot both win (the second gets Conflict).
 *
 * The leader renews every `retryPeriod` and stops leading when no renewal
 * has succeeded for `renewDeadline`, counted from the moment before the
 * last successful write was sent. Since `renewDeadline < leaseDuration`
 * and another candidate waits `leaseDuration` from the moment it saw that
 * write, the old leader has stopped before anyone else may start: two
 * replicas never both lead (controller/leader/elector.property.test.ts).
 * Losing the lead is final: the process exits, as Kube-OVN's controller
 * does, and its supervisor starts it again as a candidate.
 *
 * `release` (SIGTERM) stops leading and writes an empty holder, so a
 * candidate takes over at its next retry instead of after the lease expires.
 *
 * Time and jitter come from the injected clock and random source.
 */
import { ClusterError, type ClusterSource, type KubeObject } from '../../kube/cluster/types.ts';
import type { Clock } from '../../kube/runtime/clock.ts';
import { type LeaderRecord, type LeaseRef, leaseOf, recordOf } from './record.ts';

/** client-go's defaults (LeaseDuration 15 s, RenewDeadline 10 s, RetryPeriod 2 s). */
export const DEFAULT_TIMING: ElectionTiming = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/** client-go's JitterFactor for the candidates' retries: each waits retryPeriod × (1 + up to 1.2). */
const JITTER = 1.2;

export interface ElectionTiming {
  /** How long a candidate waits, after it last saw the Lease change, before taking it over. */
  readonly leaseDurationMs: number;
  /** How long the leader keeps leading without a successful renewal. Less than leaseDurationMs. */
  readonly renewDeadlineMs: number;
  /** Time between attempts (candidates add jitter). */
  readonly retryPeriodMs: number;
}

export type ElectorState = 'idle' | 'candidate' | 'leading' | 'lost' | 'released' | 'stopped';

export interface ElectorOptions {
  readonly cluster: ClusterSource;
  readonly clock: Clock;
  /** Uniform in [0, 1): the retry jitter. */
  readonly random: () => number;
  readonly lease: LeaseRef;
  /** This replica's name in `holderIdentity` (Kube-OVN: the pod name). Unique per replica. */
  readonly identity: string;
  readonly timing?: ElectionTiming;
  /** Called once, when this replica starts leading: start reconciling. */
  readonly onStartedLeading?: () => void;
  /** Called once, when it stops leading (lost or released): stop writing. */
  readonly onStoppedLeading?: (why: 'lost' | 'released') => void;
  /** Called when the holder seen changes (another replica leads now, or nobody). */
  readonly onNewLeader?: (identity: string) => void;
  /** A read or write of the Lease that failed (retried at the next period). */
  readonly onError?: (err: unknown) => void;
}

/** The election's configuration is refused: timings that cannot keep two leaders apart. */
export class ElectionConfigError extends Error {
  override readonly name = 'ElectionConfigError';
  readonly code = 'election-config';
}

/** An attempt on the Lease that had no answer within the renew deadline (reported to onError). */
export class ElectionTimeoutError extends Error {
  override readonly name = 'ElectionTimeoutError';
  readonly code = 'election-timeout';
  constructor(lease: LeaseRef, ms: number) {
    super(`Lease ${lease.namespace}/${lease.name}: no answer within ${ms} ms; trying again`);
  }
}

/**
 * Throws ElectionConfigError unless 0 < retryPeriod < renewDeadline < leaseDuration (what keeps two
 * leaders apart); the CLI checks its flags with it before it connects.
 *
 * @example checkTiming({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }, lease)
 */
export function checkTiming(t: ElectionTiming, lease: LeaseRef): void {
  if (!(t.retryPeriodMs > 0 && t.renewDeadlineMs > t.retryPeriodMs && t.leaseDurationMs > t.renewDeadlineMs))
    throw new ElectionConfigError(
      `leader election of Lease ${lease.namespace}/${lease.name}: needs 0 < retryPeriod < renewDeadline ` +
        `< leaseDuration, got ${t.retryPeriodMs} ms, ${t.renewDeadlineMs} ms, ${t.leaseDurationMs} ms`,
    );
}

/** The last Lease version seen, and when this replica first saw it (its own clock). */
interface Observed {
  readonly resourceVersion: string;
  readonly record: LeaderRecord;
  readonly at: number;
}

/**
 * @example
 * const e = new LeaderElector({ cluster, clock: realClock, random: Math.random,
 *   lease: { namespace: 'kube-system', name: 'kovn-controller' }, identity: 'kovn-controller-0',
 *   onStartedLeading: () => void controller.start(), onStoppedLeading: () => process.exit(1) });
 * e.start();
 * process.on('SIGTERM', async () => { await controller.stop(); await e.release(); process.exit(0); });
 */
export class LeaderElector {
  readonly timing: ElectionTiming;
  private s: ElectorState = 'idle';
  private observed: Observed | undefined;
  /** The leader's deadline: it leads while now < validUntil. */
  private validUntil = 0;
  private retryTimer: unknown;
  private deadlineTimer: unknown;
  private inFlight: Promise<void> | undefined;
  private holderSeen: string | undefined;

  constructor(private readonly opts: ElectorOptions) {
    const t = opts.timing ?? DEFAULT_TIMING;
    checkTiming(t, opts.lease);
    this.timing = t;
  }

  get state(): ElectorState {
    return this.s;
  }

  /** True while this replica leads: it has the Lease and its last renewal is within the renew deadline. */
  isLeader(): boolean {
    return this.s === 'leading' && this.opts.clock.now() < this.validUntil;
  }

  /** The holder last seen in the Lease ('' when released, undefined before the first read). */
  leader(): string | undefined {
    return this.holderSeen;
  }

  /** Starts campaigning: the first attempt is made at once. */
  start(): void {
    if (this.s !== 'idle') return;
    this.s = 'candidate';
    this.schedule(0);
  }

  /**
   * Stops without touching the Lease (a process killed): another replica
   * takes over once the lease expires.
   */
  stop(): void {
    if (this.s === 'stopped' || this.s === 'lost' || this.s === 'released') return;
    const was = this.s;
    this.s = 'stopped';
    this.clearTimers();
    if (was === 'leading') this.opts.onStoppedLeading?.('lost');
  }

  /**
   * Stops leading, and gives the Lease up (empty holder, as client-go's
   * ReleaseOnCancel writes) so another replica takes over at its next retry.
   * The caller stops its own writes first. Resolves once the Lease is written
   * (or the write failed: the lease then expires as after a crash).
   */
  async release(): Promise<void> {
    const wasLeading = this.s === 'leading';
    if (this.s === 'idle' || this.s === 'candidate' || wasLeading) this.s = 'released';
    this.clearTimers();
    // A request that hangs is not waited for past a retry period: the release carries the version read,
    // so whichever of the two writes lands second is refused.
    if (this.inFlight !== undefined) await this.within(this.inFlight, this.timing.retryPeriodMs);
    if (wasLeading) this.opts.onStoppedLeading?.('released');
    // An attempt in flight may have just won the Lease for a candidate: given up too.
    const seen = this.observed;
    if (seen === undefined || seen.record.holderIdentity !== this.opts.identity) return;
    const now = this.opts.clock.now();
    const record: LeaderRecord = {
      ...seen.record,
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
    };
    await this.opts.cluster.update(leaseOf(this.opts.lease, record, seen.resourceVersion)).then(
      () => {},
      (err: unknown) => this.opts.onError?.(err),
    );
  }

  private schedule(ms: number): void {
    this.retryTimer = this.opts.clock.setTimeout(() => {
      this.retryTimer = undefined;
      this.inFlight = this.attempt();
    }, ms);
  }

  private clearTimers(): void {
    if (this.retryTimer !== undefined) this.opts.clock.clearTimeout(this.retryTimer);
    if (this.deadlineTimer !== undefined) this.opts.clock.clearTimeout(this.deadlineTimer);
    this.retryTimer = this.deadlineTimer = undefined;
  }

  /** One tryAcquireOrRenew, then the next attempt scheduled. */
  private async attempt(): Promise<void> {
    const sent = this.opts.clock.now();
    let won = false;
    // An attempt that hangs is given up after the renew deadline (client-go's request timeout for its
    // lock): its late success is not counted, which errs on the side of not leading.
    const attempt = this.tryAcquireOrRenew(sent).catch((err: unknown) => {
      this.opts.onError?.(err);
      return false;
    });
    const r = await this.within(attempt, this.timing.renewDeadlineMs);
    if (r.done) won = r.value;
    else this.opts.onError?.(new ElectionTimeoutError(this.opts.lease, this.timing.renewDeadlineMs));
    if (this.s !== 'candidate' && this.s !== 'leading') return;
    if (won) this.renewed(sent);
    const { retryPeriodMs } = this.timing;
    this.schedule(this.s === 'leading' ? retryPeriodMs : retryPeriodMs * (1 + JITTER * this.opts.random()));
  }

  /** `p`'s outcome if it settles within `ms` on the clock, else `{ done: false }` (p runs on, ignored). */
  private async within<T>(p: Promise<T>, ms: number): Promise<{ done: true; value: T } | { done: false }> {
    const { clock } = this.opts;
    let timer: unknown;
    const late = new Promise<{ done: false }>((resolve) => {
      timer = clock.setTimeout(() => resolve({ done: false }), ms);
    });
    const r = await Promise.race([p.then((value) => ({ done: true as const, value })), late]);
    clock.clearTimeout(timer);
    return r;
  }

  /** A write sent at `sent` succeeded: leading until sent + renewDeadline. */
  private renewed(sent: number): void {
    const { clock } = this.opts;
    // An answer slower than the deadline is no renewal: leading must hold for some time from now.
    if (sent + this.timing.renewDeadlineMs <= clock.now()) return;
    this.validUntil = sent + this.timing.renewDeadlineMs;
    if (this.deadlineTimer !== undefined) clock.clearTimeout(this.deadlineTimer);
    this.deadlineTimer = clock.setTimeout(() => this.lose(), this.validUntil - clock.now());
    if (this.s === 'candidate') {
      this.s = 'leading';
      this.opts.onStartedLeading?.();
    }
  }

  private lose(): void {
    this.deadlineTimer = undefined;
    if (this.s !== 'leading') return;
    this.s = 'lost';
    this.clearTimers();
    this.opts.onStoppedLeading?.('lost');
  }

  /** client-go's tryAcquireOrRenew: true when this replica holds the Lease now. */
  private async tryAcquireOrRenew(now: number): Promise<boolean> {
    const { cluster, lease, identity } = this.opts;
    const mine: LeaderRecord = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.timing.leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };
    const current = await cluster.get({ kind: 'Lease', ...lease });
    if (current === undefined) {
      const created = await cluster.create(leaseOf(lease, mine)).catch(refusedAs('AlreadyExists'));
      if (created === undefined) return false;
      this.observe(created, this.opts.clock.now());
      return true;
    }
    const old = this.observe(current, this.opts.clock.now());
    const held = old.holderIdentity !== '' && old.holderIdentity !== identity;
    if (held && this.observed!.at + this.timing.leaseDurationMs > this.opts.clock.now()) return false;
    const next: LeaderRecord =
      old.holderIdentity === identity
        ? { ...mine, acquireTime: old.acquireTime, leaseTransitions: old.leaseTransitions }
        : { ...mine, leaseTransitions: old.leaseTransitions + 1 };
    const written = await cluster
      .update(leaseOf(lease, next, current.metadata.resourceVersion))
      .catch(refusedAs('Conflict'));
    if (written === undefined) return false;
    this.observe(written, this.opts.clock.now());
    return true;
  }

  /** Keeps the Lease seen; its first sighting time changes only when the Lease did. */
  private observe(lease: KubeObject, at: number): LeaderRecord {
    const rv = lease.metadata.resourceVersion ?? '';
    const record = recordOf(lease);
    if (this.observed?.resourceVersion !== rv) this.observed = { resourceVersion: rv, record, at };
    if (record.holderIdentity !== this.holderSeen) {
      this.holderSeen = record.holderIdentity;
      this.opts.onNewLeader?.(record.holderIdentity);
    }
    return record;
  }
}

/** A write refused with `reason` (lost a race) is an answer, not an error: undefined. */
const refusedAs =
  (reason: 'AlreadyExists' | 'Conflict') =>
  (err: unknown): undefined => {
    if (err instanceof ClusterError && err.reason === reason) return undefined;
    throw err;
  };

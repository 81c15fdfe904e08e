/**
 * Test fixture: replicas of the leader elector on one cluster, each behind
 * its own link that can fail or delay its requests on the simulated clock
 * (a partition, a slow API server), and a step function that fires the
 * clock's timers one at a time and checks after each that no two replicas
 * lead at once.
 */
import { ClusterError, type ClusterSource } from '../../../kube/cluster/types.ts';
import type { SimClock } from '../../../kube/runtime/clock.ts';
import { type ElectionTiming, LeaderElector } from '../elector.ts';

/** What one replica's link to the API does to its requests now. */
export interface LinkState {
  /** Every request fails (ServiceUnavailable), as a partitioned replica sees it. */
  failing: boolean;
  /** The request waits this long before it reaches the cluster. */
  requestDelayMs: number;
  /** The answer waits this long before it reaches the replica. */
  responseDelayMs: number;
}

const sleep = (clock: SimClock, ms: number): Promise<void> =>
  ms > 0 ? new Promise((r) => clock.setTimeout(r, ms)) : Promise.resolve();

/** A cluster source whose requests pass through `link` (only what the elector uses). */
export function linkedCluster(inner: ClusterSource, clock: SimClock, link: LinkState): ClusterSource {
  const through =
    <A extends unknown[], R>(name: string, call: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      await sleep(clock, link.requestDelayMs);
      if (link.failing) throw new ClusterError('ServiceUnavailable', { kind: 'Lease', name: '' }, `${name}: cut`);
      const r = await call(...a);
      await sleep(clock, link.responseDelayMs);
      return r;
    };
  return {
    ...inner,
    list: through('list', (k, o) => inner.list(k, o)),
    get: through('get', (r) => inner.get(r)),
    create: through('create', (o) => inner.create(o)),
    update: through('update', (o) => inner.update(o)),
    updateStatus: through('updateStatus', (o) => inner.updateStatus(o)),
    patch: through('patch', (r, p, o) => inner.patch(r, p, o)),
    delete: through('delete', (r) => inner.delete(r)),
    recordEvent: through('recordEvent', (e) => inner.recordEvent(e)),
    watch: (...a) => inner.watch(...a),
  };
}

export interface Replica {
  readonly identity: string;
  readonly link: LinkState;
  elector: LeaderElector;
  /** Between onStartedLeading and onStoppedLeading: what its controller would be doing. */
  acting: boolean;
  /** How many times it started leading. */
  terms: number;
  /**
   * A release still writing: the process exits only once it is done, so it
   * cannot be started again before (a restarted pod keeps its name, the
   * identity, and two live processes with one identity would be one leader).
   */
  releasing: Promise<void> | undefined;
}

export interface ReplicaSetOptions {
  readonly cluster: ClusterSource;
  readonly clock: SimClock;
  readonly timing: ElectionTiming;
  readonly count: number;
  readonly random: () => number;
}

/** Replicas `r0`, `r1`, ... not yet started. */
export function makeReplicas(o: ReplicaSetOptions): Replica[] {
  const replicas: Replica[] = [];
  for (let i = 0; i < o.count; i++) {
    const link: LinkState = { failing: false, requestDelayMs: 0, responseDelayMs: 0 };
    const r: Replica = {
      identity: `r${i}`,
      link,
      elector: undefined as unknown as LeaderElector,
      acting: false,
      terms: 0,
      releasing: undefined,
    };
    r.elector = newElector(o, r);
    replicas.push(r);
  }
  return replicas;
}

/** Whether `r`'s process has ended and may be started again. */
export const ended = (r: Replica): boolean =>
  r.releasing === undefined && ['stopped', 'lost', 'released'].includes(r.elector.state);

/** SIGTERM: `r` releases; its process ends once the Lease is written. */
export function release(r: Replica): void {
  const p = r.elector.release().finally(() => {
    if (r.releasing === p) r.releasing = undefined;
  });
  r.releasing = p;
}

/** A fresh elector for `r` (a process started again, same identity, as a restarted pod keeps its name). */
export function newElector(o: ReplicaSetOptions, r: Replica): LeaderElector {
  return new LeaderElector({
    cluster: linkedCluster(o.cluster, o.clock, r.link),
    clock: o.clock,
    random: o.random,
    lease: { namespace: 'kube-system', name: 'kovn-controller' },
    identity: r.identity,
    timing: o.timing,
    onStartedLeading: () => {
      r.acting = true;
      r.terms++;
    },
    onStoppedLeading: () => {
      r.acting = false;
    },
  });
}

/** The replicas that lead now, by both measures: isLeader() and acting. */
export function leaders(replicas: readonly Replica[]): { leading: string[]; acting: string[] } {
  return {
    leading: replicas.filter((r) => r.elector.isLeader()).map((r) => r.identity),
    acting: replicas.filter((r) => r.acting).map((r) => r.identity),
  };
}

/**
 * Moves the clock `ms` forward one timer at a time, settling after each;
 * `check` runs after every timer (and before the first): leadership starts
 * only at a timer's work and a leader's isLeader() only falls between
 * timers, so checking there sees every instant that matters.
 */
export async function step(clock: SimClock, ms: number, check: () => void): Promise<void> {
  const end = clock.now() + ms;
  await clock.settle();
  check();
  for (let at = clock.nextAt(); at !== undefined && at <= end; at = clock.nextAt()) {
    clock.advance(at - clock.now());
    await clock.settle();
    check();
  }
  clock.advance(end - clock.now());
  await clock.settle();
  check();
}

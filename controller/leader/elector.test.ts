import { describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import { SimClock } from '../../kube/runtime/clock.ts';
import { DEFAULT_TIMING, ElectionConfigError, LeaderElector } from './elector.ts';
import { microTime, recordOf } from './record.ts';
import { leaders, makeReplicas, type ReplicaSetOptions, step } from './testing/replicas.ts';

const LEASE = { kind: 'Lease', namespace: 'kube-system', name: 'kovn-controller' } as const;

function world(count = 2) {
  const clock = new SimClock(1_000_000);
  const cluster = new MemoryCluster({ now: () => clock.now() });
  const o: ReplicaSetOptions = { cluster, clock, timing: DEFAULT_TIMING, count, random: () => 0.5 };
  const replicas = makeReplicas(o);
  const check = () => {
    const { leading, acting } = leaders(replicas);
    expect(leading.length, `leading at ${clock.now()}: ${leading}`).toBeLessThanOrEqual(1);
    expect(acting.length, `acting at ${clock.now()}: ${acting}`).toBeLessThanOrEqual(1);
  };
  const lease = async () => recordOf((await cluster.get(LEASE))!);
  return { clock, cluster, o, replicas, check, lease };
}

describe('LeaderElector', () => {
  it('the first candidate creates the Lease and leads; the second waits and the leader keeps renewing', async () => {
    const { clock, replicas, check, lease } = world();
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    a.elector.start();
    await step(clock, 0, check);
    b.elector.start();
    await step(clock, 60_000, check);
    expect(a.elector.isLeader()).toBe(true);
    expect(b.elector.state).toBe('candidate');
    expect(b.elector.leader()).toBe('r0');
    const r = await lease();
    expect(r).toMatchObject({ holderIdentity: 'r0', leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(r.acquireTime).toBe(1_000_000);
    // Renewed every retry period: the last renewal is at most 2 s old.
    expect(clock.now() - r.renewTime).toBeLessThanOrEqual(2_000);
  });

  it('a killed leader is replaced only after the lease expires, counted from when the other last saw it change', async () => {
    const { clock, replicas, check, lease } = world();
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    a.elector.start();
    b.elector.start();
    await step(clock, 30_000, check);
    const lastRenew = (await lease()).renewTime;
    a.elector.stop();
    const killedAt = clock.now();
    await step(clock, 14_000 - (killedAt - lastRenew), check);
    expect(b.elector.isLeader()).toBe(false);
    // b saw the last renewal at its next read (within 2 s × 2.2 of it); then 15 s; then its next retry.
    await step(clock, 15_000 + 2 * 4_400, check);
    expect(b.elector.isLeader()).toBe(true);
    const r = await lease();
    expect(r).toMatchObject({ holderIdentity: 'r1', leaseTransitions: 1 });
    expect(r.acquireTime - lastRenew).toBeGreaterThanOrEqual(15_000);
  });

  it('release hands over at the next retry, without waiting for expiry', async () => {
    const { clock, replicas, check, lease } = world();
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    a.elector.start();
    b.elector.start();
    await step(clock, 30_000, check);
    const releasedAt = clock.now();
    await a.elector.release();
    expect(a.acting).toBe(false);
    expect(a.elector.state).toBe('released');
    expect((await lease()).holderIdentity).toBe('');
    await step(clock, 4_400, check);
    expect(b.elector.isLeader()).toBe(true);
    const r = await lease();
    expect(r.holderIdentity).toBe('r1');
    expect(r.acquireTime - releasedAt).toBeLessThanOrEqual(4_400);
  });

  it('a leader that cannot renew stops leading at the renew deadline, before the lease expires for others', async () => {
    const { clock, replicas, check } = world();
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    a.elector.start();
    await step(clock, 0, check);
    b.elector.start();
    await step(clock, 10_000, check);
    a.link.failing = true;
    const cutAt = clock.now();
    await step(clock, 8_000, check);
    expect(a.elector.state).toBe('leading');
    await step(clock, 4_000, check);
    expect(a.elector.state).toBe('lost');
    expect(a.acting).toBe(false);
    await step(clock, 30_000, check);
    expect(b.elector.isLeader()).toBe(true);
    expect(clock.now() - cutAt).toBeGreaterThan(15_000);
  });

  it('release does not wait for a renewal that hangs: it gives up on it after a retry period and hands over', async () => {
    const { clock, replicas, check, lease } = world();
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    a.elector.start();
    await step(clock, 0, check);
    b.elector.start();
    await step(clock, 5_000, check);
    // a's next renewal hangs for a minute before it reaches the API; then SIGTERM.
    a.link.requestDelayMs = 60_000;
    await step(clock, 2_000, check);
    a.link.requestDelayMs = 0;
    let released = false;
    void a.elector.release().then(() => (released = true));
    await step(clock, 2_000, check);
    expect(released).toBe(true);
    expect(a.acting).toBe(false);
    await step(clock, 4_400, check);
    expect(b.elector.isLeader()).toBe(true);
    expect((await lease()).holderIdentity).toBe('r1');
    // The hung renewal lands later and is refused: it carries the version it read before the release.
    await step(clock, 60_000, check);
    expect((await lease()).holderIdentity).toBe('r1');
  });

  it('a candidate whose request hangs tries again after the renew deadline, and takes over a released lease', async () => {
    const { clock, replicas, check, lease } = world();
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    a.elector.start();
    await step(clock, 0, check);
    b.link.requestDelayMs = 120_000;
    b.elector.start();
    await step(clock, 1_000, check);
    b.link.requestDelayMs = 0;
    await a.elector.release();
    // Without a bound, b would wait for its hung read (two minutes) before its next attempt.
    await step(clock, 10_000 + 2 * 4_400, check);
    expect(b.elector.isLeader()).toBe(true);
    expect((await lease()).holderIdentity).toBe('r1');
  });

  it('refuses timings that cannot keep two leaders apart', () => {
    const cluster = new MemoryCluster();
    const mk = (leaseDurationMs: number, renewDeadlineMs: number, retryPeriodMs: number) =>
      new LeaderElector({
        cluster,
        clock: new SimClock(),
        random: () => 0,
        lease: { namespace: 'kube-system', name: 'x' },
        identity: 'a',
        timing: { leaseDurationMs, renewDeadlineMs, retryPeriodMs },
      });
    expect(() => mk(10_000, 10_000, 2_000)).toThrow(ElectionConfigError);
    expect(() => mk(15_000, 2_000, 2_000)).toThrow(/retryPeriod < renewDeadline < leaseDuration/);
    expect(() => mk(15_000, 10_000, 2_000)).not.toThrow();
  });

  it('writes MicroTime as the API server does', () => {
    expect(microTime(1234)).toBe('1970-01-01T00:00:01.234000Z');
  });
});

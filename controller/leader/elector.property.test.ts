/**
 * Two (or three) replicas of the elector on one in-memory cluster, driven
 * through random histories of clock steps and failures: links cut and
 * healed, requests and answers delayed, replicas killed, restarted and
 * released. At every timer, at most one replica leads. At the end, with
 * every link healed and every replica running, exactly one leads: the
 * safety is not had by never electing anyone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../test/fc.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import { SimClock } from '../../kube/runtime/clock.ts';
import { DEFAULT_TIMING } from './elector.ts';
import { ended, leaders, makeReplicas, newElector, type ReplicaSetOptions, release, step } from './testing/replicas.ts';

type Op =
  | { k: 'step'; ms: number }
  | { k: 'cut' | 'heal' | 'kill' | 'restart' | 'release'; i: number }
  | { k: 'delay'; i: number; requestMs: number; responseMs: number };

const op = (n: number): fc.Arbitrary<Op> => {
  const i = fc.nat({ max: n - 1 });
  return fc.oneof(
    // Short steps put a cut between two renewals; long ones let leases expire.
    { weight: 4, arbitrary: fc.integer({ min: 0, max: 3_000 }).map((ms): Op => ({ k: 'step', ms })) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 20_000 }).map((ms): Op => ({ k: 'step', ms })) },
    { weight: 2, arbitrary: i.map((i): Op => ({ k: 'cut', i })) },
    { weight: 2, arbitrary: i.map((i): Op => ({ k: 'heal', i })) },
    { weight: 1, arbitrary: i.map((i): Op => ({ k: 'kill', i })) },
    { weight: 2, arbitrary: i.map((i): Op => ({ k: 'restart', i })) },
    { weight: 1, arbitrary: i.map((i): Op => ({ k: 'release', i })) },
    {
      weight: 2,
      arbitrary: fc
        .record({ i, requestMs: fc.integer({ min: 0, max: 12_000 }), responseMs: fc.integer({ min: 0, max: 12_000 }) })
        .map((d): Op => ({ k: 'delay', ...d })),
    },
  );
};

async function run(count: number, ops: readonly Op[], seed: number): Promise<number> {
  const clock = new SimClock(1_000_000);
  const cluster = new MemoryCluster({ now: () => clock.now() });
  let s = seed;
  // A small LCG: the jitter is part of the seeded history.
  const random = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const o: ReplicaSetOptions = { cluster, clock, timing: DEFAULT_TIMING, count, random };
  const replicas = makeReplicas(o);
  const check = () => {
    const { leading, acting } = leaders(replicas);
    if (leading.length > 1 || acting.length > 1)
      throw new Error(`two leaders at ${clock.now()}: leading ${leading}, acting ${acting}`);
  };
  for (const r of replicas) r.elector.start();
  for (const x of ops) {
    if (x.k === 'step') {
      await step(clock, x.ms, check);
      continue;
    }
    const r = replicas[x.i]!;
    if (x.k === 'cut') r.link.failing = true;
    else if (x.k === 'heal') Object.assign(r.link, { failing: false, requestDelayMs: 0, responseDelayMs: 0 });
    else if (x.k === 'delay') Object.assign(r.link, { requestDelayMs: x.requestMs, responseDelayMs: x.responseMs });
    else if (x.k === 'kill') r.elector.stop();
    else if (x.k === 'release') release(r);
    else if (ended(r)) {
      r.elector = newElector(o, r);
      r.elector.start();
    }
    await step(clock, 0, check);
  }
  // Everything healed and running again: someone leads within a lease and a few retries.
  for (const r of replicas) Object.assign(r.link, { failing: false, requestDelayMs: 0, responseDelayMs: 0 });
  // Releases still writing end first (their requests may still be delayed).
  await step(clock, 30_000, check);
  for (const r of replicas)
    if (ended(r)) {
      r.elector = newElector(o, r);
      r.elector.start();
    }
  await step(clock, 60_000, check);
  const { leading } = leaders(replicas);
  if (leading.length !== 1) throw new Error(`after healing, ${leading.length} leaders at ${clock.now()}`);
  return replicas.reduce((n, r) => n + r.terms, 0);
}

describe('leader election under faults', () => {
  for (const count of [2, 3])
    it(`${count} replicas never both lead, and one leads once healed`, async () => {
      let terms = 0;
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(op(count), { maxLength: 40 }), fc.nat(), async (ops, seed) => {
          terms += await run(count, ops, seed);
          runs++;
        }),
        fcParams(200),
      );
      // Histories hand the lead over, not only elect once.
      expect(terms).toBeGreaterThan(runs);
    });
});

/**
 * Waiting for the controller to settle: no handler has work (queued,
 * running, or waiting for a requeue delay), every batch is committed and
 * every write after a commit made, and nothing those writes caused came
 * back as a watch event with more work. Keys waiting out a failure's
 * backoff do not count: a pod whose address cannot be had stays so.
 *
 * Not part of the controller: it observes it through `queued`,
 * `queuesQuiet`, `pendingWrites` and the committer. The scenario runner
 * needs it in production (a scenario's probes run against the network the
 * controller settled on), as do the benchmarks and the tests.
 */
import type { Controller } from './controller.ts';

/** Rounds of "wait, then look again" before giving up (a controller that never settles is a bug). */
const MAX_ROUNDS = 1000;

/**
 * Resolves once the controller has settled (see the file's header).
 *
 * @example
 * await cluster.create(pod);
 * await settled(controller); // the pod's port is committed and its annotations written
 */
export async function settled(c: Controller): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    await c.queuesQuiet();
    await c.committer.sync();
    const writes = c.pendingWrites();
    if (writes.length > 0) {
      await Promise.allSettled(writes);
      continue;
    }
    // Writes made in the last round come back as watch events: let them arrive.
    await new Promise((r) => setImmediate(r));
    if (c.queued() === 0 && c.pendingWrites().length === 0 && c.committer.stats.pendingRows === 0) return;
  }
}

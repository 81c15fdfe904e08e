/**
 * A sequence from start to verdict: the ops applied to a fresh cluster while
 * a controller works (crashed and restarted where the ops say), then settled,
 * then every invariant (invariants.ts) checked. `checkSequence` is what the
 * property and the regression tests call; `assertSequences` runs fast-check
 * over random sequences and, on a failure, prints the shrunk sequence as a
 * literal for regressions.test.ts.
 */
import fc from 'fast-check';
import type { Backend } from '../../backends/backend.ts';
import { SimBackend } from '../../backends/sim/index.ts';
import { Harness, totals } from './harness.ts';
import {
  diffAllocations,
  diffTopologies,
  duplicateAddresses,
  excuseKeptSubnets,
  finalObjects,
  fromScratch,
  ownerless,
  podsWithoutNetwork,
} from './invariants.ts';
import { type Op, sequenceArb, showOps } from './ops.ts';

export interface Verdict {
  readonly violations: readonly string[];
  /** Differences from scratch excused by a refused Subnet kept (invariants.ts, excuseKeptSubnets), with their cause. */
  readonly excused: readonly string[];
}

/** Runs `ops` on a new cluster and `backend` (default: a new simulator backend), and checks every invariant. */
export async function checkSequence(
  ops: readonly Op[],
  seed = 1,
  backend: Backend = new SimBackend(),
): Promise<Verdict> {
  totals.sequences++;
  const h = await Harness.create(backend, seed);
  const violations: string[] = [];
  const excused: string[] = [];
  try {
    for (const op of ops) await h.apply(op);
    await h.settle();
    const c = h.controller;
    const t = await h.backend.read();
    const scratch = await fromScratch(await finalObjects(h.cluster), seed);
    try {
      const label = (name: string, found: string[]) => violations.push(...found.map((v) => `${name}: ${v}`));
      const rows = await excuseKeptSubnets(c, h.cluster, diffTopologies(t, await scratch.backend.read()));
      excused.push(...rows.excused);
      label(
        'incremental = from scratch',
        rows.kept.map((d) => d.text),
      );
      label('allocations = from scratch', await diffAllocations(h.cluster, scratch.cluster));
      label('no address twice', await duplicateAddresses(c, h.cluster));
      label('every pod its network', await podsWithoutNetwork(c, h.cluster, t));
      label('nothing without an owner', await ownerless(c, h.cluster, t));
    } finally {
      await scratch.stop();
    }
  } catch (err) {
    violations.push(`the run failed: ${(err as Error).stack ?? String(err)}`);
  } finally {
    const f = h.faults.counts;
    totals.dup += f.dup;
    totals.held += f.held;
    totals.dropped += f.dropped;
    totals.relists += f.relists;
    await h.stop().catch((err: unknown) => violations.push(`the last stop failed: ${String(err)}`));
  }
  if (excused.length > 0) {
    totals.excusedRows += excused.length;
    totals.excusedSequences++;
  }
  return { violations, excused };
}

export class SequenceFailed extends Error {
  override readonly name = 'SequenceFailed';
  readonly code = 'sequence-failed';
}

/**
 * Random sequences of up to `maxLength` ops, `params` from fcParams (seed and
 * runs); throws with the shrunk sequence and its violations.
 */
export async function assertSequences(
  params: fc.Parameters<[Op[]]>,
  maxLength: number,
  backend: () => Promise<Backend> | Backend = () => new SimBackend(),
): Promise<void> {
  const before = { sequences: totals.sequences, excused: totals.excusedSequences };
  const out = await fc.check(
    fc.asyncProperty(sequenceArb(maxLength), async (ops) => {
      const be = await backend();
      try {
        const v = await checkSequence(ops, params.seed ?? 1, be);
        if (v.violations.length > 0) throw new SequenceFailed(v.violations.join('\n'));
      } finally {
        await be.close();
      }
    }),
    params,
  );
  if (!out.failed) {
    const ran = totals.sequences - before.sequences;
    const withExcuse = totals.excusedSequences - before.excused;
    // Excuses are for the odd sequence that refuses a subnet it had accepted, never a way to pass.
    if (withExcuse * 10 > ran)
      throw new SequenceFailed(
        `model-based: ${withExcuse} of ${ran} sequences needed an excuse (refused subnets kept), more than 10%`,
      );
    return;
  }
  const [ops] = out.counterexample ?? [[]];
  const why = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
  const msg =
    `model-based: a sequence broke an invariant (seed ${out.seed}, path ${out.counterexamplePath}, ` +
    `shrunk ${out.numShrinks} times)\n\nsequence (paste into regressions.test.ts):\n${showOps(ops)}\n\nviolations:\n${why}`;
  console.error(msg);
  throw new SequenceFailed(msg);
}

/** The line the closing note quotes. */
export function summary(label: string): string {
  const t = totals;
  return (
    `model-based (${label}): ${t.sequences} sequences, ${t.events} events, ${t.crashes} crashes and ${t.restarts} restarts; ` +
    `watch events ${t.dup} duplicated, ${t.held} held back, ${t.dropped} dropped (${t.relists} relists); ` +
    `excused: ${t.excusedRows} rows in ${t.excusedSequences} sequences (refused subnets kept)`
  );
}

/**
 * The contract between a fuzz target and the fuzz runner (`npm run fuzz`).
 *
 * A target lives in a `*.fuzz.ts` file beside the parser it attacks and exports
 * `targets: FuzzTarget[]`. The runner discovers those files, feeds each target
 * `runs` inputs drawn from its arbitrary with a fixed seed, and counts outcomes:
 * `accepted` (the parser gave a value and the target's own checks on it held),
 * `rejected` (a typed, expected error), and anything else, which is a finding: an
 * exception that is not the parser's typed error, a broken round trip, a hang.
 *
 * A target whose arbitrary yields almost only junk proves little, so the runner
 * reports the accepted share per target; aim for a real share of valid input
 * (mutate valid values rather than generate noise).
 *
 * @example
 *   export const targets: FuzzTarget<string>[] = [{
 *     name: 'match/parse-print',
 *     arbitrary: matchText(),
 *     run(text) {
 *       const r = parseMatch(text);
 *       if (!r.ok) return 'rejected';
 *       assertRoundTrip(r.value); // throws on a broken round trip: a finding
 *       return 'accepted';
 *     },
 *   }];
 */
import type { Arbitrary } from 'fast-check';

export type FuzzOutcome = 'accepted' | 'rejected';

export interface FuzzTarget<I = unknown> {
  /** `area/what`, unique across the tree, e.g. `ovsdb/json-rpc-message`. */
  readonly name: string;
  readonly arbitrary: Arbitrary<I>;
  /**
   * Runs the parser on one input. Returns the outcome for expected results and
   * throws for a finding (any exception that escapes is counted as one).
   */
  run(input: I): FuzzOutcome | Promise<FuzzOutcome>;
  /** Runs in CI's short pass (default 300); `--runs` overrides. */
  readonly ciRuns?: number;
}

/**
 * Declares a target with its own input type (a file's `targets` list holds
 * targets of different input types).
 *
 * @example export const targets = [fuzzTarget({ name: 'x/y', arbitrary: fc.string(), run: (s) => ... })];
 */
export function fuzzTarget<I>(t: FuzzTarget<I>): FuzzTarget {
  return t as FuzzTarget;
}

/**
 * fast-check parameters shared by every property test: a fixed seed in CI,
 * overridable for exploration.
 *
 *   FC_SEED=123 FC_NUM_RUNS=10000 npx vitest run model/ipam
 *
 * `KOVN_SEED` is accepted as an alias of FC_SEED (the `--seed` knob of
 * `scripts/test-all.mjs`).
 */
import type { Parameters } from 'fast-check';

export const DEFAULT_SEED = 20231103;

export function fcSeed(): number {
  const raw = process.env.FC_SEED ?? process.env.KOVN_SEED;
  return raw === undefined ? DEFAULT_SEED : Number(raw);
}

/** @param numRuns the default number of cases for this property when FC_NUM_RUNS is unset. */
export function fcParams<T = unknown>(numRuns = 100): Parameters<T> {
  const env = process.env.FC_NUM_RUNS;
  return { seed: fcSeed(), numRuns: env === undefined ? numRuns : Number(env) };
}

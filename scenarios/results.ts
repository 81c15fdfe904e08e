/**
 * How a probe result reads for a person, the same on a terminal and in the
 * HTML report. Small on purpose: the CLI loads it for every command.
 */
import type { ProbeResult } from './run.ts';

/** What a result is, for a person: `ok`, `FAIL`, or `UNSURE` (never passing). */
export const resultStatus = (r: Pick<ProbeResult, 'ok' | 'unsure'>): 'ok' | 'FAIL' | 'UNSURE' =>
  r.unsure !== undefined ? 'UNSURE' : r.ok ? 'ok' : 'FAIL';

/** Failing results first, then unsure ones, then the rest (the terminal table and the report alike). */
export const resultRank = (r: Pick<ProbeResult, 'ok' | 'unsure'>): number =>
  ({ FAIL: 0, UNSURE: 1, ok: 2 })[resultStatus(r)];

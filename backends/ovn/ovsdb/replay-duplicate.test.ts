/** isReplayedDuplicate: which errors of a replayed transaction mean "the first attempt committed". */
import { describe, expect, it } from 'vitest';
import { isReplayedDuplicate } from './session.ts';
import { serverError } from './wire/errors.ts';

describe('isReplayedDuplicate', () => {
  it.each([
    ['timed out', true],
    ['constraint violation', true],
    ['duplicate uuid', true],
    ['referential integrity violation', false],
    ['not leader', false],
  ])('%s on a replay → %s, never without one', (error, want) => {
    expect(isReplayedDuplicate(serverError({ error }, { opIndex: 1, replayed: true }))).toBe(want);
    expect(isReplayedDuplicate(serverError({ error }, { opIndex: 1 }))).toBe(false);
  });
});

/** isUuid is a hand-written loop for speed: it must agree with UUID_RE everywhere. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../../../test/fc.ts';
import { UUID_RE, isUuid } from './atom.ts';

describe('isUuid', () => {
  it('agrees with UUID_RE on uuids, near-uuids and arbitrary strings', () => {
    const nearUuid = fc.stringMatching(/^[0-9a-fA-FgG-]{35,37}$/);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uuid(),
          fc.uuid().map((u) => u.toUpperCase()),
          nearUuid,
          fc.string(),
        ),
        (s) => {
          expect(isUuid(s)).toBe(UUID_RE.test(s));
        },
      ),
      fcParams(2000),
    );
    expect(isUuid('0000000a-000b-000c-000d-00000000000e')).toBe(true);
    expect(isUuid('0000000a-000b-000c-000d-00000000000e ')).toBe(false);
    expect(isUuid('0000000a0000b-000c-000d-00000000000e')).toBe(false);
  });
});

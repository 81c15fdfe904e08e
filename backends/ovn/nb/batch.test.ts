/**
 * Batch bookkeeping without a server: which plan operation a commit-time
 * error's row uuid belongs to.
 */
import { describe, expect, it } from 'vitest';
import type { OpBuilder } from '../ovsdb/index.ts';
import { Batch } from './batch.ts';
import type { NbView } from './view.ts';

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';
const U3 = '33333333-3333-4333-8333-333333333333';

function batch(): Batch {
  // ownerNamedIn reads neither the builder nor the view.
  return new Batch({} as OpBuilder, {} as NbView, new Map(), () => U1);
}

describe('Batch.ownerNamedIn', () => {
  it('names the plan operation that inserted the row, or the first that touched it', () => {
    const b = batch();
    b.begin(4, () => ({}));
    b.inserted('switch', 'ls', U1, 4);
    b.begin(5, () => ({}));
    b.touches(U2, 5);
    b.begin(6, () => ({}));
    b.touches(U2, 6);
    expect(b.ownerNamedIn(`referential integrity violation: row ${U1} is referenced`)).toBe(4);
    expect(b.ownerNamedIn(`row ${U2} missing`)).toBe(5);
    // The first uuid of the text that the batch knows.
    expect(b.ownerNamedIn(`rows ${U3} and ${U2} and ${U1}`)).toBe(5);
    expect(b.ownerNamedIn(`row ${U3}`)).toBeUndefined();
    expect(b.ownerNamedIn(undefined)).toBeUndefined();
  });
});

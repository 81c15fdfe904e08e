/**
 * The external_ids encoding (owner tag, identity key, shadow keys) and the
 * column comparison used to send only changed columns. Pure, no server.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../../test/fc.ts';
import { nativeEqual } from './ops.ts';
import { OvnBackendError } from './errors.ts';
import { decodeIds, encodeIds, isOwned } from './tables.ts';

describe('external_ids encoding', () => {
  it('round-trips any model ids, including a model vendor, and always tags the row as kovn', () => {
    const ids = fc.dictionary(
      fc.oneof(
        fc.constantFrom('vendor', 'np', 'pod'),
        fc.string({ minLength: 1 }).filter((k) => !k.startsWith('kovn-')),
      ),
      fc.string(),
    );
    fc.assert(
      fc.property(ids, fc.string(), fc.subarray(['label', 'externalPortRange']), (model, key, explicit) => {
        const nb = encodeIds(model, { 'kovn-key': key }, explicit, () => 'acl k');
        expect(isOwned({ external_ids: nb })).toBe(true);
        expect(nb['kovn-key']).toBe(key);
        const back = decodeIds(nb);
        expect(back.externalIds).toEqual(model);
        expect([...back.explicit].sort()).toEqual([...explicit].sort());
      }),
      fcParams(200),
    );
  });

  it('rejects the keys kovn reserves, naming the row', () => {
    expect(() => encodeIds({ 'kovn-key': 'x' }, {}, [], () => 'switch "ls0"')).toThrow(OvnBackendError);
    expect(() => encodeIds({ 'kovn-explicit': 'x' }, {}, [], () => 'switch "ls0"')).toThrow(
      /switch "ls0".*kovn-explicit.*reserved/,
    );
  });

  it('a model vendor is kept aside, NB vendor stays kovn', () => {
    expect(encodeIds({ vendor: 'kube-ovn' }, {}, [], () => '')).toEqual({ vendor: 'kovn', 'kovn-vendor': 'kube-ovn' });
    expect(decodeIds({ vendor: 'kovn', 'kovn-vendor': 'kube-ovn', a: 'b' }).externalIds).toEqual({
      vendor: 'kube-ovn',
      a: 'b',
    });
  });
});

describe('nativeEqual (OVSDB column semantics)', () => {
  it.each([
    [['a', 'b'], ['b', 'a'], true],
    [['a', 'a'], ['a'], true],
    [['a'], ['a', 'b'], false],
    [undefined, [], true],
    [undefined, {}, true],
    [{ x: '1' }, { x: '1', y: undefined }, true],
    [{ x: '1' }, { x: '2' }, false],
    [{ dscp: 0 }, {}, false],
    [undefined, 'x', false],
    [0, undefined, false],
    [true, true, true],
  ])('%j vs %j → %s', (a, b, want) => {
    expect(nativeEqual(a, b)).toBe(want);
    expect(nativeEqual(b, a)).toBe(want);
  });
});

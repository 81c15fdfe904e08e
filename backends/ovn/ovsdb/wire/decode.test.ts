import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fcParams } from '../../../../test/fc.ts';
import { columnTypeArb, nativeValueArb, valueArb } from '../testing/wire-arbitraries.ts';
import { nativeDecoder } from './decode.ts';
import { type Value, emitValue, fromNative, nativeEncoder, parseValue, toNative } from './datum.ts';
import { OvsdbProtocolError, OvsdbValueError } from './errors.ts';
import { parseColumnType, type ColumnType } from './schema.ts';

/** What `f` returns, or the class of what it throws. */
function outcome(f: () => unknown): { ok: unknown } | { threw: string } {
  try {
    return { ok: f() };
  } catch (e) {
    return { threw: (e as Error).constructor.name };
  }
}

const viaJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

/** Wire JSON for a column: well-typed values, arbitrary wire values, and arbitrary JSON. */
const jsonFor = (type: ColumnType) =>
  fc.oneof(
    nativeValueArb(type).map((n) => viaJson(emitValue(fromNative(type, n, 'c')))),
    valueArb.map((v) => viaJson(emitValue(v))),
    fc.jsonValue(),
  );

describe('nativeDecoder', () => {
  it('gives what toNative(parseValue(json)) gives, or throws OvsdbProtocolError when it does', () => {
    fc.assert(
      fc.property(
        columnTypeArb.chain((type) => fc.tuple(fc.constant(type), jsonFor(type))),
        ([type, json]) => {
          const want = outcome(() => toNative(type, parseValue(json, 'T.c'), 'T.c'));
          const got = outcome(() => nativeDecoder(type)(json, 'T.c'));
          expect(got).toEqual(want);
          if ('threw' in want) expect(want.threw).toBe(OvsdbProtocolError.name);
          if ('ok' in got && typeof got.ok === 'object' && got.ok !== null) expect(Object.isFrozen(got.ok)).toBe(true);
        },
      ),
      fcParams(1000),
    );
  });

  it('keeps "__proto__" map keys as data and sorts sets', () => {
    const map = nativeDecoder(parseColumnType({ key: 'string', value: 'string', min: 0, max: 'unlimited' }));
    const m = map(JSON.parse('["map", [["__proto__", "x"], ["a", "b"]]]'), 'T.m') as Record<string, string>;
    expect(Object.hasOwn(m, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
    expect(Object.entries(m)).toEqual([
      ['__proto__', 'x'],
      ['a', 'b'],
    ]);
    const set = nativeDecoder(parseColumnType({ key: 'integer', min: 0, max: 'unlimited' }));
    expect(set(['set', [3, 1, 2]], 'T.s')).toEqual([1, 2, 3]);
  });
});

describe('nativeEncoder', () => {
  /** OpBuilder.row's per-column rule before encoders: omit a required column left undefined. */
  const generic = (type: ColumnType, native: unknown): Value | undefined =>
    native === undefined && type.min > 0 ? undefined : fromNative(type, native, 'T.c');

  it('gives what fromNative gives (the same JSON), or throws OvsdbValueError when it does', () => {
    const anyNative = (type: ColumnType) =>
      fc.oneof(
        nativeValueArb(type),
        fc.anything(),
        fc.array(fc.string(), { maxLength: 3 }),
        fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
      );
    fc.assert(
      fc.property(
        columnTypeArb.chain((type) => fc.tuple(fc.constant(type), anyNative(type))),
        ([type, native]) => {
          const emit = (v: Value | undefined) => (v === undefined ? undefined : viaJson(emitValue(v)));
          const want = outcome(() => emit(generic(type, native)));
          expect(outcome(() => emit(nativeEncoder(type, 'T.c')(native)))).toEqual(want);
          if ('threw' in want) expect(want.threw).toBe(OvsdbValueError.name);
        },
      ),
      fcParams(1000),
    );
  });
});

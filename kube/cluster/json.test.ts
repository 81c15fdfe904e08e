import { describe, expect, it } from 'vitest';
import { deepFreeze, jsonEqual, mergePatch } from './json.ts';

describe('mergePatch (RFC 7386)', () => {
  // The test cases of RFC 7386, appendix A.
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  it.each(cases)('%j + %j', (target, patch, want) => {
    expect(mergePatch(target, patch)).toEqual(want);
  });

  it('does not modify its arguments', () => {
    const target = { a: { b: 1 } };
    const patch = { a: { b: null, c: 2 } };
    mergePatch(target, patch);
    expect(target).toEqual({ a: { b: 1 } });
    expect(patch).toEqual({ a: { b: null, c: 2 } });
  });
});

describe('jsonEqual', () => {
  it('treats undefined properties as absent and compares deeply', () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: [1, { x: 'y' }] }, { a: [1, { x: 'y' }] })).toBe(true);
    expect(jsonEqual({ a: [1, { x: 'y' }] }, { a: [1, { x: 'z' }] })).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual(undefined, {})).toBe(false);
  });
});

describe('deepFreeze', () => {
  it('freezes nested objects and arrays', () => {
    const o = deepFreeze({ a: { b: [{ c: 1 }] } });
    expect(Object.isFrozen(o.a.b[0])).toBe(true);
    expect(() => {
      (o.a.b as { c: number }[]).push({ c: 2 });
    }).toThrow(TypeError);
  });
});

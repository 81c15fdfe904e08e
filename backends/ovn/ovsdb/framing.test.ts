import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fcParams } from '../../../test/fc.ts';
import { JsonSplitter } from './framing.ts';
import { OvsdbProtocolError } from './wire/errors.ts';
import { preview } from './wire/json.ts';

/** Strings biased toward what breaks naive splitters: braces, quotes, backslashes, multi-byte UTF-8. */
const trickyString = fc.string({
  unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', '\\"', '\\\\', 'a', ' ', 'é', '€', '😀', '\n', '\u0000', '𝄞'),
  maxLength: 12,
});
const leaf = fc.oneof(
  trickyString,
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('tree'), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(trickyString, fc.string({ maxLength: 5 })), tie('tree'), { maxKeys: 4 }),
}));
/** Top-level values are containers (JSON-RPC messages are objects). */
const message = fc.oneof(
  fc.dictionary(trickyString, tree, { maxKeys: 4 }),
  fc.array(tree, { maxLength: 4 }),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
);
const whitespace = fc.constantFrom('', '', ' ', '\n', '\r\n', '\t ');

/** Splits `bytes` at the given cut points. */
function chunk(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  out.push(bytes.subarray(prev));
  return out;
}

describe('JsonSplitter', () => {
  it('random values, concatenated, re-chunked at random bytes → the same values', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(message, whitespace), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (values, cuts) => {
          const text = values.map(([v, ws]) => JSON.stringify(v) + ws).join('');
          const bytes = Buffer.from(text, 'utf8');
          const s = new JsonSplitter();
          const got = chunk(bytes, cuts).flatMap((c) => s.push(c));
          expect(got).toEqual(values.map(([v]) => JSON.parse(JSON.stringify(v))));
          expect(s.pending).toBe(false);
        },
      ),
      fcParams(500),
    );
  });

  it('byte-at-a-time delivery of multi-byte characters and escapes', () => {
    const v = { s: '€😀 "q" \\ {[}]', t: ['\\"', '}'] };
    const bytes = Buffer.from(JSON.stringify(v) + JSON.stringify([v]), 'utf8');
    const s = new JsonSplitter();
    const got: unknown[] = [];
    for (let i = 0; i < bytes.length; i++) got.push(...s.push(bytes.subarray(i, i + 1)));
    expect(got).toEqual([v, [v]]);
  });

  it('many values in one read', () => {
    const s = new JsonSplitter();
    expect(s.push(Buffer.from('{"a":1}{"b":"}"}\n[2]'))).toEqual([{ a: 1 }, { b: '}' }, [2]]);
  });

  it('does not depend on the caller keeping its read buffer', () => {
    const s = new JsonSplitter();
    const buf = Buffer.from('{"a":"xy');
    expect(s.push(buf)).toEqual([]);
    buf.fill(0x20);
    expect(s.push(Buffer.from('z"}'))).toEqual([{ a: 'xyz' }]);
  });

  it('rejects bytes outside a value and invalid JSON with OvsdbProtocolError', () => {
    expect(() => new JsonSplitter().push(Buffer.from('{} x'))).toThrow(OvsdbProtocolError);
    expect(() => new JsonSplitter().push(Buffer.from('{"a" 1}'))).toThrow(/invalid JSON/);
    expect(() => new JsonSplitter({ maxMessageBytes: 4 }).push(Buffer.from('{"aaaaaa'))).toThrow(/larger than/);
  });
});

describe('hostile nesting and keys in error previews (issue 8, defect 3)', () => {
  it('preview never recurses without bound nor calls a peer-chosen toString', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(preview(deep)).toMatch(/^\[\[\[/);
    expect(preview(JSON.parse('{"toString":1,"a":[[[1]]]}'))).toBe('{"toString":1,"a":[[[1]]]}');
    expect(preview({ a: 'x'.repeat(500) }).length).toBeLessThanOrEqual(80);
  });

  it('a message nested past the limit is a typed protocol error at framing', () => {
    const s = new JsonSplitter();
    const text = `{"id":1,"result":${'['.repeat(4102)}${']'.repeat(4102)},"error":null}`;
    expect(() => s.push(Buffer.from(text))).toThrow(/nested deeper than 64 levels/);
    // 64 levels pass, in any chunking.
    const ok = new JsonSplitter();
    const at64 = `${'['.repeat(64)}${']'.repeat(64)}`;
    expect([...ok.push(Buffer.from(at64.slice(0, 40))), ...ok.push(Buffer.from(at64.slice(40)))]).toHaveLength(1);
  });
});

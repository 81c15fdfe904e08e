/**
 * Mutators for fuzz targets: start from valid input and break it a little,
 * so a target sees a real share of input its parser accepts and the rest
 * close to it (the inputs that find bugs), not only noise.
 */
import fc from 'fast-check';

/** Text: as is, with one small edit (insert, delete, duplicate, replace), or several. */
export function mutatedText(valid: fc.Arbitrary<string>, noise = fc.string({ maxLength: 40 })): fc.Arbitrary<string> {
  const edit = (s: string) =>
    fc
      .tuple(
        fc.nat(),
        fc.nat({ max: 8 }),
        fc.oneof(
          noise,
          fc.constantFrom('"', '\\', '(', ')', '{', '}', '\u0000', '&&', '||', '$', '@', '.', ':', '/', '..'),
        ),
        fc.nat({ max: 3 }),
      )
      .map(([at, len, ins, kind]) => {
        const i = s.length === 0 ? 0 : at % (s.length + 1);
        if (kind === 0) return s.slice(0, i) + ins + s.slice(i);
        if (kind === 1) return s.slice(0, i) + s.slice(i + len);
        if (kind === 2) return s.slice(0, i) + s.slice(i, i + len).repeat(2) + s.slice(i + len);
        return s.slice(0, i) + ins + s.slice(i + len);
      });
  return fc.oneof(
    { weight: 5, arbitrary: valid },
    { weight: 4, arbitrary: valid.chain(edit) },
    { weight: 1, arbitrary: valid.chain(edit).chain(edit).chain(edit) },
    { weight: 1, arbitrary: noise },
  );
}

/** JSON values a hostile or broken peer might send in place of a valid one. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    0,
    -1,
    Number.POSITIVE_INFINITY,
    1.5,
    '',
    'x',
    [],
    {},
    ['set'],
    ['map', [[]]],
    ['uuid', 'not-a-uuid'],
  ),
  fc.integer({ min: 1, max: 1500 }).map((n) => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`)),
  fc
    .constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty')
    .map((k) => JSON.parse(`{"${k}": {"a": 1}}`)),
  fc.jsonValue(),
);

/** Replaces one node of a JSON value (chosen by a path drawn at random) with hostile JSON. */
export function mutatedJson(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const replaceAt = (v: unknown, pick: number, by: unknown): unknown => {
    const nodes: { parent: unknown; key: string | number }[] = [];
    const walk = (x: unknown, depth: number) => {
      if (typeof x !== 'object' || x === null || depth > 20) return;
      for (const k of Object.keys(x)) {
        const key = Array.isArray(x) ? Number(k) : k;
        nodes.push({ parent: x, key });
        walk((x as Record<string, unknown>)[k], depth + 1);
      }
    };
    const copy = structuredClone(v);
    walk(copy, 0);
    if (nodes.length === 0) return by;
    const n = nodes[pick % nodes.length]!;
    Object.defineProperty(n.parent, n.key, { value: by, enumerable: true, writable: true, configurable: true });
    return copy;
  };
  return fc.oneof(
    { weight: 5, arbitrary: valid },
    { weight: 5, arbitrary: fc.tuple(valid, fc.nat(), hostileJson).map(([v, p, by]) => replaceAt(v, p, by)) },
  );
}

/** JSON text, sometimes truncated or with a byte flipped, sometimes buried thousands of levels deep. */
export function mutatedJsonText(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  const text = mutatedText(
    mutatedJson(valid).map((v) => JSON.stringify(v) ?? 'null'),
    fc.string({ maxLength: 8 }),
  );
  return fc.oneof(
    { weight: 9, arbitrary: text },
    {
      weight: 1,
      arbitrary: fc
        .tuple(text, fc.integer({ min: 60, max: 6000 }))
        .map(([t, n]) => `${'['.repeat(n)}${t}${']'.repeat(n)}`),
    },
  );
}

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fcParams } from '../../test/fc.ts';
import { matchExprArbitrary, matchTokenSoupArbitrary } from './arbitrary.ts';
import type { MatchExpr } from './ast.ts';
import { MatchParseError } from './errors.ts';
import { parseMatch } from './parser.ts';
import { printMatch, quoteString } from './printer.ts';

describe('printMatch', () => {
  it.each([
    ['ip4.src==10.16.0.0/255.255.0.0&&tcp.dst>=80', 'ip4.src == 10.16.0.0/16 && tcp.dst >= 80'],
    ['  ip4  &&(tcp||udp)', 'ip4 && (tcp || udp)'],
    ['(ip4 && tcp) && udp', '(ip4 && tcp) && udp'],
    ['ip4.dst=={10.0.0.1 10.0.0.2,}', 'ip4.dst == {10.0.0.1, 10.0.0.2}'],
    ['!(tcp.dst==80)', '!(tcp.dst == 80)'],
    ['!(!ct.new)', '!(!ct.new)'],
    ['!((ct.new))', '!ct.new'],
    ['eth.src == 0A:58:0A:10:00:05', 'eth.src == 0a:58:0a:10:00:05'],
    ['ip6.dst == 2001:0DB8::0001/64', 'ip6.dst == 2001:db8::/64'],
    ['ip6.dst == ::/::', 'ip6.dst == ::/0'],
    ['tcp.dst == 0x0050', 'tcp.dst == 0x50'],
    ['reg0 == 0x0', 'reg0 == 0x0'],
    ['reg0 == 5/3', 'reg0 == 1/3'],
    ['vlan.tci[13] == 1 && reg0[0..3] != 0', 'vlan.tci[13] == 1 && reg0[0..3] != 0'],
    ['inport == "tab\\there" && outport == "q\\"\\\\"', 'inport == "tab\\there" && outport == "q\\"\\\\"'],
    ['10 < tcp.dst', 'tcp.dst > 10'],
    ['is_chassis_resident ( "cr" )', 'is_chassis_resident("cr")'],
  ])('%s → %s', (input, canonical) => {
    expect(printMatch(parseMatch(input))).toBe(canonical);
  });

  it('escapes strings as OVS serializes JSON', () => {
    expect(quoteString('a"\\\b\f\n\r\t\u0001\u001fé')).toBe('"a\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001fé"');
  });

  it('prints hand-built ASTs the parser reads back', () => {
    const e: MatchExpr = {
      kind: 'not',
      expr: {
        kind: 'or',
        args: [
          {
            kind: 'range',
            field: { name: 'udp.dst' },
            low: { value: { kind: 'int', value: 53n, format: 'decimal' }, inclusive: false },
            high: { value: { kind: 'address-set', name: 'hi' }, inclusive: true },
          },
          {
            kind: 'and',
            args: [
              { kind: 'bool', value: true },
              { kind: 'not', expr: { kind: 'not', expr: { kind: 'field', field: { name: 'ct.est' } } } },
            ],
          },
        ],
      },
    };
    expect(printMatch(e)).toBe('!(53 < udp.dst <= $hi || (1 && !(!ct.est)))');
    expect(parseMatch(printMatch(e))).toEqual(e);
  });
});

describe('round trip and fuzzing (properties)', () => {
  it('parseMatch(printMatch(ast)) deep-equals ast', () => {
    fc.assert(
      fc.property(matchExprArbitrary(), (e) => {
        expect(parseMatch(printMatch(e))).toEqual(e);
      }),
      fcParams(300),
    );
  });

  it('printing is a fixed point: print(parse(print(ast))) === print(ast)', () => {
    fc.assert(
      fc.property(matchExprArbitrary(), (e) => {
        const text = printMatch(e);
        expect(printMatch(parseMatch(text))).toBe(text);
      }),
      fcParams(200),
    );
  });

  const onlyMatchParseError = (text: string) => {
    try {
      const e = parseMatch(text);
      // Whatever parses, prints to text that parses to the same AST.
      expect(parseMatch(printMatch(e))).toEqual(e);
    } catch (err) {
      if (!(err instanceof MatchParseError)) throw err;
      expect(err.position).toBeGreaterThanOrEqual(0);
      expect(err.position).toBeLessThanOrEqual(text.length);
    }
  };

  it('throws nothing but MatchParseError on arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60, unit: 'binary' }), onlyMatchParseError), fcParams(1000));
  });

  it('throws nothing but MatchParseError on token soup', () => {
    fc.assert(fc.property(matchTokenSoupArbitrary(), onlyMatchParseError), fcParams(2000));
  });

  it('throws nothing but MatchParseError on mutations of valid matches', () => {
    const mutated = fc
      .tuple(
        matchExprArbitrary({ depth: 2 }),
        fc.nat(),
        fc.nat({ max: 4 }),
        fc.constantFrom('', ' ', '!', '(', ')', '&&', '||', '"', '{', '$', '/', '..', '0x'),
      )
      .map(([e, at, cut, insert]) => {
        const t = printMatch(e);
        const i = at % (t.length + 1);
        return t.slice(0, i) + insert + t.slice(i + cut);
      });
    fc.assert(fc.property(mutated, onlyMatchParseError), fcParams(1000));
  });
});

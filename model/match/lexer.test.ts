import { describe, expect, it } from 'vitest';
import { type Token, nextToken, tokenize, unescapeJsonString } from './lexer.ts';
import { printInt, printMatch } from './printer.ts';
import { tryParseMatch } from './parser.ts';

/** Tokens rendered the way OVN's lexer test prints them (tests/ovn.at "lexer"). */
function render(t: Token): string {
  switch (t.type) {
    case 'id':
      return t.text ?? '';
    case 'string':
      return JSON.stringify(t.text);
    case 'int':
      return printInt({
        kind: 'int',
        value: t.value ?? 0n,
        format: t.format ?? 'decimal',
        ...(t.mask === undefined ? {} : { mask: t.mask }),
      });
    case 'address-set':
      return `$${t.text}`;
    case 'port-group':
      return `@${t.text}`;
    case 'template':
      return `^${t.text}`;
    case 'error':
      return `error(${t.code})`;
    default:
      return t.type;
  }
}

const lex = (s: string) =>
  tokenize(s)
    .filter((t) => t.type !== 'end')
    .map(render)
    .join(' ');

describe('lexer', () => {
  it.each([
    ['foo bar baz quuxquuxquux _abcd_ a.b.c.d a123_.456', 'foo bar baz quuxquuxquux _abcd_ a.b.c.d a123_.456'],
    ['"abc\\u0020def"', '"abc def"'],
    ['$foo $a.b.c.d $a123_.456 @pg.x_1', '$foo $a.b.c.d $a123_.456 @pg.x_1'],
    ['a/*b*/c', 'a c'],
    ['a//b c', 'a'],
    ['a/**/b', 'a b'],
    ['a/*/**/b', 'a b'],
    ['0 1 12345 18446744073709551615', '0 1 12345 18446744073709551615'],
    ['0/0 0/1 1/0 1/1 128/384 1/3', '0/0 0/1 0/0 1/1 128/384 1/3'],
    ['0x1234 0x01234 0x0 0XFEDCBA9876543210', '0x1234 0x1234 0x0 0xfedcba9876543210'],
    ['0x0/0x1 0x1/0x0 0xffff/0x1ffff', '0x0/0x1 0x0/0x0 0xffff/0x1ffff'],
    ['192.168.128.1 1.2.3.4 255.255.255.255 0.0.0.0', '192.168.128.1 1.2.3.4 255.255.255.255 0.0.0.0'],
    [
      '192.168.0.0/16 192.168.0.0/255.255.0.0 192.168.0.0/255.255.0.255',
      '192.168.0.0/16 192.168.0.0/16 192.168.0.0/255.255.0.255',
    ],
    ['192.168.0.0/255.0.0.0 192.168.0.2/30 192.168.0.2/24', '192.0.0.0/8 192.168.0.0/30 192.168.0.0/24'],
    ['1.2.3.4:5', '1.2.3.4 : 5'],
    [':: ::1 ff00::1234 2001:0db8:85a3:0000:0000:8a2e:0370:7334', ':: ::1 ff00::1234 2001:db8:85a3::8a2e:370:7334'],
    [
      '::ffff:c000:0280 ::1/::1 ::1/ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ff00::/ff00::',
      '::ffff:192.0.2.128 ::1/::1 ::1/128 ff00::/8',
    ],
    ['01:23:45:67:AB:CD fe:ff:ff:ff:ff:ff/ff:ff:ff:ff:ff:ff', '01:23:45:67:ab:cd fe:ff:ff:ff:ff:ff/ff:ff:ff:ff:ff:ff'],
    ['ff:ff:ff:ff:ff:ff/fe:ff:ff:ff:ff:ff', 'fe:ff:ff:ff:ff:ff/fe:ff:ff:ff:ff:ff'],
    ['(){}[[]]==!=<<=>>=!&&||..,;=<->--:', '( ) { } [ [ ] ] == != < <= > >= ! && || .. , ; = <-> -- :'],
    ['tcp.dst[0..15]', 'tcp.dst [ 0 .. 15 ]'],
    ['eth.src==0a:58:0a:10:00:05', 'eth.src == 0a:58:0a:10:00:05'],
  ])('%s', (input, expected) => {
    expect(lex(input)).toBe(expected);
  });

  it.each([
    ['"', 'unterminated-string', 0],
    ['$1', 'invalid-name', 0],
    ['a/*/b', 'unterminated-comment', 1],
    ['a/b', 'invalid-operator', 1],
    ['18446744073709551616', 'decimal-too-large', 0],
    ['9999999999999999999999', 'decimal-too-large', 0],
    ['01', 'decimal-leading-zero', 0],
    ['1/', 'invalid-number', 0],
    ['1/0x123', 'mask-format-mismatch', 0],
    ['0x', 'invalid-hex', 0],
    ['0x.', 'invalid-hex', 0],
    [`0x1${'0'.repeat(256)}`, 'hex-too-large', 0],
    ['256.1.2.3', 'invalid-number', 0],
    ['fe:x', 'invalid-number', 0],
    ['00:01:02:03:04:x', 'invalid-number', 0],
    ['&', 'invalid-operator', 0],
    ['|', 'invalid-operator', 0],
    ['^', 'invalid-name', 0],
    ['x é', 'invalid-character', 2],
    ['"\\q"', 'invalid-string-escape', 0],
    ['"\\u0000"', 'invalid-string-escape', 0],
    ['"\\ud800x"', 'invalid-string-escape', 0],
    ['10.0.0.0/33', 'mask-format-mismatch', 0],
  ])('rejects %j with %s at %d', (input, code, position) => {
    const last = tokenize(input).at(-1);
    expect(last).toMatchObject({ type: 'error', code, start: position });
  });

  it('keeps a hex zero with a decimal zero value as hexadecimal (0/0x1234)', () => {
    expect(nextToken('0/0x1234', 0)).toMatchObject({ type: 'int', format: 'hex', value: 0n, mask: 0x1234n });
  });

  it('reads a decimal prefix length through 32 bits, as OVN does', () => {
    expect(nextToken('10.0.0.0/4294967304', 0)).toMatchObject({ type: 'int', mask: 0xff000000n });
  });

  it('tells identifiers from hex-led addresses', () => {
    expect(tokenize('eth.dst fe80::1 dead:beef:: abc').map((t) => t.type)).toEqual(['id', 'int', 'int', 'id', 'end']);
  });

  it('records token offsets', () => {
    expect(tokenize('  ip4 /* x */ && !ct.new').map((t) => [t.type, t.start, t.end])).toEqual([
      ['id', 2, 5],
      ['&&', 14, 16],
      ['!', 17, 18],
      ['id', 18, 24],
      ['end', 24, 24],
    ]);
  });

  it('unescapes JSON strings as OVS does', () => {
    expect(unescapeJsonString('a\\"b\\\\c\\/d\\b\\f\\n\\r\\t')).toBe('a"b\\c/d\b\f\n\r\t');
    expect(unescapeJsonString('\\ud83d\\ude00')).toBe('\u{1f600}');
    expect(unescapeJsonString('\\udc00')).toBe('\udc00');
    expect(unescapeJsonString('\\u12')).toEqual({ error: 'quoted string ends within \\u escape' });
  });
});

describe('raw NUL in a quoted string (issue 8, defect 5)', () => {
  it('is refused like the \\u0000 escape, so parse(print(x)) holds for everything parse accepts', () => {
    const raw = tryParseMatch('"\u0000" == inport');
    expect(raw.ok).toBe(false);
    if (!raw.ok) expect(raw.error).toMatchObject({ code: 'invalid-string-escape' });
    const escaped = tryParseMatch('inport == "\\u0000"');
    expect(escaped.ok).toBe(false);
    // Other control characters survive the round trip.
    const ok = tryParseMatch('inport == "a\u0001b"');
    expect(ok.ok).toBe(true);
    if (ok.ok) expect(tryParseMatch(printMatch(ok.expr))).toEqual(ok);
  });
});

/**
 * The OVN lexer (lib/lex.c, OVN 23.03) for match text: one token at a time,
 * on demand, so that errors surface in the order OVN's parser meets them.
 * Lexical errors are tokens (`type: 'error'`), as in OVN; the parser throws
 * when it reaches one.
 */
import { tryParseIPv4, tryParseIPv6 } from '../addr/index.ts';
import type { IntFormat } from './ast.ts';
import type { MatchErrorCode } from './errors.ts';

export type PunctType =
  | '('
  | ')'
  | '{'
  | '}'
  | '['
  | ']'
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | '!'
  | '&&'
  | '||'
  | '..'
  | ','
  | ';'
  | '='
  | '<->'
  | '--'
  | ':'
  | '-';

export type TokenType =
  | 'end'
  | 'id'
  | 'string'
  | 'int'
  | 'address-set'
  | 'port-group'
  | 'template'
  | 'error'
  | PunctType;

export interface Token {
  readonly type: TokenType;
  /** Offset of the token's first character (after white space and comments). */
  readonly start: number;
  /** Offset just past the token: where lexing resumes. */
  readonly end: number;
  /** id: the identifier; string: the unescaped value; address-set/port-group/template: the name. */
  readonly text?: string;
  /** int only. */
  readonly value?: bigint;
  readonly mask?: bigint;
  readonly format?: IntFormat;
  /** error only. */
  readonly code?: MatchErrorCode;
  readonly message?: string;
}

const U64 = 1n << 64n;
const MAX_HEX_DIGITS = 256; // OVN's mf_subvalue holds 1024 bits

const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isHex = (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
/** OVN identifiers: letters, `_` and `.`, then also digits. */
export const isIdStart = (c: number) => isAlpha(c) || c === 95 || c === 46;
export const isIdChar = (c: number) => isIdStart(c) || isDigit(c);

const error = (start: number, end: number, code: MatchErrorCode, message: string): Token => ({
  type: 'error',
  start,
  end,
  code,
  message,
});

/**
 * Lexes the token at or after `pos`.
 *
 * @example nextToken('ip4.src == 10.0.0.0/8', 8) // { type: '==', start: 8, end: 10 }
 */
export function nextToken(src: string, pos: number): Token {
  let p = pos;
  for (;;) {
    const c = src.charCodeAt(p);
    if (c === 32 || (c >= 9 && c <= 13)) {
      p++;
    } else if (c === 47 && src.charCodeAt(p + 1) === 47) {
      while (p < src.length && src.charCodeAt(p) !== 10) p++;
    } else if (c === 47 && src.charCodeAt(p + 1) === 42) {
      const close = findCommentEnd(src, p + 2);
      if (close < 0) return error(p, src.length, 'unterminated-comment', '"/*" without matching "*/" on the same line');
      p = close;
    } else {
      break;
    }
  }
  if (p >= src.length) return { type: 'end', start: p, end: p };
  return lexAt(src, p);
}

/** Index just past `*​/`, or -1 when the line or input ends first (OVN has no multi-line comments). */
function findCommentEnd(src: string, p: number): number {
  for (; p < src.length; p++) {
    const c = src.charCodeAt(p);
    if (c === 10) return -1;
    if (c === 42 && src.charCodeAt(p + 1) === 47) return p + 2;
  }
  return -1;
}

const punct = (type: PunctType, start: number, len: number): Token => ({ type, start, end: start + len });

function lexAt(src: string, p: number): Token {
  const c = src[p];
  const n = src[p + 1];
  switch (c) {
    case '(':
    case ')':
    case '{':
    case '}':
    case '[':
    case ']':
    case ',':
    case ';':
      return punct(c, p, 1);
    case '=':
      return n === '=' ? punct('==', p, 2) : punct('=', p, 1);
    case '!':
      return n === '=' ? punct('!=', p, 2) : punct('!', p, 1);
    case '&':
      return n === '&' ? punct('&&', p, 2) : error(p, p + 1, 'invalid-operator', '"&" is only valid as part of "&&"');
    case '|':
      return n === '|' ? punct('||', p, 2) : error(p, p + 1, 'invalid-operator', '"|" is only valid as part of "||"');
    case '<':
      if (n === '=') return punct('<=', p, 2);
      return n === '-' && src[p + 2] === '>' ? punct('<->', p, 3) : punct('<', p, 1);
    case '>':
      return n === '=' ? punct('>=', p, 2) : punct('>', p, 1);
    case '.':
      return n === '.'
        ? punct('..', p, 2)
        : error(p, p + 1, 'invalid-operator', '"." is only valid as part of ".." or a number');
    case '-':
      return n === '-' ? punct('--', p, 2) : punct('-', p, 1);
    case '/':
      return error(p, p + 1, 'invalid-operator', '"/" is only valid as part of "//" or "/*"');
    case '$':
      return lexName(src, p, 'address-set');
    case '@':
      return lexName(src, p, 'port-group');
    case '^':
      return lexName(src, p, 'template');
    case ':':
      return n === ':' ? lexInteger(src, p) : punct(':', p, 1);
    case '"':
      return lexString(src, p);
  }
  const code = src.charCodeAt(p);
  if (isDigit(code)) return lexInteger(src, p);
  if (isHex(code)) {
    // "fe80::1" and "0a:58:…" start like identifiers; a hex run then ':' is a number.
    let q = p;
    while (isHex(src.charCodeAt(q))) q++;
    return src[q] === ':' ? lexInteger(src, p) : lexId(src, p);
  }
  if (isIdStart(code)) return lexId(src, p);
  const shown = code >= 32 && code < 127 ? JSON.stringify(c) : `U+${code.toString(16).padStart(4, '0')}`;
  return error(p, p + 1, 'invalid-character', `invalid character ${shown}`);
}

function lexId(src: string, p: number): Token {
  let q = p + 1;
  while (isIdChar(src.charCodeAt(q))) q++;
  return { type: 'id', start: p, end: q, text: src.slice(p, q) };
}

function lexName(src: string, p: number, type: 'address-set' | 'port-group' | 'template'): Token {
  if (!isIdStart(src.charCodeAt(p + 1))) {
    return error(p, p + 1, 'invalid-name', `"${src[p]}" must be followed by a valid identifier`);
  }
  const id = lexId(src, p + 1);
  return { type, start: p, end: id.end, text: id.text ?? '' };
}

type Core = { end: number; value: bigint; format: IntFormat } | { end: number; code: MatchErrorCode; message: string };

/** The extent and value of an integer-like token (lex_parse_integer__). */
function lexIntegerCore(src: string, p: number): Core {
  let q = p;
  let sawDot = false;
  for (;;) {
    const c = src.charCodeAt(q);
    if (isDigit(c) || isAlpha(c) || (c === 58 && !sawDot) || (c === 46 && src.charCodeAt(q + 1) !== 46)) {
      if (c === 46) sawDot = true;
      q++;
    } else {
      break;
    }
  }
  const s = src.slice(p, q);
  const fail = (code: MatchErrorCode, message: string): Core => ({ end: q, code, message });
  if (s.length === 0) return fail('invalid-number', 'integer constant expected');
  if (s.length === 17 && /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/.test(s)) {
    return { end: q, value: BigInt(`0x${s.replaceAll(':', '')}`), format: 'mac' };
  }
  if (/^[0-9]+$/.test(s)) {
    if (s.length > 1 && s[0] === '0')
      return fail('decimal-leading-zero', 'decimal constants must not have leading zeros');
    const v = BigInt(s);
    if (v >= U64) return fail('decimal-too-large', 'decimal constants must be less than 2**64');
    return { end: q, value: v, format: 'decimal' };
  }
  if (s[0] === '0' && (s[1] === 'x' || s[1] === 'X')) {
    const digits = s.slice(2);
    if (digits.length === 0) return fail('invalid-hex', `hex digits expected following 0${s[1]}`);
    if (!/^[0-9a-fA-F]+$/.test(digits)) return fail('invalid-hex', 'invalid syntax in hexadecimal constant');
    if (digits.replace(/^0+/, '').length > MAX_HEX_DIGITS) {
      return fail('hex-too-large', 'hexadecimal constant requires more than 1024 bits');
    }
    return { end: q, value: BigInt(`0x${digits}`), format: 'hex' };
  }
  if (s.length < 46) {
    const v4 = tryParseIPv4(s);
    if (v4 !== undefined) return { end: q, value: BigInt(v4), format: 'ipv4' };
    const v6 = tryParseIPv6(s);
    if (v6 !== undefined) return { end: q, value: v6, format: 'ipv6' };
  }
  return fail('invalid-number', `invalid numeric constant ${JSON.stringify(s)}`);
}

const prefixMask = (prefix: number, bits: number): bigint =>
  prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);

/** An integer with an optional `/mask` (lex_parse_integer and lex_parse_mask). */
function lexInteger(src: string, p: number): Token {
  const core = lexIntegerCore(src, p);
  if ('code' in core) return error(p, core.end, core.code, core.message);
  if (src[core.end] !== '/') return { type: 'int', start: p, end: core.end, value: core.value, format: core.format };
  const m = lexIntegerCore(src, core.end + 1);
  if ('code' in m) return error(p, m.end, m.code, m.message);
  let format = core.format;
  let mask: bigint;
  // OVN reads the prefix length through a uint32_t.
  const prefix = Number(m.value & 0xffffffffn);
  if (core.format === m.format) {
    mask = m.value;
  } else if (core.format === 'ipv4' && m.format === 'decimal' && prefix <= 32) {
    mask = prefixMask(prefix, 32);
  } else if (core.format === 'ipv6' && m.format === 'decimal' && prefix <= 128) {
    mask = prefixMask(prefix, 128);
  } else if (core.format === 'decimal' && m.format === 'hex' && core.value === 0n) {
    format = 'hex';
    mask = m.value;
  } else {
    return error(p, m.end, 'mask-format-mismatch', 'value and mask have incompatible formats');
  }
  return { type: 'int', start: p, end: m.end, value: core.value & mask, mask, format };
}

function lexString(src: string, p: number): Token {
  let q = p + 1;
  for (;;) {
    if (q >= src.length) return error(p, q, 'unterminated-string', 'input ends inside quoted string');
    const c = src.charCodeAt(q);
    if (c === 34) break;
    q += c === 92 ? 2 : 1;
  }
  const r = unescapeJsonString(src.slice(p + 1, q));
  if (typeof r !== 'string') return error(p, q + 1, 'invalid-string-escape', r.error);
  return { type: 'string', start: p, end: q + 1, text: r };
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** JSON string unescaping as OVS's json_string_unescape does it (NUL escapes refused). */
export function unescapeJsonString(s: string): string | { error: string } {
  let out = '';
  for (let i = 0; i < s.length; ) {
    const c = s[i++] as string;
    if (c !== '\\') {
      // OVN reads a match as a C string: a raw NUL would end the input inside the quotes. Refused, as \u0000 is, so
      // that everything parse accepts prints back to text parse accepts.
      if (c === '\u0000') return { error: 'null bytes not supported in quoted strings' };
      out += c;
      continue;
    }
    if (i >= s.length) return { error: 'quoted string may not end with backslash' };
    const e = s[i++] as string;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    if (e !== 'u') return { error: `bad escape \\${e}` };
    const c0 = hex4(s, i);
    if (typeof c0 !== 'number') return c0;
    i += 4;
    if (c0 < 0xd800 || c0 > 0xdbff) {
      out += String.fromCharCode(c0);
      continue;
    }
    if (s[i] !== '\\' || s[i + 1] !== 'u') return { error: 'malformed escaped surrogate pair' };
    const c1 = hex4(s, i + 2);
    if (typeof c1 !== 'number') return c1;
    if (c1 < 0xdc00 || c1 > 0xdfff) return { error: 'second half of escaped surrogate pair is not trailing surrogate' };
    i += 6;
    out += String.fromCharCode(c0, c1);
  }
  return out;
}

function hex4(s: string, i: number): number | { error: string } {
  if (i + 4 > s.length) return { error: 'quoted string ends within \\u escape' };
  const h = s.slice(i, i + 4);
  if (!/^[0-9a-fA-F]{4}$/.test(h)) return { error: 'malformed \\u escape' };
  const v = parseInt(h, 16);
  return v === 0 ? { error: 'null bytes not supported in quoted strings' } : v;
}

/**
 * All tokens up to and including `end` or the first error (for tests and tools).
 *
 * @example tokenize('a && b').map((t) => t.type) // ['id', '&&', 'id', 'end']
 */
export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  for (let pos = 0; ; ) {
    const t = nextToken(src, pos);
    out.push(t);
    if (t.type === 'end' || t.type === 'error') return out;
    pos = t.end;
  }
}

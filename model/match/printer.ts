/**
 * The canonical text of a match: single spaces around binary operators,
 * `, ` inside sets, parentheses only where OVN requires them (an `&&`/`||`
 * inside another, a non-atomic operand of `!`), constants in their written
 * format, IPv4/IPv6 CIDR masks as prefix lengths (as OVN's lex_token_format),
 * strings as JSON. `parseMatch(printMatch(e))` deep-equals `e` for every
 * valid AST; a key for diffing ACLs by match.
 */
import { formatIPv4, formatIPv6, formatMAC } from '../addr/index.ts';
import type { BitSlice, Constant, FieldRef, IntConstant, IntFormat, MatchExpr, MatchValue, RangeBound } from './ast.ts';

/**
 * @example printMatch(parseMatch('ip4.src==10.0.0.0/255.0.0.0&&tcp.dst>=80'))
 * // 'ip4.src == 10.0.0.0/8 && tcp.dst >= 80'
 */
export function printMatch(expr: MatchExpr): string {
  switch (expr.kind) {
    case 'bool':
      return expr.value ? '1' : '0';
    case 'cmp':
      return `${printField(expr.field)} ${expr.op} ${printValue(expr.value)}`;
    case 'range':
      return `${printBound(expr.low)} ${expr.low.inclusive ? '<=' : '<'} ${printField(expr.field)} ${expr.high.inclusive ? '<=' : '<'} ${printBound(expr.high)}`;
    case 'field':
      return printField(expr.field);
    case 'chassis-resident':
      return `is_chassis_resident(${quoteString(expr.port)})`;
    case 'not': {
      const inner = expr.expr;
      const atomic = inner.kind === 'bool' || inner.kind === 'field' || inner.kind === 'chassis-resident';
      return atomic ? `!${printMatch(inner)}` : `!(${printMatch(inner)})`;
    }
    case 'and':
    case 'or':
      return expr.args
        .map((a) => (a.kind === 'and' || a.kind === 'or' ? `(${printMatch(a)})` : printMatch(a)))
        .join(expr.kind === 'and' ? ' && ' : ' || ');
  }
}

export function printField(f: FieldRef): string {
  return f.slice === undefined ? f.name : `${f.name}${printSlice(f.slice)}`;
}

const printSlice = (s: BitSlice): string => (s.lo === s.hi ? `[${s.lo}]` : `[${s.lo}..${s.hi}]`);

export function printValue(v: MatchValue): string {
  return v.kind === 'set' ? `{${v.items.map(printConstant).join(', ')}}` : printConstant(v);
}

const printBound = (b: RangeBound): string => printConstant(b.value);

export function printConstant(c: Constant): string {
  switch (c.kind) {
    case 'int':
      return printInt(c);
    case 'string':
      return quoteString(c.value);
    case 'address-set':
      return `$${c.name}`;
    case 'port-group':
      return `@${c.name}`;
  }
}

/** @example printInt({ kind: 'int', value: 0x0a000000n, format: 'ipv4', mask: 0xff000000n }) // '10.0.0.0/8' */
export function printInt(c: IntConstant): string {
  const value = printIntValue(c.value, c.format);
  if (c.mask === undefined) return value;
  const prefix =
    c.format === 'ipv4' ? cidrPrefix(c.mask, 32) : c.format === 'ipv6' ? cidrPrefix(c.mask, 128) : undefined;
  return `${value}/${prefix ?? printIntValue(c.mask, c.format)}`;
}

function printIntValue(v: bigint, format: IntFormat): string {
  switch (format) {
    case 'decimal':
      return v.toString(10);
    case 'hex':
      return `0x${v.toString(16)}`;
    case 'ipv4':
      return formatIPv4(Number(v));
    case 'ipv6':
      return formatIPv6(v);
    case 'mac':
      return formatMAC(Number(v));
  }
}

/** The prefix length when `mask` is `bits` wide and all ones then all zeros. */
function cidrPrefix(mask: bigint, bits: number): number | undefined {
  const inverted = ((1n << BigInt(bits)) - 1n) ^ mask;
  if ((inverted & (inverted + 1n)) !== 0n || mask >> BigInt(bits) !== 0n) return undefined;
  return bits - (inverted === 0n ? 0 : inverted.toString(2).length);
}

/** JSON string syntax, as OVS's json_string_escape writes it (control characters escaped). */
export function quoteString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    const c = ch.charCodeAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (c >= 0x20) out += ch;
    else out += CONTROL_ESCAPES[c] ?? `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

const CONTROL_ESCAPES: Readonly<Record<number, string>> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' };

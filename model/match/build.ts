/**
 * Small constructors for match ASTs, for code that builds matches (the
 * NetworkPolicy translation) rather than parsing text. They build values
 * only; `checkMatchEnv` (or a round trip through the printer and parser)
 * says whether OVN would accept the result.
 *
 * @example
 * matchAnd(
 *   matchCmp('outport', '==', portGroupRef('ovn.default.np')),
 *   matchField('ip'),
 *   matchCmp('ip4.src', '==', addressSetRef('np.default.ingress.allow.IPv4.0')),
 *   matchRange('tcp.dst', intConst(1024), intConst(2048)),
 * ) // outport == @ovn.default.np && ip && ip4.src == $np.default.ingress.allow.IPv4.0 && 1024 <= tcp.dst <= 2048
 */
import { parseCIDR, parseMAC } from '../addr/index.ts';
import type {
  AddressSetRef,
  Constant,
  ConstantSet,
  FieldRef,
  IntConstant,
  IntFormat,
  MatchExpr,
  MatchValue,
  PortGroupRef,
  RelOp,
  StringConstant,
} from './ast.ts';

export const MATCH_TRUE: MatchExpr = { kind: 'bool', value: true };
export const MATCH_FALSE: MatchExpr = { kind: 'bool', value: false };

/** `name` or `name[lo..hi]`. */
export function fieldRef(name: string, lo?: number, hi: number | undefined = lo): FieldRef {
  return lo === undefined || hi === undefined ? { name } : { name, slice: { lo, hi } };
}

export function intConst(value: number | bigint, format: IntFormat = 'decimal', mask?: bigint): IntConstant {
  const v = BigInt(value);
  return mask === undefined ? { kind: 'int', value: v, format } : { kind: 'int', value: v & mask, format, mask };
}

/**
 * An IPv4 or IPv6 address or CIDR as a constant (bare address: unmasked).
 *
 * @example ipConst('10.16.0.0/16') // { kind: 'int', value: 0x0a100000n, format: 'ipv4', mask: 0xffff0000n }
 */
export function ipConst(text: string): IntConstant {
  const c = parseCIDR(text, { allowBare: true });
  const bits = c.family === 4 ? 32 : 128;
  const format: IntFormat = c.family === 4 ? 'ipv4' : 'ipv6';
  const value = BigInt(c.ip);
  if (!text.includes('/')) return { kind: 'int', value, format };
  const mask = c.prefix === 0 ? 0n : ((1n << BigInt(c.prefix)) - 1n) << BigInt(bits - c.prefix);
  return { kind: 'int', value: value & mask, format, mask };
}

export function macConst(text: string): IntConstant {
  return { kind: 'int', value: BigInt(parseMAC(text)), format: 'mac' };
}

export const stringConst = (value: string): StringConstant => ({ kind: 'string', value });
export const addressSetRef = (name: string): AddressSetRef => ({ kind: 'address-set', name });
export const portGroupRef = (name: string): PortGroupRef => ({ kind: 'port-group', name });
export const constSet = (...items: Constant[]): ConstantSet => ({ kind: 'set', items });

const toField = (f: string | FieldRef): FieldRef => (typeof f === 'string' ? { name: f } : f);

export function matchCmp(field: string | FieldRef, op: RelOp, value: MatchValue): MatchExpr {
  return { kind: 'cmp', field: toField(field), op, value };
}

/** `low <= field <= high` (bounds inclusive unless told otherwise). */
export function matchRange(
  field: string | FieldRef,
  low: IntConstant | AddressSetRef,
  high: IntConstant | AddressSetRef,
  opts: { lowInclusive?: boolean; highInclusive?: boolean } = {},
): MatchExpr {
  return {
    kind: 'range',
    field: toField(field),
    low: { value: low, inclusive: opts.lowInclusive ?? true },
    high: { value: high, inclusive: opts.highInclusive ?? true },
  };
}

/** A bare field or predicate: `ip4`, `ct.est`. */
export const matchField = (field: string | FieldRef): MatchExpr => ({ kind: 'field', field: toField(field) });
export const matchNot = (expr: MatchExpr): MatchExpr => ({ kind: 'not', expr });

/** `a && b && …`; a single operand is returned as is, none gives `1`. */
export function matchAnd(...args: MatchExpr[]): MatchExpr {
  return args.length === 0 ? MATCH_TRUE : args.length === 1 ? (args[0] as MatchExpr) : { kind: 'and', args };
}

/** `a || b || …`; a single operand is returned as is, none gives `0`. */
export function matchOr(...args: MatchExpr[]): MatchExpr {
  return args.length === 0 ? MATCH_FALSE : args.length === 1 ? (args[0] as MatchExpr) : { kind: 'or', args };
}

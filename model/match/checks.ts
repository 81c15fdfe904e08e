/**
 * The checks OVN's make_cmp applies to one comparison, shared by the parser
 * (static: the constants written in the text) and by env.ts (dynamic: the
 * contents of the address sets named, known only with an environment).
 * The order of the checks is OVN's, so the first problem is the one OVN reports.
 */
import type { AddressSetRef, Constant, IntConstant, MatchValue, RelOp } from './ast.ts';
import type { MatchErrorCode } from './errors.ts';
import type { MatchSymbol } from './fields.ts';

export interface CmpCheck {
  readonly symbol: MatchSymbol;
  readonly op: RelOp;
  readonly value: MatchValue;
  /** Inside an odd number of `!`. */
  readonly negated: boolean;
}

export type CheckCode = MatchErrorCode | 'ordinal-op-with-empty-set';

export interface CheckProblem {
  readonly code: CheckCode;
  readonly message: string;
  /** What the parser points at: the field, the operator, the value, or element `item` of the value. */
  readonly blame: 'field' | 'op' | 'value';
  readonly item?: number;
}

const bitLength = (v: bigint): number => (v === 0n ? 0 : v.toString(2).length);

/** OVN's expr_constant_width: a masked constant is as wide as its mask, an address as its family. */
export function constantWidth(c: IntConstant): number {
  if (c.mask !== undefined) return bitLength(c.mask);
  switch (c.format) {
    case 'ipv4':
      return 32;
    case 'ipv6':
      return 128;
    case 'mac':
      return 48;
    default:
      return bitLength(c.value);
  }
}

export const isStringTyped = (c: Constant): boolean => c.kind === 'string' || c.kind === 'port-group';

/**
 * The first problem with `field op value`, or undefined. Without `expand`,
 * address sets are opaque (the parser's view); with it, their values are
 * checked too (env.ts's view).
 */
export function checkComparison(
  c: CmpCheck,
  expand?: (ref: AddressSetRef) => readonly IntConstant[],
): CheckProblem | undefined {
  const { symbol, op } = c;
  const items = c.value.kind === 'set' ? c.value.items : [c.value];
  const first = items[0];
  if (first === undefined) return undefined;
  const stringField = symbol.width === 0;
  if (isStringTyped(first) !== stringField) {
    const message = `${stringField ? 'string' : 'integer'} field ${symbol.name} is not compatible with ${stringField ? 'integer' : 'string'} constants`;
    return { code: 'type-mismatch', message, blame: 'value' };
  }
  const ints: { readonly c: IntConstant; readonly item: number }[] = [];
  let opaque = false;
  items.forEach((it, item) => {
    if (it.kind === 'int') ints.push({ c: it, item });
    else if (it.kind === 'address-set') {
      if (expand) for (const v of expand(it)) ints.push({ c: v, item });
      else opaque = true;
    }
  });
  for (const { c: k, item } of ints) {
    const w = constantWidth(k);
    if (w > symbol.width) {
      return {
        code: 'constant-too-wide',
        message: `${w}-bit constant is not compatible with ${symbol.width}-bit field ${symbol.name}`,
        blame: 'value',
        item,
      };
    }
  }
  const ordinal = op !== '==' && op !== '!=';
  if (ordinal) {
    const problem = checkOrdinal(c, ints[0]?.c, opaque);
    if (problem) return problem;
  }
  if (symbol.level !== 'nominal') return undefined;
  if (symbol.kind === 'predicate') {
    for (const { c: k, item } of ints) {
      const positive = (((k.value & 1n) === 1n) !== (op === '!=')) !== c.negated;
      if (!positive) {
        const n = symbol.name;
        return {
          code: 'nominal-predicate-negated',
          message: `nominal predicate ${n} may only be tested positively ("${n}" or "${n} == 1", not "!${n}" or "${n} == 0")`,
          blame: 'value',
          item,
        };
      }
    }
    return undefined;
  }
  if (op !== (c.negated ? '!=' : '==')) {
    return {
      code: 'nominal-inequality',
      message: `nominal field ${symbol.name} may only be tested for equality (taking enclosing "!" into account)`,
      blame: 'field',
    };
  }
  return undefined;
}

function checkOrdinal(c: CmpCheck, firstInt: IntConstant | undefined, opaque: boolean): CheckProblem | undefined {
  if (c.value.kind === 'set') {
    return { code: 'ordinal-op-with-set', message: 'only == and != may be used with value sets', blame: 'op' };
  }
  if (c.symbol.level !== 'ordinal') {
    return {
      code: 'ordinal-op-on-nominal',
      message: `only == and != may be used with ${c.symbol.level} field ${c.symbol.name}`,
      blame: 'op',
    };
  }
  if (opaque) return undefined;
  if (firstInt === undefined) {
    return {
      code: 'ordinal-op-with-empty-set',
      message: `only == and != may compare ${c.symbol.name} against an empty address set`,
      blame: 'op',
    };
  }
  if (firstInt.mask !== undefined) {
    return {
      code: 'ordinal-op-with-masked',
      message: 'only == and != may be used with masked constants (compare a subfield instead)',
      blame: 'op',
    };
  }
  return undefined;
}

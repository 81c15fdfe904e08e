/**
 * Traversal of a match's comparisons with the context OVN's checks need
 * (whether an odd number of `!` encloses them), and the structural checks the
 * parser makes on a field reference. Shared by env.ts (validation) and
 * analyze.ts (the simulator's indexing helpers).
 */
import type { FieldRef, IntConstant, MatchExpr, MatchValue, RelOp } from './ast.ts';
import type { CheckProblem } from './checks.ts';
import { type MatchSymbol, lookupSymbol } from './fields.ts';

/** One comparison as OVN's make_cmp sees it: a range is two, a bare field is `field != 0`. */
export interface Comparison {
  readonly field: FieldRef;
  readonly op: RelOp;
  readonly value: MatchValue;
  readonly negated: boolean;
  readonly bare: boolean;
}

export const ZERO: IntConstant = { kind: 'int', value: 0n, format: 'hex' };

/** Calls `fn` for every comparison, in text order. */
export function forEachComparison(expr: MatchExpr, fn: (c: Comparison) => void, negated = false): void {
  switch (expr.kind) {
    case 'cmp':
      fn({ field: expr.field, op: expr.op, value: expr.value, negated, bare: false });
      return;
    case 'field':
      fn({ field: expr.field, op: '!=', value: ZERO, negated, bare: true });
      return;
    case 'range':
      fn({ field: expr.field, op: expr.low.inclusive ? '>=' : '>', value: expr.low.value, negated, bare: false });
      fn({ field: expr.field, op: expr.high.inclusive ? '<=' : '<', value: expr.high.value, negated, bare: false });
      return;
    case 'not':
      forEachComparison(expr.expr, fn, !negated);
      return;
    case 'and':
    case 'or':
      for (const a of expr.args) forEachComparison(a, fn, negated);
      return;
    case 'bool':
    case 'chassis-resident':
      return;
  }
}

/** The symbol, or the problem with the reference (what parse_field and the bare-field rule reject). */
export function checkFieldRef(c: Comparison): MatchSymbol | CheckProblem {
  const symbol = lookupSymbol(c.field.name);
  const name = c.field.name;
  if (!symbol) return { code: 'unknown-field', message: `unknown field ${JSON.stringify(name)}`, blame: 'field' };
  const s = c.field.slice;
  if (s !== undefined) {
    const ok =
      symbol.width > 0 &&
      Number.isInteger(s.lo) &&
      Number.isInteger(s.hi) &&
      s.lo >= 0 &&
      s.lo <= s.hi &&
      s.hi < symbol.width &&
      (symbol.level !== 'nominal' || (s.lo === 0 && s.hi === symbol.width - 1));
    if (!ok) return { code: 'bad-slice', message: `invalid bit slice [${s.lo}..${s.hi}] of ${name}`, blame: 'field' };
  }
  const nBits = s === undefined ? symbol.width : s.hi - s.lo + 1;
  if (c.bare && (nBits === 0 || (nBits > 1 && !c.negated))) {
    return { code: 'bare-multibit-field', message: `${name} cannot be used bare here`, blame: 'field' };
  }
  return symbol;
}

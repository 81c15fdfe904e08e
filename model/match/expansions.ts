/**
 * The parsed forms of the symbol table's predicate expansions and
 * prerequisites, memoized: they are fixed text, parsed once per process.
 */
import type { MatchExpr } from './ast.ts';
import type { PredicateSymbol } from './fields.ts';
import { parseMatch } from './parser.ts';

const parsed = new Map<string, MatchExpr>();

/** The AST of a symbol-table expression (a predicate's expansion or a prerequisite). */
export function symtabExpr(text: string): MatchExpr {
  let e = parsed.get(text);
  if (e === undefined) {
    e = parseMatch(text);
    parsed.set(text, e);
  }
  return e;
}

export const predicateExpr = (sym: PredicateSymbol): MatchExpr => symtabExpr(sym.expansion);

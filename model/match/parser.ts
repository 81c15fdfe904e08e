/**
 * The match parser: OVN 23.03's grammar and static checks (expr_parse__,
 * expr_parse_not, expr_parse_primary, parse_field, parse_constant_set and
 * make_cmp in lib/expr.c), producing the AST of ast.ts.
 *
 * Checks that depend on the contents of address sets and port groups (their
 * existence, their values' widths) are not static; see env.ts.
 */
import {
  type AddressSetRef,
  type Constant,
  type FieldRef,
  type IntConstant,
  type MatchExpr,
  type MatchValue,
  type RangeBound,
  type RelOp,
  turnOp,
} from './ast.ts';
import { MatchParseError, type MatchErrorCode } from './errors.ts';
import { type MatchSymbol, lookupSymbol } from './fields.ts';
import { type Token, type TokenType, nextToken } from './lexer.ts';
import { checkComparison, isStringTyped, type CmpCheck } from './checks.ts';

/** OVN's MAX_PAREN_DEPTH. */
const MAX_PAREN_DEPTH = 100;
const INT_MAX = 0x7fffffff;

const RELOPS: ReadonlySet<TokenType> = new Set(['==', '!=', '<', '<=', '>', '>=']);
const isRelop = (t: TokenType): t is RelOp => RELOPS.has(t);

interface ParsedField {
  readonly ref: FieldRef;
  readonly symbol: MatchSymbol;
  readonly nBits: number;
  readonly at: number;
}

interface ParsedValue {
  readonly value: MatchValue;
  readonly at: number;
  /** Start offset of each element (one for a bare constant). */
  readonly itemsAt: readonly number[];
}

class Parser {
  private tok: Token;
  private depth = 0;
  /** Inside an odd number of `!`: what OVN's `ctx->not` tracks. */
  private negated = false;

  constructor(private readonly text: string) {
    this.tok = nextToken(text, 0);
  }

  parse(): MatchExpr {
    const e = this.parseExpr();
    if (this.tok.type !== 'end') this.syntax('expecting end of input');
    return e;
  }

  /** The current token's type; a method so that narrowing does not survive advance(). */
  private is(type: TokenType): boolean {
    return this.tok.type === type;
  }

  private advance(): void {
    this.tok = nextToken(this.text, this.tok.end);
  }

  /** Every error goes through here; a pending lexical error wins, as in OVN's lexer_error. */
  private fail(code: MatchErrorCode, detail: string, at = this.tok.start): never {
    const t = this.tok;
    if (t.type === 'error')
      throw new MatchParseError(t.code ?? 'syntax-error', t.start, this.text, t.message ?? 'lexical error');
    throw new MatchParseError(code, at, this.text, detail);
  }

  private syntax(expecting: string): never {
    const t = this.tok;
    const where = t.type === 'end' ? 'at end of input' : `at ${JSON.stringify(this.text.slice(t.start, t.end))}`;
    return this.fail('syntax-error', `syntax error ${where}: ${expecting}`);
  }

  private expect(type: TokenType): void {
    if (this.tok.type !== type) this.syntax(`expecting "${type}"`);
    this.advance();
  }

  private parseExpr(): MatchExpr {
    const first = this.parseNot();
    const op = this.tok.type;
    if (op !== '&&' && op !== '||') return first;
    const args = [first];
    do {
      this.advance();
      args.push(this.parseNot());
    } while (this.tok.type === op);
    if (this.tok.type === '&&' || this.tok.type === '||') {
      this.fail('mixed-and-or', '"&&" and "||" must be parenthesized when used together');
    }
    return { kind: op === '&&' ? 'and' : 'or', args };
  }

  private parseNot(): MatchExpr {
    if (this.tok.type !== '!') return this.parsePrimary().expr;
    const at = this.tok.start;
    this.advance();
    this.negated = !this.negated;
    const { expr, atomic } = this.parsePrimary();
    this.negated = !this.negated;
    if (!atomic) this.fail('not-needs-parentheses', 'missing parentheses around operand of "!"', at);
    return { kind: 'not', expr };
  }

  private parsePrimary(): { expr: MatchExpr; atomic: boolean } {
    const t = this.tok;
    if (t.type === '(') {
      if (this.depth >= MAX_PAREN_DEPTH) this.fail('parens-too-deep', 'parentheses nested too deeply');
      this.advance();
      this.depth++;
      const expr = this.parseExpr();
      this.depth--;
      this.expect(')');
      return { expr, atomic: true };
    }
    if (t.type === 'template') this.fail('unexpanded-template', `unexpanded template ^${t.text ?? ''}`);
    if (t.type === 'id') {
      if (nextToken(this.text, t.end).type === '(') return { expr: this.parseFunction(), atomic: true };
      return this.parseFieldFirst();
    }
    return this.parseConstantFirst();
  }

  private parseFunction(): MatchExpr {
    const name = this.tok.text ?? '';
    if (name !== 'is_chassis_resident') this.fail('unknown-function', `unknown function ${JSON.stringify(name)}`);
    this.advance();
    this.advance();
    const t = this.tok;
    if (t.type !== 'string') this.syntax('expecting string');
    this.advance();
    this.expect(')');
    return { kind: 'chassis-resident', port: t.text ?? '' };
  }

  private parseFieldFirst(): { expr: MatchExpr; atomic: boolean } {
    const f = this.parseField();
    const opTok = this.tok;
    if (!isRelop(opTok.type)) {
      if (f.nBits === 0 || opTok.type === '=') this.syntax('expecting relational operator');
      if (f.nBits > 1 && !this.negated) {
        this.fail(
          'bare-multibit-field',
          `explicit "!= 0" is required to test multibit field ${f.symbol.name} against 0`,
          f.at,
        );
      }
      const zero: IntConstant = { kind: 'int', value: 0n, format: 'hex' };
      this.check(f, '!=', { value: zero, at: f.at, itemsAt: [f.at] }, f.at);
      return { expr: { kind: 'field', field: f.ref }, atomic: true };
    }
    const op = opTok.type;
    this.advance();
    const v = this.parseConstantSet();
    this.check(f, op, v, opTok.start);
    return { expr: { kind: 'cmp', field: f.ref, op, value: v.value }, atomic: false };
  }

  private parseConstantFirst(): { expr: MatchExpr; atomic: boolean } {
    const c1 = this.parseConstantSet();
    const v1 = c1.value;
    if (
      !isRelop(this.tok.type) &&
      v1.kind === 'int' &&
      v1.format === 'decimal' &&
      v1.mask === undefined &&
      v1.value <= 1n
    ) {
      return { expr: { kind: 'bool', value: v1.value === 1n }, atomic: true };
    }
    const r1Tok = this.tok;
    if (!isRelop(r1Tok.type)) this.syntax('expecting relational operator');
    const r1 = r1Tok.type;
    this.advance();
    const f = this.parseField();
    const r2Tok = this.tok;
    if (!isRelop(r2Tok.type)) {
      this.check(f, turnOp(r1), c1, r1Tok.start);
      return { expr: { kind: 'cmp', field: f.ref, op: turnOp(r1), value: v1 }, atomic: false };
    }
    const r2 = r2Tok.type;
    this.advance();
    const c2 = this.parseConstantSet();
    const up = (r: RelOp) => r === '<' || r === '<=';
    const down = (r: RelOp) => r === '>' || r === '>=';
    if (!((up(r1) && up(r2)) || (down(r1) && down(r2)))) {
      this.fail(
        'bad-range-form',
        'range expressions must have the form "x < field < y" or "x > field > y" (each "<" optionally "<=", ">" optionally ">=")',
        r1Tok.start,
      );
    }
    this.check(f, turnOp(r1), c1, r1Tok.start);
    this.check(f, r2, c2, r2Tok.start);
    // make_cmp admitted only unmasked integers and address sets for ordinal operators.
    const b1: RangeBound = { value: v1 as IntConstant | AddressSetRef, inclusive: r1 === '<=' || r1 === '>=' };
    const b2: RangeBound = { value: c2.value as IntConstant | AddressSetRef, inclusive: r2 === '<=' || r2 === '>=' };
    const [low, high] = up(r1) ? [b1, b2] : [b2, b1];
    return { expr: { kind: 'range', field: f.ref, low, high }, atomic: false };
  }

  private check(f: ParsedField, op: RelOp, v: ParsedValue, opAt: number): void {
    const c: CmpCheck = { symbol: f.symbol, op, value: v.value, negated: this.negated };
    const problem = checkComparison(c);
    // Emptiness of an address set is not known without an environment.
    if (!problem || problem.code === 'ordinal-op-with-empty-set') return;
    const at =
      problem.item !== undefined
        ? (v.itemsAt[problem.item] ?? v.at)
        : problem.blame === 'op'
          ? opAt
          : problem.blame === 'value'
            ? v.at
            : f.at;
    this.fail(problem.code, problem.message, at);
  }

  private parseField(): ParsedField {
    const t = this.tok;
    if (t.type !== 'id') this.syntax('expecting field name');
    const symbol = lookupSymbol(t.text ?? '');
    if (!symbol) this.fail('unknown-field', `unknown field ${JSON.stringify(t.text)}`);
    this.advance();
    if (this.tok.type !== '[') return { ref: { name: symbol.name }, symbol, nBits: symbol.width, at: t.start };
    if (symbol.width === 0) this.fail('bad-slice', `cannot select a subfield of string field ${symbol.name}`);
    this.advance();
    const lo = this.forceInt();
    let hi = lo;
    if (this.is('..')) {
      this.advance();
      hi = this.forceInt();
    }
    this.expect(']');
    if (lo > hi) this.fail('bad-slice', `invalid bit range ${lo} to ${hi}`, t.start);
    if (hi >= symbol.width) {
      this.fail('bad-slice', `cannot select bits ${lo} to ${hi} of ${symbol.width}-bit field ${symbol.name}`, t.start);
    }
    if (symbol.level === 'nominal' && (lo !== 0 || hi !== symbol.width - 1)) {
      this.fail('bad-slice', `cannot select a subfield of nominal field ${symbol.name}`, t.start);
    }
    return { ref: { name: symbol.name, slice: { lo, hi } }, symbol, nBits: hi - lo + 1, at: t.start };
  }

  private forceInt(): number {
    const t = this.tok;
    if (t.type !== 'int' || t.format !== 'decimal' || t.mask !== undefined || (t.value ?? 0n) > BigInt(INT_MAX)) {
      this.syntax('expecting small integer');
    }
    this.advance();
    return Number(t.value);
  }

  private parseConstantSet(): ParsedValue {
    const at = this.tok.start;
    if (this.tok.type !== '{') {
      const value = this.parseConstant(undefined);
      return { value, at, itemsAt: [at] };
    }
    this.advance();
    const items: Constant[] = [];
    const itemsAt: number[] = [];
    do {
      itemsAt.push(this.tok.start);
      items.push(this.parseConstant(items[0]));
      if (this.is(',')) this.advance();
    } while (!this.is('}'));
    this.advance();
    return { value: { kind: 'set', items }, at, itemsAt };
  }

  /** One constant; `first` is the set's first element, whose type the rest must share. */
  private parseConstant(first: Constant | undefined): Constant {
    const t = this.tok;
    let c: Constant;
    switch (t.type) {
      case 'template':
        return this.fail('unexpanded-template', `unexpanded template ^${t.text ?? ''}`);
      case 'string':
        c = { kind: 'string', value: t.text ?? '' };
        break;
      case 'int':
        c =
          t.mask === undefined
            ? { kind: 'int', value: t.value ?? 0n, format: t.format ?? 'decimal' }
            : { kind: 'int', value: t.value ?? 0n, format: t.format ?? 'decimal', mask: t.mask };
        break;
      case 'address-set':
        c = { kind: 'address-set', name: t.text ?? '' };
        break;
      case 'port-group':
        c = { kind: 'port-group', name: t.text ?? '' };
        break;
      default:
        return this.syntax('expecting constant');
    }
    if (first && isStringTyped(first) !== isStringTyped(c)) {
      this.fail('set-type-mismatch', `syntax error: expecting ${isStringTyped(first) ? 'string' : 'integer'} in set`);
    }
    this.advance();
    return c;
  }
}

/**
 * Parses OVN match text, applying OVN's own rejections.
 *
 * @example parseMatch('outport == @pg && ip4 && ip4.dst == 10.16.0.0/16')
 * @example parseMatch('tcp.dst') // throws MatchParseError 'bare-multibit-field'
 */
export function parseMatch(text: string): MatchExpr {
  return new Parser(text).parse();
}

export type MatchParseResult =
  | { readonly ok: true; readonly expr: MatchExpr }
  | { readonly ok: false; readonly error: MatchParseError };

/** {@link parseMatch} without the throw: the error as data. */
export function tryParseMatch(text: string): MatchParseResult {
  try {
    return { ok: true, expr: parseMatch(text) };
  } catch (e) {
    if (e instanceof MatchParseError) return { ok: false, error: e };
    throw e;
  }
}

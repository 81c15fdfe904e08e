/**
 * The one error the match parser throws. Codes name OVN's own rejections
 * (lib/lex.c and lib/expr.c in OVN 23.03); the message says what OVN says,
 * in our words, and where.
 */

export type MatchErrorCode =
  // Lexical (lib/lex.c).
  | 'invalid-character'
  | 'invalid-operator'
  | 'unterminated-comment'
  | 'unterminated-string'
  | 'invalid-string-escape'
  | 'invalid-number'
  | 'decimal-leading-zero'
  | 'decimal-too-large'
  | 'invalid-hex'
  | 'hex-too-large'
  | 'mask-format-mismatch'
  | 'invalid-name'
  // Syntax (lib/expr.c).
  | 'syntax-error'
  | 'unknown-field'
  | 'unknown-function'
  | 'unexpanded-template'
  | 'parens-too-deep'
  | 'mixed-and-or'
  | 'not-needs-parentheses'
  | 'bare-multibit-field'
  | 'set-type-mismatch'
  | 'bad-range-form'
  | 'bad-slice'
  // Typing and level of measurement (make_cmp / type_check in lib/expr.c).
  | 'type-mismatch'
  | 'constant-too-wide'
  | 'ordinal-op-with-set'
  | 'ordinal-op-on-nominal'
  | 'ordinal-op-with-masked'
  | 'nominal-inequality'
  | 'nominal-predicate-negated';

/**
 * Thrown by `parseMatch`. `position` is a 0-based offset into `text` (UTF-16
 * code units) of the token OVN would blame.
 *
 * @example
 * try { parseMatch('inport != "a"') } catch (e) {
 *   (e as MatchParseError).code     // 'nominal-inequality'
 *   (e as MatchParseError).position // 0
 * }
 */
export class MatchParseError extends Error {
  override readonly name = 'MatchParseError';
  constructor(
    readonly code: MatchErrorCode,
    readonly position: number,
    readonly text: string,
    detail: string,
  ) {
    super(`match ${JSON.stringify(abbreviate(text))}: ${detail} (at offset ${position}${near(text, position)})`);
  }
}

function abbreviate(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function near(text: string, position: number): string {
  if (position >= text.length) return ', end of input';
  return `, near ${JSON.stringify(text.slice(position, position + 20))}`;
}

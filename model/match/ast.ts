/**
 * The OVN match language as values (ovn-sb(5), "Logical_Flow TABLE / match",
 * OVN 23.03). The AST keeps what the canonical printer needs to reproduce the
 * text (a constant's written format, `{...}` versus a bare constant, a bit
 * slice as written) and drops what carries no meaning (parentheses, spacing,
 * comments, which side of `==` the constant was on).
 *
 * Normalizations the parser applies, all meaning-preserving in OVN:
 * - `80 == tcp.dst` becomes `tcp.dst == 80` (the operator turned: `1 < x` is
 *   `x > 1`);
 * - `4 > vlan.pcp > 1` becomes the range `1 < vlan.pcp < 4`;
 * - masked constants keep only the value bits under the mask (`1.2.3.4/8`
 *   is `1.0.0.0/8`), as OVN's lexer does.
 *
 * Negation stays a node: OVN pushes `!` down to the comparisons at parse time
 * and adds each field's prerequisites after that (see evaluate.ts), so
 * `!(tcp.dst == 80)` means exactly `tcp.dst != 80` (both require TCP).
 */

export type RelOp = '==' | '!=' | '<' | '<=' | '>' | '>=';

/**
 * How an integer constant was written; printing uses it. `hex` values print
 * as `0x…`, `ipv4` as a dotted quad, `ipv6` RFC 5952, `mac` as `xx:…:xx`.
 */
export type IntFormat = 'decimal' | 'hex' | 'ipv4' | 'ipv6' | 'mac';

/**
 * An integer constant, optionally masked (`10.0.0.0/8`, `0x800/0xf00`,
 * `01:00:00:00:00:00/01:00:00:00:00:00`). Invariant: `value & ~mask === 0`.
 * `mask` is absent (not `undefined`) when the constant is unmasked.
 */
export interface IntConstant {
  readonly kind: 'int';
  readonly value: bigint;
  readonly format: IntFormat;
  readonly mask?: bigint;
}

/** A quoted string (JSON syntax): a logical port name for `inport`/`outport`. */
export interface StringConstant {
  readonly kind: 'string';
  readonly value: string;
}

/** `$name`: an Address_Set (or the derived `$<port_group>_ip4/_ip6`). */
export interface AddressSetRef {
  readonly kind: 'address-set';
  readonly name: string;
}

/** `@name`: the ports of a Port_Group, as string constants. */
export interface PortGroupRef {
  readonly kind: 'port-group';
  readonly name: string;
}

export type Constant = IntConstant | StringConstant | AddressSetRef | PortGroupRef;

/** `{c1, c2, …}`: at least one element, all integer-typed or all string-typed. */
export interface ConstantSet {
  readonly kind: 'set';
  readonly items: readonly Constant[];
}

/** The right-hand side of a comparison. */
export type MatchValue = Constant | ConstantSet;

/** Bits `lo..hi` (inclusive, 0 = least significant) of a field; `[n]` is `{lo: n, hi: n}`. */
export interface BitSlice {
  readonly lo: number;
  readonly hi: number;
}

/** A symbol name from the symbol table (fields.ts), optionally sliced. `slice` is absent when not written. */
export interface FieldRef {
  readonly name: string;
  readonly slice?: BitSlice;
}

/** `0` or `1`. */
export interface BoolExpr {
  readonly kind: 'bool';
  readonly value: boolean;
}

/** `field op value`, e.g. `ip4.src == $as`, `tcp.dst >= 1024`, `inport == @pg`. */
export interface CmpExpr {
  readonly kind: 'cmp';
  readonly field: FieldRef;
  readonly op: RelOp;
  readonly value: MatchValue;
}

/** One end of a range: an unmasked integer or an address set (OVN allows both). */
export interface RangeBound {
  readonly value: IntConstant | AddressSetRef;
  /** `<=` rather than `<`. */
  readonly inclusive: boolean;
}

/**
 * `low <(=) field <(=) high`, i.e. `field >(=) low && field <(=) high`.
 * Written `high >(=) field >(=) low` in the source it is stored the same way.
 */
export interface RangeExpr {
  readonly kind: 'range';
  readonly field: FieldRef;
  readonly low: RangeBound;
  readonly high: RangeBound;
}

/**
 * A bare field, meaning `field != 0`: a 1-bit field (`ct.new`, `vlan.tci[12]`),
 * a predicate (`ip4`, `tcp`), or, only under an odd number of `!`, a wider one
 * (`!tcp.dst` is `tcp.dst == 0`).
 */
export interface FieldExpr {
  readonly kind: 'field';
  readonly field: FieldRef;
}

/** `!e`. In text the operand must be atomic, so the printer adds `(…)` when needed. */
export interface NotExpr {
  readonly kind: 'not';
  readonly expr: MatchExpr;
}

/** `a && b && …` (at least two operands; nesting is kept as written). */
export interface AndExpr {
  readonly kind: 'and';
  readonly args: readonly MatchExpr[];
}

/** `a || b || …` (at least two operands). */
export interface OrExpr {
  readonly kind: 'or';
  readonly args: readonly MatchExpr[];
}

/** `is_chassis_resident("port")`, the one function OVN 23.03 matches support. */
export interface ChassisResidentExpr {
  readonly kind: 'chassis-resident';
  readonly port: string;
}

export type MatchExpr = BoolExpr | CmpExpr | RangeExpr | FieldExpr | NotExpr | AndExpr | OrExpr | ChassisResidentExpr;

/** The operator that holds when `op` does not (`<` ↔ `>=`). */
export function invertOp(op: RelOp): RelOp {
  switch (op) {
    case '==':
      return '!=';
    case '!=':
      return '==';
    case '<':
      return '>=';
    case '<=':
      return '>';
    case '>':
      return '<=';
    case '>=':
      return '<';
  }
}

/** The operator with its operands swapped (`c < f` is `f > c`). */
export function turnOp(op: RelOp): RelOp {
  switch (op) {
    case '<':
      return '>';
    case '<=':
      return '>=';
    case '>':
      return '<';
    case '>=':
      return '<=';
    default:
      return op;
  }
}

export const isOrdinalOp = (op: RelOp): boolean => op !== '==' && op !== '!=';

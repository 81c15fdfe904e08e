/**
 * The reference evaluator: a direct reading of OVN's semantics, kept simple
 * (bigints, linear scans) so that compile.ts can be tested against it.
 *
 * What a match means, per OVN 23.03 (lib/expr.c):
 * 1. `!` is pushed down to the comparisons at parse time (expr_not): `!(f ==
 *    c)` becomes `f != c`, `!(a && b)` becomes `!a || !b`.
 * 2. Then every comparison of a field with prerequisites gets them ANDed
 *    (expr_annotate): `tcp.dst != 80` means `tcp.dst != 80 && ip.proto == 6
 *    && (eth.type == 0x800 || eth.type == 0x86dd)`. So `!(tcp.dst == 80)`
 *    requires TCP exactly as `tcp.dst != 80` does: neither matches UDP.
 * 3. A predicate is replaced by its expansion, itself annotated first and
 *    negated after when the test is negative: `!ip4.mcast` is `!(eth.mcast &&
 *    ip4.dst[28..31] == 0xe && ip4)`, which non-IPv4 packets satisfy.
 * 4. `f == {a, b}` is `f == a || f == b`; `f != {a, b}` is `f != a && f != b`;
 *    against an empty address set, `==` is false and `!=` true, without
 *    prerequisites (OVN makes them Boolean constants).
 * 5. A constant wider than a slice is cut to the slice (OVN checks widths
 *    against the whole field and copies only the slice's bits).
 * 6. A match that names an unknown set, or fails a check with the set's
 *    contents, matches nothing (env.ts).
 * 7. Port names compare as strings, except that "" names no port: OVN fails
 *    to look it up and the comparison is false, so `outport == ""` does not
 *    match a packet whose outport is unset.
 */
import { type IntConstant, type FieldRef, type MatchExpr, type MatchValue, type RelOp, invertOp } from './ast.ts';
import { type MatchEnv, addressSetValues, checkMatchEnv, portGroupMembers } from './env.ts';
import { predicateExpr, symtabExpr } from './expansions.ts';
import { type IntSymbol, type MatchSymbol, lookupSymbol } from './fields.ts';
import type { MatchPacket } from './packet.ts';
import { ZERO } from './walk.ts';
import { appendAll } from '../append.ts';

/**
 * Whether `packet` matches `expr` in `env`. Slow and obviously right: use
 * {@link compileMatch} on hot paths.
 *
 * @example
 * evaluateMatch(parseMatch('tcp.dst == 80'), packetFromRecord({ fields: {
 *   'eth.type': 0x800, 'ip.proto': 6, 'tcp.dst': 80 } }), {}) // true
 */
export function evaluateMatch(expr: MatchExpr, packet: MatchPacket, env: MatchEnv = {}): boolean {
  if (checkMatchEnv(expr, env).length > 0) return false;
  return new Evaluator(packet, env).eval(expr, true);
}

type Values = readonly IntConstant[] | readonly string[];

class Evaluator {
  constructor(
    private readonly packet: MatchPacket,
    private readonly env: MatchEnv,
  ) {}

  /** `positive`: the node is under an even number of `!`. */
  eval(e: MatchExpr, positive: boolean): boolean {
    switch (e.kind) {
      case 'bool':
        return e.value === positive;
      case 'and':
        return positive ? e.args.every((a) => this.eval(a, true)) : e.args.some((a) => this.eval(a, false));
      case 'or':
        return positive ? e.args.some((a) => this.eval(a, true)) : e.args.every((a) => this.eval(a, false));
      case 'not':
        return this.eval(e.expr, !positive);
      case 'chassis-resident':
        return (this.env.isChassisResident?.(e.port) ?? true) === positive;
      case 'cmp':
        return this.cmp(e.field, e.op, e.value, positive);
      case 'field':
        return this.cmp(e.field, '!=', ZERO, positive);
      case 'range': {
        const lo = this.cmp(e.field, e.low.inclusive ? '>=' : '>', e.low.value, positive);
        const hi = this.cmp(e.field, e.high.inclusive ? '<=' : '<', e.high.value, positive);
        return positive ? lo && hi : lo || hi;
      }
    }
  }

  private cmp(field: FieldRef, written: RelOp, value: MatchValue, positive: boolean): boolean {
    const op = positive ? written : invertOp(written);
    const values = this.values(value);
    if (values.length === 0) return op === '!=';
    const sym = lookupSymbol(field.name) as MatchSymbol;
    const any = op === '==';
    if (sym.kind === 'predicate') {
      const p = this.eval(predicateExpr(sym), true);
      const test = (v: IntConstant) => (((v.value & 1n) === 1n) !== (op === '!=') ? p : !p);
      const ints = values as readonly IntConstant[];
      return any ? ints.some(test) : ints.every(test);
    }
    let result: boolean;
    if (sym.kind === 'string') {
      const x = this.packet[sym.name];
      // No port is named "": OVN's lookup fails and the comparison is false either way.
      const test = (v: string) => v !== '' && (op === '==' ? x === v : x !== v);
      const strs = values as readonly string[];
      result = any ? strs.some(test) : strs.every(test);
    } else {
      const [x, n] = this.read(sym, field);
      const test = (v: IntConstant) => testInt(x, op, v, n);
      const ints = values as readonly IntConstant[];
      result = any ? ints.some(test) : ints.every(test);
    }
    return result && (sym.prereqs === undefined || this.eval(symtabExpr(sym.prereqs), true));
  }

  private read(sym: IntSymbol, field: FieldRef): [bigint, number] {
    const raw = this.packet.get(sym.storage);
    const v = raw === undefined ? 0n : BigInt(raw);
    const lo = field.slice?.lo ?? 0;
    const n = field.slice === undefined ? sym.width : field.slice.hi - field.slice.lo + 1;
    return [(v >> BigInt(sym.offset + lo)) & ((1n << BigInt(n)) - 1n), n];
  }

  private values(value: MatchValue): Values {
    const items = value.kind === 'set' ? value.items : [value];
    const ints: IntConstant[] = [];
    const strs: string[] = [];
    for (const it of items) {
      if (it.kind === 'int') ints.push(it);
      else if (it.kind === 'address-set') appendAll(ints, addressSetValues(this.env, it.name) ?? []);
      else if (it.kind === 'string') strs.push(it.value);
      else appendAll(strs, portGroupMembers(this.env, it.name) ?? []);
    }
    return ints.length > 0 ? ints : strs;
  }
}

/** `x op c` on an n-bit slice: the constant and its mask cut to n bits, compared under the mask. */
export function testInt(x: bigint, op: RelOp, c: IntConstant, n: number): boolean {
  const ones = (1n << BigInt(n)) - 1n;
  const m = (c.mask ?? ones) & ones;
  const xv = x & m;
  const cv = c.value & m;
  switch (op) {
    case '==':
      return xv === cv;
    case '!=':
      return xv !== cv;
    case '<':
      return xv < cv;
    case '<=':
      return xv <= cv;
    case '>':
      return xv > cv;
    case '>=':
      return xv >= cv;
  }
}

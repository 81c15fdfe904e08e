/**
 * The compiled evaluator: a match turned once into a tree of closures, for
 * the simulator's hot path. Same semantics as evaluate.ts (see its header),
 * which the property tests hold it to. Beyond the hashed set tests of
 * matchers.ts it hoists prerequisites: in a conjunction each prerequisite
 * (`ip4`, `tcp`, …) is tested once, after the comparisons, so that the
 * usual ACL (`outport == @pg && ip4.src == $as && tcp.dst == 80`) fails
 * fast on the port group.
 */
import { type FieldRef, type IntConstant, type MatchExpr, type MatchValue, type RelOp, invertOp } from './ast.ts';
import { type MatchEnv, addressSetValues, checkMatchEnv, envMemo, portGroupMembers } from './env.ts';
import { symtabExpr } from './expansions.ts';
import { type MatchSymbol, type PredicateSymbol, lookupSymbol } from './fields.ts';
import { type FieldSlice, type Test, isOrdinal, membershipTest, ordinalTest } from './matchers.ts';
import type { MatchPacket } from './packet.ts';
import { ZERO } from './walk.ts';
import { appendAll } from '../append.ts';

export type CompiledMatch = (packet: MatchPacket) => boolean;

const TRUE: Test = () => true;
const FALSE: Test = () => false;

/** A test plus the prerequisites (symbol-table match text) that must also hold. */
interface Node {
  readonly test: Test;
  readonly reqs: readonly string[];
}

/**
 * Compiles `expr` for `env`. Build once per (match, env) and call per packet;
 * structures built from address sets are shared between matches compiled
 * against the same env object.
 *
 * @example
 * const allow = compileMatch(parseMatch('outport == @pg && ip4.src == $as && tcp.dst == 80'), env);
 * allow(packet) // boolean
 */
export function compileMatch(expr: MatchExpr, env: MatchEnv = {}): CompiledMatch {
  if (checkMatchEnv(expr, env).length > 0) return FALSE;
  return finish(new Compiler(env).node(expr, true));
}

function finish(n: Node): Test {
  return allOf([n.test, ...n.reqs.map(prereqTest)]);
}

const staticTests = new Map<string, Test>();
const NO_ENV: MatchEnv = {};

/** A prerequisite or predicate expansion, compiled once per process (they name no sets). */
function staticTest(text: string): Test {
  let t = staticTests.get(text);
  if (t === undefined) {
    t = finish(new Compiler(NO_ENV).node(symtabExpr(text), true));
    staticTests.set(text, t);
  }
  return t;
}

const prereqTest = (text: string): Test => staticTest(text);
const predicateTest = (sym: PredicateSymbol): Test => staticTest(sym.expansion);

class Compiler {
  constructor(private readonly env: MatchEnv) {}

  node(e: MatchExpr, positive: boolean): Node {
    switch (e.kind) {
      case 'bool':
        return leaf(e.value === positive ? TRUE : FALSE);
      case 'and':
      case 'or':
        return combine(
          (e.kind === 'and') === positive,
          e.args.map((a) => this.node(a, positive)),
        );
      case 'not':
        return this.node(e.expr, !positive);
      case 'chassis-resident':
        return leaf((this.env.isChassisResident?.(e.port) ?? true) === positive ? TRUE : FALSE);
      case 'cmp':
        return this.cmp(e.field, e.op, e.value, positive);
      case 'field':
        return this.cmp(e.field, '!=', ZERO, positive);
      case 'range': {
        const lo = this.cmp(e.field, e.low.inclusive ? '>=' : '>', e.low.value, positive);
        const hi = this.cmp(e.field, e.high.inclusive ? '<=' : '<', e.high.value, positive);
        return combine(positive, [lo, hi]);
      }
    }
  }

  private cmp(field: FieldRef, written: RelOp, value: MatchValue, positive: boolean): Node {
    const op = positive ? written : invertOp(written);
    const sym = lookupSymbol(field.name) as MatchSymbol;
    if (sym.kind === 'string') {
      const strs = this.strings(value);
      return strs.length === 0 ? leaf(op === '!=' ? TRUE : FALSE) : leaf(stringTest(sym.name, strs, op === '!='));
    }
    const ints = this.ints(value);
    if (ints.length === 0) return leaf(op === '!=' ? TRUE : FALSE);
    if (sym.kind === 'predicate') return leaf(predicateCmp(sym, op, ints));
    const lo = field.slice?.lo ?? 0;
    const n = field.slice === undefined ? sym.width : field.slice.hi - field.slice.lo + 1;
    const slice: FieldSlice = { sym, shift: sym.offset + lo, n };
    const build = (): Test => (isOrdinal(op) ? ordinalTest(slice, op, ints) : membershipTest(slice, ints, op === '!='));
    // A bare address set is the common ACL shape: share its index across matches.
    const test =
      value.kind === 'address-set'
        ? envMemo(this.env, `${value.name}\n${sym.storage}\n${slice.shift}\n${n}\n${op}`, build)
        : build();
    return { test, reqs: sym.prereqs === undefined ? [] : [sym.prereqs] };
  }

  private ints(value: MatchValue): IntConstant[] {
    const items = value.kind === 'set' ? value.items : [value];
    const out: IntConstant[] = [];
    for (const it of items) {
      if (it.kind === 'int') out.push(it);
      else if (it.kind === 'address-set') appendAll(out, addressSetValues(this.env, it.name) ?? []);
    }
    return out;
  }

  private strings(value: MatchValue): string[] {
    const items = value.kind === 'set' ? value.items : [value];
    const out: string[] = [];
    for (const it of items) {
      if (it.kind === 'string') out.push(it.value);
      else if (it.kind === 'port-group') appendAll(out, portGroupMembers(this.env, it.name) ?? []);
    }
    return out;
  }
}

const leaf = (test: Test): Node => ({ test, reqs: [] });

function stringTest(name: 'inport' | 'outport', all: readonly string[], negate: boolean): Test {
  // "" names no port: each comparison with it is false (evaluate.ts, rule 7).
  const values = all.filter((v) => v !== '');
  if (values.length < all.length && negate) return FALSE;
  if (values.length === 0) return FALSE;
  if (values.length === 1) {
    const v = values[0];
    if (name === 'inport') return negate ? (p) => p.inport !== v : (p) => p.inport === v;
    return negate ? (p) => p.outport !== v : (p) => p.outport === v;
  }
  const set = new Set(values);
  if (name === 'inport') return negate ? (p) => !set.has(p.inport) : (p) => set.has(p.inport);
  return negate ? (p) => !set.has(p.outport) : (p) => set.has(p.outport);
}

/** Each value tests the expansion P positively or negatively; `==` ORs them, `!=` ANDs them. */
function predicateCmp(sym: PredicateSymbol, op: RelOp, values: readonly IntConstant[]): Test {
  const positives = values.map((v) => ((v.value & 1n) === 1n) !== (op === '!='));
  const hasPos = positives.includes(true);
  const hasNeg = positives.includes(false);
  const p = predicateTest(sym);
  if (hasPos && hasNeg) return op === '==' ? TRUE : FALSE;
  return hasPos ? p : (x) => !p(x);
}

/** AND (`conj`) or OR of nodes. An AND hoists all prerequisites; an OR only when every branch has the same ones. */
function combine(conj: boolean, nodes: readonly Node[]): Node {
  if (conj) {
    const reqs = [...new Set(nodes.flatMap((n) => n.reqs))];
    return { test: allOf(nodes.map((n) => n.test)), reqs };
  }
  const key = (n: Node) => [...n.reqs].sort().join('\n');
  const k0 = nodes[0] === undefined ? '' : key(nodes[0]);
  if (nodes.every((n) => key(n) === k0)) return { test: anyOf(nodes.map((n) => n.test)), reqs: nodes[0]?.reqs ?? [] };
  return leaf(anyOf(nodes.map(finish)));
}

function allOf(tests: readonly Test[]): Test {
  if (tests.includes(FALSE)) return FALSE;
  const ts = tests.filter((t) => t !== TRUE);
  const [a, b, c] = ts;
  switch (ts.length) {
    case 0:
      return TRUE;
    case 1:
      return a as Test;
    case 2:
      return (p) => (a as Test)(p) && (b as Test)(p);
    case 3:
      return (p) => (a as Test)(p) && (b as Test)(p) && (c as Test)(p);
    default:
      return (p) => {
        for (const t of ts) if (!t(p)) return false;
        return true;
      };
  }
}

function anyOf(tests: readonly Test[]): Test {
  if (tests.includes(TRUE)) return TRUE;
  const ts = tests.filter((t) => t !== FALSE);
  const [a, b] = ts;
  switch (ts.length) {
    case 0:
      return FALSE;
    case 1:
      return a as Test;
    case 2:
      return (p) => (a as Test)(p) || (b as Test)(p);
    default:
      return (p) => {
        for (const t of ts) if (t(p)) return true;
        return false;
      };
  }
}

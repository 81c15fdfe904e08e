/**
 * Fast tests of one integer field against a list of constants, built once:
 * membership is a hash lookup per distinct mask (an address set of CIDRs
 * costs one Set probe per prefix length present), fields up to 32 bits stay
 * in plain numbers, wider ones use bigints, and full-width unmasked tests on
 * 48-bit fields (MACs) compare numbers.
 */
import type { IntConstant, RelOp } from './ast.ts';
import type { IntSymbol } from './fields.ts';
import type { MatchPacket } from './packet.ts';

export type Test = (p: MatchPacket) => boolean;

/** Where a comparison reads: `n` bits at bit `shift` of `sym.storage`. */
export interface FieldSlice {
  readonly sym: IntSymbol;
  readonly shift: number;
  readonly n: number;
}

type Ordinal = '<' | '<=' | '>' | '>=';

/** `x == any of values` (`negate`: `x != all of values`). `values` is non-empty. */
export function membershipTest(f: FieldSlice, values: readonly IntConstant[], negate: boolean): Test {
  const t = membershipPositive(f, values);
  return negate ? (p) => !t(p) : t;
}

function membershipPositive(f: FieldSlice, values: readonly IntConstant[]): Test {
  const { sym, n } = f;
  if (sym.storageWidth <= 32) {
    const read = readNumber(f);
    const has = numberMembership(values, n);
    return (p) => has(read(p));
  }
  const full = f.shift === 0 && n === sym.storageWidth;
  if (full && n <= 53 && values.every((v) => v.mask === undefined)) {
    const key = sym.storage;
    const set = new Set(values.map((v) => Number(v.value)));
    return (p) => {
      const v = p.get(key);
      return set.has(v === undefined ? 0 : typeof v === 'number' ? v : Number(v));
    };
  }
  const read = readBigint(f);
  const has = bigintMembership(values, n);
  return (p) => has(read(p));
}

/** `x op v` for every value (OVN ANDs an ordinal comparison over a set's values). */
export function ordinalTest(f: FieldSlice, op: Ordinal, values: readonly IntConstant[]): Test {
  if (f.sym.storageWidth <= 32) {
    const read = readNumber(f);
    const ones = BigInt(2 ** f.n - 1);
    const terms = values.map((v) => {
      const m = (v.mask ?? ones) & ones;
      return { m: Number(m), c: Number(v.value & m) };
    });
    const cmp = numberCompare(op);
    if (terms.length === 1 && terms[0]?.m === Number(ones)) {
      const c = terms[0].c;
      return (p) => cmp(read(p), c);
    }
    return (p) => {
      const x = read(p);
      return terms.every((t) => cmp((x & t.m) >>> 0, t.c));
    };
  }
  const read = readBigint(f);
  const ones = (1n << BigInt(f.n)) - 1n;
  const terms = values.map((v) => {
    const m = (v.mask ?? ones) & ones;
    return { m, c: v.value & m };
  });
  const cmp = bigintCompare(op);
  return (p) => {
    const x = read(p);
    return terms.every((t) => cmp(x & t.m, t.c));
  };
}

function readNumber(f: FieldSlice): (p: MatchPacket) => number {
  const key = f.sym.storage;
  const shift = f.shift;
  const ones = f.n === 32 ? -1 : 2 ** f.n - 1;
  return (p) => {
    const v = p.get(key);
    if (v === undefined) return 0;
    const x = typeof v === 'number' ? v : Number(BigInt.asUintN(32, v));
    return ((x >>> shift) & ones) >>> 0;
  };
}

function readBigint(f: FieldSlice): (p: MatchPacket) => bigint {
  const key = f.sym.storage;
  const shift = BigInt(f.shift);
  const ones = (1n << BigInt(f.n)) - 1n;
  return (p) => {
    const v = p.get(key);
    if (v === undefined) return 0n;
    return ((typeof v === 'bigint' ? v : BigInt(v)) >> shift) & ones;
  };
}

/** Values grouped by mask: `x` matches when `x & mask` is in the mask's set. */
function numberMembership(values: readonly IntConstant[], n: number): (x: number) => boolean {
  const ones = BigInt(2 ** n - 1);
  const groups = new Map<number, Set<number>>();
  for (const v of values) {
    const m = (v.mask ?? ones) & ones;
    const set = groups.get(Number(m)) ?? new Set<number>();
    set.add(Number(v.value & m));
    groups.set(Number(m), set);
  }
  const entries = [...groups];
  const full = Number(ones);
  if (entries.length === 1) {
    const [m, set] = entries[0] as [number, Set<number>];
    if (set.size === 1) {
      const c = set.values().next().value as number;
      return m === full ? (x) => x === c : (x) => (x & m) >>> 0 === c;
    }
    return m === full ? (x) => set.has(x) : (x) => set.has((x & m) >>> 0);
  }
  return (x) => {
    for (const [m, set] of entries) if (set.has((x & m) >>> 0)) return true;
    return false;
  };
}

function bigintMembership(values: readonly IntConstant[], n: number): (x: bigint) => boolean {
  const ones = (1n << BigInt(n)) - 1n;
  const groups = new Map<bigint, Set<bigint>>();
  for (const v of values) {
    const m = (v.mask ?? ones) & ones;
    const set = groups.get(m) ?? new Set<bigint>();
    set.add(v.value & m);
    groups.set(m, set);
  }
  const entries = [...groups];
  if (entries.length === 1) {
    const [m, set] = entries[0] as [bigint, Set<bigint>];
    return m === ones ? (x) => set.has(x) : (x) => set.has(x & m);
  }
  return (x) => {
    for (const [m, set] of entries) if (set.has(x & m)) return true;
    return false;
  };
}

function numberCompare(op: Ordinal): (a: number, b: number) => boolean {
  switch (op) {
    case '<':
      return (a, b) => a < b;
    case '<=':
      return (a, b) => a <= b;
    case '>':
      return (a, b) => a > b;
    case '>=':
      return (a, b) => a >= b;
  }
}

function bigintCompare(op: Ordinal): (a: bigint, b: bigint) => boolean {
  switch (op) {
    case '<':
      return (a, b) => a < b;
    case '<=':
      return (a, b) => a <= b;
    case '>':
      return (a, b) => a > b;
    case '>=':
      return (a, b) => a >= b;
  }
}

export const isOrdinal = (op: RelOp): op is Ordinal => op !== '==' && op !== '!=';

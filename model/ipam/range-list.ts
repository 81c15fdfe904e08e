/**
 * Sorted lists of disjoint address ranges: the only way the IPAM stores
 * address space, so memory follows the number of ranges, never the CIDR size.
 *
 * One implementation serves IPv4 (`number`) and IPv6 (`bigint`): comparisons
 * use the native operators (which work on both) and the few arithmetic steps
 * go through an {@link Arith} object, so the IPv4 hot path stays on plain
 * numbers.
 */

export type Addr = number | bigint;

/** The arithmetic a range list needs, per family. */
export interface Arith<T extends Addr> {
  readonly zero: T;
  readonly one: T;
  succ(x: T): T;
  pred(x: T): T;
  add(a: T, b: T): T;
  sub(a: T, b: T): T;
}

export const ARITH4: Arith<number> = {
  zero: 0,
  one: 1,
  succ: (x) => x + 1,
  pred: (x) => x - 1,
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
};

export const ARITH6: Arith<bigint> = {
  zero: 0n,
  one: 1n,
  succ: (x) => x + 1n,
  pred: (x) => x - 1n,
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
};

/**
 * Ranges per block. Blocks keep inserts and deletes O(log n + BLOCK) however
 * fragmented the list gets (random releases), instead of O(n) array splices.
 */
const BLOCK = 64;

/**
 * A mutable set of addresses stored as inclusive ranges, in blocks of flat
 * `[start0, end0, start1, end1, ...]` arrays. Ranges never touch: adjacent
 * ones are merged.
 *
 * @example
 * const l = RangeList.fromFlat(ARITH4, [10, 20]);
 * l.takeFirst(); // 10
 * l.remove(15);  // true: now [11..14] [16..20]
 * l.count;       // 9
 */
export class RangeList<T extends Addr> {
  private blocks: T[][] = [];
  private total: T;
  private nRanges = 0;

  constructor(readonly ops: Arith<T>) {
    this.total = ops.zero;
  }

  /** From a normalized flat list (sorted, disjoint, non-adjacent), see {@link normalize}. */
  static fromFlat<T extends Addr>(ops: Arith<T>, flat: readonly T[]): RangeList<T> {
    const l = new RangeList(ops);
    // Fill blocks three-quarters full so early inserts do not split at once.
    const per = (BLOCK * 3) >> 1;
    for (let i = 0; i < flat.length; i += per) l.blocks.push(flat.slice(i, i + per));
    l.total = flatCount(ops, flat);
    l.nRanges = flat.length >> 1;
    return l;
  }

  /** Number of addresses. */
  get count(): T {
    return this.total;
  }

  get rangeCount(): number {
    return this.nRanges;
  }

  get isEmpty(): boolean {
    return this.nRanges === 0;
  }

  first(): T | undefined {
    return this.blocks[0]?.[0];
  }

  /** Removes and returns the lowest address. */
  takeFirst(): T | undefined {
    const blk = this.blocks[0];
    if (blk === undefined) return undefined;
    const s = blk[0]!;
    if (s === blk[1]) {
      blk.splice(0, 2);
      if (blk.length === 0) this.blocks.shift();
      this.nRanges--;
    } else {
      blk[0] = this.ops.succ(s);
    }
    this.total = this.ops.sub(this.total, this.ops.one);
    return s;
  }

  has(x: T): boolean {
    const b = this.blockOf(x);
    if (b < 0) return false;
    const blk = this.blocks[b]!;
    return x <= blk[rangeIn(blk, x) + 1]!;
  }

  remove(x: T): boolean {
    const b = this.blockOf(x);
    if (b < 0) return false;
    const blk = this.blocks[b]!;
    const i = rangeIn(blk, x);
    const s = blk[i]!;
    const e = blk[i + 1]!;
    if (x > e) return false;
    const { ops } = this;
    if (s === e) {
      blk.splice(i, 2);
      if (blk.length === 0) this.blocks.splice(b, 1);
      this.nRanges--;
    } else if (x === s) {
      blk[i] = ops.succ(s);
    } else if (x === e) {
      blk[i + 1] = ops.pred(e);
    } else {
      blk[i + 1] = ops.pred(x);
      blk.splice(i + 2, 0, ops.succ(x), e);
      this.nRanges++;
      this.splitIfFull(b);
    }
    this.total = ops.sub(this.total, ops.one);
    return true;
  }

  add(x: T): boolean {
    const { ops } = this;
    const b = this.blockOf(x);
    if (b < 0) {
      // Below every range: extend the first range or open a new one in front.
      const blk0 = this.blocks[0];
      if (blk0 !== undefined && blk0[0] === ops.succ(x)) {
        blk0[0] = x;
      } else {
        if (blk0 === undefined) this.blocks.push([x, x]);
        else blk0.unshift(x, x);
        this.nRanges++;
        this.splitIfFull(0);
      }
      this.total = ops.add(this.total, ops.one);
      return true;
    }
    const blk = this.blocks[b]!;
    const i = rangeIn(blk, x);
    const e = blk[i + 1]!;
    if (x <= e) return false;
    let nb = b;
    let ni = i + 2;
    if (ni >= blk.length) {
      nb = b + 1;
      ni = 0;
    }
    const next = this.blocks[nb];
    const joinPrev = ops.succ(e) === x;
    const joinNext = next !== undefined && next[ni] === ops.succ(x);
    if (joinPrev && joinNext) {
      blk[i + 1] = next[ni + 1]!;
      next.splice(ni, 2);
      if (next.length === 0) this.blocks.splice(nb, 1);
      this.nRanges--;
    } else if (joinPrev) {
      blk[i + 1] = x;
    } else if (joinNext) {
      next[ni] = x;
    } else {
      blk.splice(i + 2, 0, x, x);
      this.nRanges++;
      this.splitIfFull(b);
    }
    this.total = ops.add(this.total, ops.one);
    return true;
  }

  /** A normalized flat copy `[s0, e0, s1, e1, ...]`. */
  toFlat(): T[] {
    const out: T[] = [];
    for (const blk of this.blocks) for (const v of blk) out.push(v);
    return out;
  }

  /** Index of the last block whose first start is <= x, or -1. */
  private blockOf(x: T): number {
    const bs = this.blocks;
    let lo = 0;
    let hi = bs.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (bs[mid]![0]! <= x) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  private splitIfFull(b: number): void {
    const blk = this.blocks[b]!;
    if (blk.length <= BLOCK * 2) return;
    const half = (blk.length >> 2) << 1;
    this.blocks.splice(b + 1, 0, blk.splice(half));
  }
}

/** Flat index of the last range in `blk` whose start is <= x (blk[0] <= x is given). */
function rangeIn<T extends Addr>(blk: readonly T[], x: T): number {
  let lo = 0;
  let hi = (blk.length >> 1) - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (blk[mid * 2]! <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo * 2;
}

const cmp = <T extends Addr>(a: T, b: T): number => (a < b ? -1 : a > b ? 1 : 0);

/** Sorts and merges arbitrary `[start, end]` pairs into a normalized flat list. */
export function normalize<T extends Addr>(ops: Arith<T>, pairs: ReadonlyArray<readonly [T, T]>): T[] {
  const sorted = [...pairs].sort((a, b) => cmp(a[0], b[0]));
  const out: T[] = [];
  for (const [s, e] of sorted) {
    const n = out.length;
    if (n > 0 && s <= ops.succ(out[n - 1]!)) {
      if (e > out[n - 1]!) out[n - 1] = e;
    } else {
      out.push(s, e);
    }
  }
  return out;
}

/** `a` minus `b`, both normalized flat lists. */
export function subtract<T extends Addr>(ops: Arith<T>, a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  let j = 0;
  for (let i = 0; i < a.length; i += 2) {
    let s = a[i]!;
    const e = a[i + 1]!;
    while (j < b.length && b[j + 1]! < s) j += 2;
    let k = j;
    while (k < b.length && b[k]! <= e && s <= e) {
      if (b[k]! > s) out.push(s, ops.pred(b[k]!));
      if (b[k + 1]! >= e) {
        s = ops.succ(e);
        break;
      }
      s = ops.succ(b[k + 1]!);
      k += 2;
    }
    if (s <= e) out.push(s, e);
  }
  return out;
}

/** `a` intersected with `b`, both normalized flat lists. */
export function intersect<T extends Addr>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    // Addresses may be bigint (IPv6): no Math.max/min.
    const s = a[i]! > b[j]! ? a[i]! : b[j]!;
    const e = a[i + 1]! < b[j + 1]! ? a[i + 1]! : b[j + 1]!;
    if (s <= e) out.push(s, e);
    if (a[i + 1]! < b[j + 1]!) i += 2;
    else j += 2;
  }
  return out;
}

/** `a` minus a sorted list of distinct points, in one sweep. */
export function subtractPoints<T extends Addr>(ops: Arith<T>, a: readonly T[], points: ArrayLike<T>): T[] {
  const out: T[] = [];
  let j = 0;
  for (let i = 0; i < a.length; i += 2) {
    let s = a[i]!;
    const e = a[i + 1]!;
    while (j < points.length && points[j]! < s) j++;
    while (j < points.length && points[j]! <= e) {
      const p = points[j]!;
      if (p > s) out.push(s, ops.pred(p));
      s = ops.succ(p);
      j++;
    }
    if (s <= e) out.push(s, e);
  }
  return out;
}

/** Whether a normalized flat list contains x (binary search). */
export function flatHas<T extends Addr>(flat: readonly T[], x: T): boolean {
  let lo = 0;
  let hi = (flat.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (flat[mid * 2 + 1]! < x) lo = mid + 1;
    else if (flat[mid * 2]! > x) hi = mid - 1;
    else return true;
  }
  return false;
}

/** Number of addresses in a normalized flat list. */
export function flatCount<T extends Addr>(ops: Arith<T>, flat: readonly T[]): T {
  let total = ops.zero;
  for (let i = 0; i < flat.length; i += 2) total = ops.add(total, ops.succ(ops.sub(flat[i + 1]!, flat[i]!)));
  return total;
}

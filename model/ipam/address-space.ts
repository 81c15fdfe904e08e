/**
 * One address family of one subnet: which addresses are free, which were
 * released, and how many are held. It knows nothing of owners (the IPAM's
 * lease store does); it only hands out, takes back and counts addresses.
 *
 * Kube-OVN's order: every pool keeps a `free` list (never used since the last
 * rebuild) and a `released` list; allocation takes the lowest free address,
 * and only when `free` is empty does `released` become the new `free`.
 */
import {
  type Addr,
  type Arith,
  RangeList,
  flatCount,
  flatHas,
  intersect,
  normalize,
  subtract,
  subtractPoints,
} from './range-list.ts';
import type { FamilyConfig } from './subnet-spec.ts';

export type PoolSpace<T extends Addr> = {
  readonly name: string;
  /** Every address of the pool (the default pool: the CIDR minus the named pools). */
  readonly ips: readonly T[];
  free: RangeList<T>;
  released: RangeList<T>;
};

export type FamilyCounters<T extends Addr> = {
  /** Addresses held by an owner, requested excluded ones included. */
  readonly used: T;
  /** Addresses a dynamic allocation could still get. */
  readonly available: T;
};

/** Why a requested address cannot be held at all. */
export type ClaimCheck = 'ok' | 'out-of-range' | 'reserved';

export class AddressSpace<T extends Addr> {
  /** Index 0 is the default pool (name ''), then the named pools in the order given. */
  readonly pools: PoolSpace<T>[];
  private usedCount: T;
  /** Fixed addresses and excludes together: what no pool ever lists as free. */
  private readonly blocked: readonly T[];

  constructor(
    readonly config: FamilyConfig<T>,
    readonly ops: Arith<T>,
    named: readonly { readonly name: string; readonly ips: readonly T[] }[],
  ) {
    const all = [config.network, config.last];
    const union = normalize(
      ops,
      named.flatMap((p) => pairsOf(p.ips)),
    );
    this.pools = [{ name: '', ips: subtract(ops, all, union), free: new RangeList(ops), released: new RangeList(ops) }];
    for (const p of named)
      this.pools.push({
        name: p.name,
        ips: intersect(p.ips, all),
        free: new RangeList(ops),
        released: new RangeList(ops),
      });
    this.blocked = normalize(ops, [...config.fixed.map((v): [T, T] => [v, v]), ...pairsOf(config.excludes)]);
    this.usedCount = ops.zero;
    this.rebuild([], []);
  }

  /**
   * Recomputes every pool from the held addresses (sorted, distinct) and the
   * addresses to treat as released (normalized flat): restore and
   * reconfiguration go through here, in one sweep per pool.
   */
  rebuild(held: ArrayLike<T>, released: readonly T[]): void {
    const { ops } = this;
    for (const pool of this.pools) {
      const open = subtractPoints(ops, subtract(ops, pool.ips, this.blocked), held);
      const rel = intersect(open, released);
      pool.free = RangeList.fromFlat(ops, subtract(ops, open, rel));
      pool.released = RangeList.fromFlat(ops, rel);
    }
    let used = ops.zero;
    for (let i = 0; i < held.length; i++) used = ops.succ(used);
    this.usedCount = used;
  }

  contains(v: T): boolean {
    return this.config.network <= v && v <= this.config.last;
  }

  /** Whether v may be held at all: inside the CIDR and not network, broadcast or gateway. */
  check(v: T): ClaimCheck {
    if (!this.contains(v)) return 'out-of-range';
    return this.config.fixed.includes(v) ? 'reserved' : 'ok';
  }

  isExcluded(v: T): boolean {
    return flatHas(this.config.excludes, v);
  }

  poolOf(v: T): PoolSpace<T> {
    for (let i = 1; i < this.pools.length; i++) if (flatHas(this.pools[i]!.ips, v)) return this.pools[i]!;
    return this.pools[0]!;
  }

  hasRoom(pool: number): boolean {
    const p = this.pools[pool]!;
    return !p.free.isEmpty || !p.released.isEmpty;
  }

  /** The lowest free address of the pool, else the lowest released one; undefined when exhausted. */
  take(pool: number): T | undefined {
    const p = this.pools[pool]!;
    if (p.free.isEmpty) {
      if (p.released.isEmpty) return undefined;
      p.free = p.released;
      p.released = new RangeList(this.ops);
    }
    const v = p.free.takeFirst();
    this.usedCount = this.ops.succ(this.usedCount);
    return v;
  }

  /**
   * Marks a requested address held (after {@link check} said 'ok' and the
   * caller found no holder). An excluded address may be requested, as in
   * Kube-OVN: it is counted as used but was never available.
   */
  claim(v: T): void {
    if (!this.isExcluded(v)) {
      const p = this.poolOf(v);
      if (!p.free.remove(v) && !p.released.remove(v)) throw new Error(`IPAM invariant: ${v} claimed but not free`);
    }
    this.usedCount = this.ops.succ(this.usedCount);
  }

  /** Takes back a held address; it becomes released (reused after the free ones). */
  giveBack(v: T): void {
    this.usedCount = this.ops.pred(this.usedCount);
    if (this.check(v) !== 'ok' || this.isExcluded(v)) return;
    this.poolOf(v).released.add(v);
  }

  counters(pool?: number): FamilyCounters<T> {
    const { ops } = this;
    let available = ops.zero;
    for (let i = 0; i < this.pools.length; i++) {
      if (pool !== undefined && i !== pool) continue;
      const p = this.pools[i]!;
      available = ops.add(available, ops.add(p.free.count, p.released.count));
    }
    return { used: pool === undefined ? this.usedCount : this.usedIn(pool), available };
  }

  /** Every released address, normalized flat. */
  releasedFlat(): T[] {
    return normalize(
      this.ops,
      this.pools.flatMap((p) => pairsOf(p.released.toFlat())),
    );
  }

  private usedIn(pool: number): T {
    const p = this.pools[pool]!;
    const { ops } = this;
    const usable = ops.sub(flatCount(ops, p.ips), flatCount(ops, intersect(p.ips, this.blocked)));
    // Held excluded addresses are not counted per pool: a pool's "used" is what left its free space.
    return ops.sub(usable, ops.add(p.free.count, p.released.count));
  }
}

export function pairsOf<T extends Addr>(flat: readonly T[]): [T, T][] {
  const out: [T, T][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

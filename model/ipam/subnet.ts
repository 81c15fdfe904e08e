/**
 * The per-Subnet allocator: the subnet's validated config, its IPPools and
 * one {@link AddressSpace} per family. Owners, MACs and idempotency live one
 * level up, in the IPAM, because owner keys and MACs are unique cluster-wide.
 */
import { type FamilyCounters, AddressSpace } from './address-space.ts';
import type { PoolConfig } from './pool-spec.ts';
import { ARITH4, ARITH6 } from './range-list.ts';
import type { SubnetConfig } from './subnet-spec.ts';

export type SubnetCounters = {
  readonly v4?: FamilyCounters<number>;
  readonly v6?: FamilyCounters<bigint>;
};

/** What callers outside the IPAM may see of a subnet: changes go through the IPAM, which keeps owners in step. */
export interface SubnetView {
  readonly name: string;
  readonly config: SubnetConfig;
  readonly pools: readonly PoolConfig[];
  readonly isDualStack: boolean;
  counters(pool?: number): SubnetCounters;
  rangeCounts(): { readonly v4?: number; readonly v6?: number };
}

export class SubnetAllocator implements SubnetView {
  readonly name: string;
  readonly v4: AddressSpace<number> | undefined;
  readonly v6: AddressSpace<bigint> | undefined;
  /** Named pools, sorted by name; pool index i + 1 in each address space. */
  readonly pools: readonly PoolConfig[];
  /** Whether some pool is bound to namespaces (skips a lookup on the hot path otherwise). */
  readonly hasNamespacePools: boolean;

  constructor(
    /** Stable id, the subnet's key in the lease store. */
    readonly id: number,
    readonly config: SubnetConfig,
    pools: readonly PoolConfig[],
  ) {
    this.name = config.name;
    this.pools = [...pools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.v4 =
      config.v4 &&
      new AddressSpace(
        config.v4,
        ARITH4,
        this.pools.map((p) => ({ name: p.name, ips: p.v4 })),
      );
    this.v6 =
      config.v6 &&
      new AddressSpace(
        config.v6,
        ARITH6,
        this.pools.map((p) => ({ name: p.name, ips: p.v6 })),
      );
    this.hasNamespacePools = this.pools.some((p) => p.namespaces.length > 0);
  }

  get isDualStack(): boolean {
    return this.v4 !== undefined && this.v6 !== undefined;
  }

  /** 0 for the default pool (''), i + 1 for named pool i, -1 when unknown. */
  poolIndex(name: string): number {
    if (name === '') return 0;
    const i = this.pools.findIndex((p) => p.name === name);
    return i < 0 ? -1 : i + 1;
  }

  /** Indexes of the pools bound to a namespace, in name order. */
  poolsForNamespace(namespace: string): number[] {
    const out: number[] = [];
    this.pools.forEach((p, i) => {
      if (p.namespaces.includes(namespace)) out.push(i + 1);
    });
    return out;
  }

  /** Whether every family of the subnet has an address left in the pool. */
  hasRoom(pool: number): boolean {
    return (this.v4 === undefined || this.v4.hasRoom(pool)) && (this.v6 === undefined || this.v6.hasRoom(pool));
  }

  /**
   * Free and released ranges per family, all pools together: what the
   * subnet's memory follows (a fresh /8 or /64 is one range).
   *
   * @example ipam.subnet('big')!.rangeCounts() // { v4: 1 }
   */
  rangeCounts(): { readonly v4?: number; readonly v6?: number } {
    const count = (space: AddressSpace<number> | AddressSpace<bigint> | undefined) =>
      space?.pools.reduce((n, p) => n + p.free.rangeCount + p.released.rangeCount, 0);
    const v4 = count(this.v4);
    const v6 = count(this.v6);
    return { ...(v4 !== undefined ? { v4 } : {}), ...(v6 !== undefined ? { v6 } : {}) };
  }

  /**
   * @example ipam.subnet('ovn-default')!.counters() // { v4: { used: 3, available: 65529 } }
   */
  counters(pool?: number): SubnetCounters {
    return {
      ...(this.v4 ? { v4: this.v4.counters(pool) } : {}),
      ...(this.v6 ? { v6: this.v6.counters(pool) } : {}),
    };
  }
}

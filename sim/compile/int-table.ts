/**
 * Tables keyed by non-negative integers (48-bit MACs, IPv4 addresses) and by
 * addresses of either family, for lookups every packet makes (L2 lookup,
 * VIPs, LB backends). A MAC above 2^31 is no small integer to V8, so a Map
 * keyed by it hashes a boxed double per lookup; an IntTable is open
 * addressing over a Float64Array (keys contiguous in memory, one or two
 * probes, no boxing).
 */
import type { IpKey } from './addresses.ts';

const EMPTY = -1;

function hashOf(key: number, mask: number): number {
  // Mix the low 32 bits with the high ones (keys that differ only there must spread too); no double `%`.
  const high = Math.floor(key / 0x100000000);
  return (Math.imul((key - high * 0x100000000) ^ high, 0x9e3779b1) >>> 0) & mask;
}

export class IntTable<V> {
  private keys = new Float64Array(8).fill(EMPTY);
  private values: (V | undefined)[] = new Array<V | undefined>(8);
  private count = 0;

  get size(): number {
    return this.count;
  }

  private slot(key: number): number {
    const mask = this.keys.length - 1;
    for (let i = hashOf(key, mask); ; i = (i + 1) & mask) {
      const k = this.keys[i]!;
      if (k === key || k === EMPTY) return i;
    }
  }

  get(key: number): V | undefined {
    const i = this.slot(key);
    return this.keys[i] === key ? this.values[i] : undefined;
  }

  has(key: number): boolean {
    return this.keys[this.slot(key)] === key;
  }

  /** @example t.set(0x0a0000000001, 'p1'); t.get(0x0a0000000001) // 'p1' */
  set(key: number, value: V): this {
    // Never a MAC or an address (negative, fractional, NaN, beyond 2^53): refused rather than misfiled.
    if (!(key >= 0 && Number.isSafeInteger(key)))
      throw new RangeError(`IntTable: ${key} is not a non-negative integer key`);
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const i = this.slot(key);
    if (this.keys[i] !== key) {
      this.keys[i] = key;
      this.count++;
    }
    this.values[i] = value;
    return this;
  }

  private grow(): void {
    const keys = this.keys;
    const values = this.values;
    this.keys = new Float64Array(keys.length * 2).fill(EMPTY);
    this.values = new Array<V | undefined>(keys.length * 2);
    this.count = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== EMPTY) this.set(keys[i]!, values[i] as V);
  }
}

/** Keyed by `ipKey(ip)`: IPv4 (and small) keys in an IntTable, IPv6 ones in a Map. */
export class IpTable<V> {
  private readonly small = new IntTable<V>();
  private readonly big = new Map<bigint, V>();

  get(key: IpKey): V | undefined {
    return typeof key === 'number' ? this.small.get(key) : this.big.get(key);
  }

  /** Builds a table with the entries of a map keyed by `ipKey`. */
  static of<V>(m: ReadonlyMap<IpKey, V>): IpTable<V> {
    const t = new IpTable<V>();
    for (const [k, v] of m) {
      if (typeof k === 'number') t.small.set(k, v);
      else t.big.set(k, v);
    }
    return t;
  }
}

/**
 * A hash index of slot numbers (open addressing, linear probing, backward-
 * shift deletion) in one Int32Array of `[hash, slot + 1]` pairs (slot 0 =
 * empty). Keys live in the lease store's columns; the stored hash lets a
 * probe skip non-matching entries and lets a resize run without touching
 * the columns, so both stay within the table's own cache lines. An entry
 * costs about 12 bytes, against 30 to 60 for a JS Map entry.
 *
 * Lookups are written inline by the caller (it knows how to compare keys):
 *
 *   const { t, mask } = table;
 *   for (let i = hash & mask; t[2 * i + 1] !== 0; i = (i + 1) & mask)
 *     if (t[2 * i] === (hash | 0) && keyMatches(t[2 * i + 1] - 1)) return t[2 * i + 1] - 1;
 */
const MAX_LOAD = 0.8;

export class SlotTable {
  t: Int32Array;
  mask: number;
  size = 0;

  constructor(capacity = 1024) {
    this.t = new Int32Array(capacity * 2);
    this.mask = capacity - 1;
  }

  insert(hash: number, slot: number): void {
    if (this.size + 1 > (this.mask + 1) * MAX_LOAD) this.resize((this.mask + 1) * 2);
    place(this.t, this.mask, hash, slot + 1);
    this.size++;
  }

  /** Removes `slot`, found from its key's hash. False when absent. */
  remove(hash: number, slot: number): boolean {
    const { t, mask } = this;
    let i = hash & mask;
    for (;;) {
      const e = t[2 * i + 1]!;
      if (e === 0) return false;
      if (e === slot + 1) break;
      i = (i + 1) & mask;
    }
    // Backward shift: pull later entries of the probe run into the hole, so
    // lookups never need tombstones.
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const e = t[2 * j + 1]!;
      if (e === 0) break;
      const k = t[2 * j]! & mask;
      const reachable = i <= j ? i < k && k <= j : i < k || k <= j;
      if (!reachable) {
        t[2 * i] = t[2 * j]!;
        t[2 * i + 1] = e;
        i = j;
      }
    }
    t[2 * i] = 0;
    t[2 * i + 1] = 0;
    this.size--;
    return true;
  }

  /** Grows ahead of a known number of entries (restore), so inserts never resize. */
  reserve(entries: number): void {
    let cap = this.mask + 1;
    while (entries > cap * MAX_LOAD) cap *= 2;
    if (cap !== this.mask + 1) this.resize(cap);
  }

  clear(): void {
    this.t.fill(0);
    this.size = 0;
  }

  private resize(cap: number): void {
    const old = this.t;
    this.t = new Int32Array(cap * 2);
    this.mask = cap - 1;
    for (let i = 1; i < old.length; i += 2) {
      const e = old[i]!;
      if (e !== 0) place(this.t, this.mask, old[i - 1]!, e);
    }
  }
}

function place(t: Int32Array, mask: number, hash: number, entry: number): void {
  let i = hash & mask;
  while (t[2 * i + 1] !== 0) i = (i + 1) & mask;
  t[2 * i] = hash;
  t[2 * i + 1] = entry;
}

/** murmur3's 32-bit finalizer: cheap, and spreads sequential addresses well. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

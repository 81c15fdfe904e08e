/**
 * Every lease of the IPAM, one "slot" per owner, in columns (typed arrays)
 * rather than one object per lease: 25 bytes a slot plus three 8-byte index
 * entries (tables 40-80% full), 55 to 90 bytes of heap per IPv4 lease.
 *
 * Indexes: owner → slot, (subnet, IPv4) → slot and MAC → slot are slot
 * tables (hashes kept in the table, keys compared through the columns; a JS
 * Map costs 30-60 bytes an entry); (subnet, IPv6) → slot are Maps (IPv6 is
 * off the hot path).
 */
import { SlotTable, mix32 } from './slot-table.ts';

const HAS4 = 1;
const HAS6 = 2;

const hash4 = (sid: number, ip: number): number => mix32(ip ^ Math.imul(sid + 1, 0x9e3779b1));
const hashMac = (mac: number): number => mix32((mac >>> 0) ^ Math.imul((mac / 4294967296) | 0, 0x85ebca6b));

/**
 * FNV-1a over pairs of UTF-16 code units (half the multiply chain of one
 * unit a step), finished with mix32 so linear probing sees well-spread low bits.
 */
export function hashString(s: string): number {
  let h = 0x811c9dc5 ^ s.length;
  const even = s.length & ~1;
  for (let i = 0; i < even; i += 2) h = Math.imul(h ^ (s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16)), 0x01000193);
  if (even !== s.length) h = Math.imul(h ^ s.charCodeAt(even), 0x01000193);
  return mix32(h);
}

export class LeaseStore {
  private owners: (string | undefined)[] = [];
  private sids = new Int32Array(1024);
  private v4 = new Uint32Array(1024);
  private macs = new Float64Array(1024);
  private flags = new Uint8Array(1024);
  private readonly v6 = new Map<number, bigint>();
  private readonly v6Index = new Map<number, Map<bigint, number>>();
  private readonly ownerTable = new SlotTable();
  private readonly v4Table = new SlotTable();
  private readonly macTable = new SlotTable();
  private count = 0;
  /** The last owner looked up and its hash: allocate() asks slotOf then add for the same owner. */
  private lastOwner = '';
  private lastHash = hashString('');
  private freeSlots: number[] = [];
  private top = 0;

  /** Number of leases. */
  get size(): number {
    return this.count;
  }

  slotOf(owner: string): number {
    const h = this.hashOwner(owner) | 0;
    const { t, mask } = this.ownerTable;
    for (let i = h & mask, e = t[2 * i + 1]!; e !== 0; i = (i + 1) & mask, e = t[2 * i + 1]!) {
      if (t[2 * i] === h && this.owners[e - 1] === owner) return e - 1;
    }
    return -1;
  }

  holder4(sid: number, ip: number): number {
    const h = hash4(sid, ip) | 0;
    const { t, mask } = this.v4Table;
    for (let i = h & mask, e = t[2 * i + 1]!; e !== 0; i = (i + 1) & mask, e = t[2 * i + 1]!) {
      if (t[2 * i] === h && this.v4[e - 1] === ip && this.sids[e - 1] === sid) return e - 1;
    }
    return -1;
  }

  holder6(sid: number, ip: bigint): number {
    return this.v6Index.get(sid)?.get(ip) ?? -1;
  }

  holderMac(mac: number): number {
    const h = hashMac(mac) | 0;
    const { t, mask } = this.macTable;
    for (let i = h & mask, e = t[2 * i + 1]!; e !== 0; i = (i + 1) & mask, e = t[2 * i + 1]!) {
      if (t[2 * i] === h && this.macs[e - 1] === mac) return e - 1;
    }
    return -1;
  }

  sidOf(slot: number): number {
    return this.sids[slot]!;
  }

  ownerOf(slot: number): string {
    return this.owners[slot]!;
  }

  v4Of(slot: number): number | undefined {
    return this.flags[slot]! & HAS4 ? this.v4[slot]! : undefined;
  }

  v6Of(slot: number): bigint | undefined {
    return this.flags[slot]! & HAS6 ? this.v6.get(slot) : undefined;
  }

  macOf(slot: number): number {
    return this.macs[slot]!;
  }

  /** Adds a lease; the caller has checked that owner, addresses and MAC are free. */
  add(owner: string, sid: number, v4: number | undefined, v6: bigint | undefined, mac: number): number {
    const slot = this.freeSlots.length > 0 ? this.freeSlots.pop()! : this.newSlot();
    const h = this.hashOwner(owner);
    this.owners[slot] = owner;
    this.ownerTable.insert(h, slot);
    this.count++;
    this.sids[slot] = sid;
    this.flags[slot] = 0;
    this.macs[slot] = mac;
    this.macTable.insert(hashMac(mac), slot);
    if (v4 !== undefined) this.setV4(slot, v4);
    if (v6 !== undefined) this.setV6(slot, v6);
    return slot;
  }

  setV4(slot: number, ip: number | undefined): void {
    if (this.flags[slot]! & HAS4) {
      this.v4Table.remove(hash4(this.sids[slot]!, this.v4[slot]!), slot);
      this.flags[slot] = this.flags[slot]! & ~HAS4;
    }
    if (ip === undefined) return;
    this.v4[slot] = ip;
    this.flags[slot] = this.flags[slot]! | HAS4;
    this.v4Table.insert(hash4(this.sids[slot]!, ip), slot);
  }

  setV6(slot: number, ip: bigint | undefined): void {
    const sid = this.sids[slot]!;
    const old = this.flags[slot]! & HAS6 ? this.v6.get(slot) : undefined;
    if (old !== undefined) {
      this.v6Index.get(sid)?.delete(old);
      this.v6.delete(slot);
      this.flags[slot] = this.flags[slot]! & ~HAS6;
    }
    if (ip === undefined) return;
    let index = this.v6Index.get(sid);
    if (index === undefined) this.v6Index.set(sid, (index = new Map()));
    index.set(ip, slot);
    this.v6.set(slot, ip);
    this.flags[slot] = this.flags[slot]! | HAS6;
  }

  setMac(slot: number, mac: number): void {
    this.macTable.remove(hashMac(this.macs[slot]!), slot);
    this.macs[slot] = mac;
    this.macTable.insert(hashMac(mac), slot);
  }

  remove(slot: number): void {
    const owner = this.owners[slot];
    if (owner === undefined) return;
    this.setV4(slot, undefined);
    this.setV6(slot, undefined);
    this.macTable.remove(hashMac(this.macs[slot]!), slot);
    this.ownerTable.remove(this.hashOwner(owner), slot);
    this.count--;
    this.owners[slot] = undefined;
    this.freeSlots.push(slot);
  }

  /** Live slots, optionally only those of one subnet. */
  slots(sid?: number): number[] {
    const out: number[] = [];
    for (let s = 0; s < this.top; s++) {
      if (this.owners[s] !== undefined && (sid === undefined || this.sids[s] === sid)) out.push(s);
    }
    return out;
  }

  clear(): void {
    this.owners = [];
    this.v6.clear();
    this.v6Index.clear();
    this.ownerTable.clear();
    this.count = 0;
    this.v4Table.clear();
    this.macTable.clear();
    this.freeSlots = [];
    this.top = 0;
  }

  /** Makes room for `leases` leases in all, so a restore never grows a table. */
  reserve(leases: number): void {
    this.ownerTable.reserve(leases);
    this.v4Table.reserve(leases);
    this.macTable.reserve(leases);
    if (leases > this.sids.length) this.resize(leases);
  }

  private hashOwner(owner: string): number {
    if (owner !== this.lastOwner) {
      this.lastOwner = owner;
      this.lastHash = hashString(owner);
    }
    return this.lastHash;
  }

  private newSlot(): number {
    const slot = this.top++;
    // Grow by a quarter, not double: copying typed arrays is cheap, idle capacity is not.
    if (slot === this.sids.length) this.resize(Math.ceil(slot * 1.25));
    return slot;
  }

  private resize(cap: number): void {
    this.sids = grow(this.sids, new Int32Array(cap));
    this.v4 = grow(this.v4, new Uint32Array(cap));
    this.macs = grow(this.macs, new Float64Array(cap));
    this.flags = grow(this.flags, new Uint8Array(cap));
  }
}

function grow<A extends Int32Array | Uint32Array | Float64Array | Uint8Array>(from: A, to: A): A {
  to.set(from as never);
  return to;
}

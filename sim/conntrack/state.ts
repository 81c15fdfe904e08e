/**
 * Connection tracking as an explicit value. A {@link ConntrackState} is
 * immutable; a simulation opens a {@link ConntrackTx} on it, looks packets up
 * and commits connections through it, and ends with a new state. Nothing is
 * global, so a TCP handshake is traced by feeding each step the state the
 * previous step returned.
 *
 * The model follows Linux conntrack as OVS drives it: a lookup without a
 * committed entry says `new` (or `inv` for packets that cannot open a
 * connection: a lone SYN-ACK or RST, an ICMP echo reply, an ICMP error about
 * nothing known); only `ct_commit`/`ct_lb_mark`/`ct_snat(ip)`/`ct_dnat(ip)`
 * create entries. A connection stays `new` in the original direction until a
 * reply has been seen; replies are `est|rpl`. NAT lives in the entry: its
 * reply tuple is what the translated connection answers to, so a lookup with
 * `nat` rewrites original-direction packets forward and replies back.
 */
import { withFields, withIPs, withPorts, type Packet } from '../packet/packet.ts';
import {
  ICMP4_DST_UNREACH,
  ICMP4_ECHO_REPLY,
  ICMP4_TIME_EXCEEDED,
  ICMP6_DST_UNREACH,
  ICMP6_ECHO_REPLY,
  ICMP6_PACKET_TOO_BIG,
  ICMP6_TIME_EXCEEDED,
  IPPROTO_TCP,
  TCP_ACK,
  TCP_RST,
  TCP_SYN,
} from '../packet/fields.ts';
import { invertTuple, isIcmpProto, packetKey, tupleFromInner, tupleKey, tupleOf, type CtTuple } from './tuple.ts';

/** ct_state bits, as OVS numbers them (and as `ct.new`... read them). */
export const CS_NEW = 0x01;
export const CS_EST = 0x02;
export const CS_REL = 0x04;
export const CS_RPL = 0x08;
export const CS_INV = 0x10;
export const CS_TRK = 0x20;
export const CS_SNAT = 0x40;
export const CS_DNAT = 0x80;

/** ct_mark bits OVN uses. */
export const MARK_BLOCKED = 0x1;
export const MARK_NATTED = 0x2;
export const MARK_SKIP_SNAT = 0x4;
export const MARK_FORCE_SNAT = 0x8;

export interface CtEntry {
  readonly id: number;
  readonly zone: string;
  readonly orig: CtTuple;
  readonly reply: CtTuple;
  readonly mark: number;
  readonly label: bigint;
  readonly seenReply: boolean;
  readonly nat?: 'snat' | 'dnat' | undefined;
}

interface Slot {
  readonly id: number;
  readonly reply: boolean;
}

type ZoneTable = ReadonlyMap<string, Slot>;

/** An immutable set of conntrack zones and their entries. */
export class ConntrackState {
  private constructor(
    /** @internal */ readonly zones: ReadonlyMap<string, ZoneTable>,
    /** @internal */ readonly byId: ReadonlyMap<number, CtEntry>,
    /** @internal */ readonly nextId: number,
  ) {}

  static readonly EMPTY = new ConntrackState(new Map(), new Map(), 1);

  /** @internal */
  static of(zones: ReadonlyMap<string, ZoneTable>, byId: ReadonlyMap<number, CtEntry>, nextId: number): ConntrackState {
    return new ConntrackState(zones, byId, nextId);
  }

  /** Every entry, oldest first. */
  entries(): CtEntry[] {
    return [...this.byId.values()];
  }

  /** Entries of one zone (e.g. `lsp:web-0.default`, `lr:ovn-cluster:dnat`). */
  zoneEntries(zone: string): CtEntry[] {
    return this.entries().filter((e) => e.zone === zone);
  }

  get size(): number {
    return this.byId.size;
  }
}

/** What a lookup reports: the ct_state bits, the entry, and the packet after NAT (if asked). */
export interface CtLookup {
  readonly state: number;
  readonly entry?: CtEntry;
  /** The packet is in the entry's reply direction. */
  readonly reply?: boolean;
  readonly packet: Packet;
}

export interface NatSpec {
  readonly kind: 'snat' | 'dnat';
  readonly ip: number | bigint;
  /** Translated L4 port (DNAT to backend:port); first port of a range for SNAT. */
  readonly port?: number;
  /** Last port of an SNAT range. */
  readonly portMax?: number;
}

export interface CommitOptions {
  readonly nat?: NatSpec;
  /** Bits to set/clear in ct_mark: `mark = (mark & ~mask) | (value & mask)`. */
  readonly mark?: { readonly value: number; readonly mask: number };
  readonly label?: { readonly value: bigint; readonly mask: bigint };
}

const ICMP_ERRORS = new Set([ICMP4_DST_UNREACH, ICMP4_TIME_EXCEEDED]);
const ICMP6_ERRORS = new Set([ICMP6_DST_UNREACH, ICMP6_PACKET_TOO_BIG, ICMP6_TIME_EXCEEDED]);

function isIcmpError(p: Packet): boolean {
  const t4 = p['icmp4.type'];
  if (t4 !== undefined) return ICMP_ERRORS.has(t4);
  const t6 = p['icmp6.type'];
  return t6 !== undefined && ICMP6_ERRORS.has(t6);
}

/** State of a packet no committed entry knows about. */
function unknownState(p: Packet, t: CtTuple): number {
  if (t.proto === IPPROTO_TCP) {
    const f = p['tcp.flags'] ?? 0;
    if (f & TCP_SYN) return f & TCP_ACK ? CS_TRK | CS_INV : CS_TRK | CS_NEW;
    return f & TCP_RST ? CS_TRK | CS_INV : CS_TRK | CS_NEW;
  }
  if (isIcmpProto(t.proto)) {
    if (t.dport === ICMP4_ECHO_REPLY && t.proto === 1) return CS_TRK | CS_INV;
    if (t.dport === ICMP6_ECHO_REPLY && t.proto === 58) return CS_TRK | CS_INV;
  }
  return CS_TRK | CS_NEW;
}

/** A packet rewritten to carry tuple `t` (addresses and ports). */
function rewriteTo(p: Packet, t: CtTuple): Packet {
  let out = withIPs(p, t.src, t.dst);
  if (!isIcmpProto(t.proto)) out = withPorts(out, t.sport, t.dport);
  return out;
}

function natFlags(before: CtTuple, after: CtTuple): number {
  let s = 0;
  if (before.src !== after.src || (!isIcmpProto(before.proto) && before.sport !== after.sport)) s |= CS_SNAT;
  if (before.dst !== after.dst || (!isIcmpProto(before.proto) && before.dport !== after.dport)) s |= CS_DNAT;
  return s;
}

/**
 * A mutable view over a {@link ConntrackState} for one simulation. Zones and
 * the entry table are copied on first write, so the base state is never
 * changed and reads of untouched zones cost nothing.
 */
export class ConntrackTx {
  private zones: Map<string, ZoneTable>;
  private byId: Map<number, CtEntry> | ReadonlyMap<number, CtEntry>;
  private ownedZones = new Set<string>();
  private ownsEntries = false;
  private nextId: number;
  private dirty = false;

  constructor(private readonly base: ConntrackState) {
    this.zones = base.zones as Map<string, ZoneTable>;
    this.byId = base.byId;
    this.nextId = base.nextId;
  }

  /** Look a packet up in a zone; with `nat`, apply the entry's translation. */
  lookup(zone: string, p: Packet, opts: { readonly nat: boolean }): CtLookup {
    const key = packetKey(p);
    if (key === undefined) return { state: 0, packet: p };
    const table = this.zones.get(zone);
    const slot = table === undefined ? undefined : table.get(key);
    if (slot === undefined) {
      if (isIcmpError(p) && p.inner !== undefined) return this.related(zone, p, opts.nat);
      return { state: unknownState(p, tupleOf(p)!), packet: p };
    }
    let entry = this.byId.get(slot.id)!;
    let state = CS_TRK;
    if (slot.reply) {
      state |= CS_EST | CS_RPL;
      if (!entry.seenReply) entry = this.put({ ...entry, seenReply: true });
    } else {
      state |= entry.seenReply ? CS_EST : CS_NEW;
    }
    const reply = slot.reply;
    if (!opts.nat || entry.nat === undefined) return { state, entry, reply, packet: p };
    const target = reply ? invertTuple(entry.orig) : invertTuple(entry.reply);
    return { state: state | natFlags(tupleOf(p)!, target), entry, reply, packet: rewriteTo(p, target) };
  }

  /**
   * A ct action in the zone of an earlier ct action on the same packet:
   * as OVS reuses the connection attached to the packet (skb_nfct_cached),
   * report it again with the same state; NAT is idempotent.
   */
  cached(entryId: number, reply: boolean, p: Packet, opts: { readonly nat: boolean; readonly state: number }): CtLookup {
    const entry = this.byId.get(entryId);
    if (entry === undefined) return { state: opts.state, packet: p };
    if (!opts.nat || entry.nat === undefined) return { state: opts.state, entry, reply, packet: p };
    const target = reply ? invertTuple(entry.orig) : invertTuple(entry.reply);
    return { state: opts.state, entry, reply, packet: rewriteTo(p, target) };
  }

  /** Commit on the connection already attached to the packet: marks and labels only (NAT cannot be added later). */
  commitCached(entryId: number, reply: boolean, p: Packet, opts: CommitOptions & { readonly state: number }): CtLookup {
    const entry = this.byId.get(entryId);
    if (entry === undefined) return { state: opts.state, packet: p };
    const updated = this.put(applyMarks(entry, opts));
    return { ...this.cached(entryId, reply, p, { nat: opts.nat !== undefined, state: opts.state }), entry: updated };
  }

  /** An ICMP error about a known connection: `rel` (and `rpl` when it travels back to the initiator). */
  private related(zone: string, p: Packet, nat: boolean): CtLookup {
    const inner = tupleFromInner(p.inner!);
    const slot = this.zones.get(zone)?.get(tupleKey(inner));
    if (slot === undefined) return { state: CS_TRK | CS_INV, packet: p };
    const entry = this.byId.get(slot.id)!;
    const backToInitiator = !slot.reply;
    const state = CS_TRK | CS_REL | (backToInitiator ? CS_RPL : 0);
    if (!nat || entry.nat === undefined) return { state, entry, packet: p };
    // The error quotes the packet as translated; undo that for the initiator's view.
    const quoted = backToInitiator ? entry.orig : invertTuple(entry.orig);
    const outerDst = backToInitiator ? entry.orig.src : entry.reply.src;
    const out = withFields(withIPs(p, undefined, outerDst), {
      inner: { family: quoted.family, proto: quoted.proto, src: quoted.src, dst: quoted.dst, sport: quoted.sport, dport: quoted.dport },
    });
    return { state: state | CS_DNAT, entry, packet: out };
  }

  /**
   * Commit the packet's connection (creating it, with NAT if given, or
   * updating mark/label of the existing one). Returns the packet after NAT.
   */
  commit(zone: string, p: Packet, opts: CommitOptions = {}): CtLookup {
    const t = tupleOf(p);
    if (t === undefined) return { state: 0, packet: p };
    const key = tupleKey(t);
    const slot = this.zones.get(zone)?.get(key);
    if (slot !== undefined) {
      const existing = this.byId.get(slot.id)!;
      const updated = opts.mark || opts.label ? this.put(applyMarks(existing, opts)) : existing;
      const found = this.lookup(zone, p, { nat: opts.nat !== undefined });
      return { ...found, entry: updated };
    }
    const nat = opts.nat;
    const reply = this.replyTupleFor(zone, t, nat);
    const id = this.nextId++;
    const fresh: CtEntry = { id, zone, orig: t, reply, mark: nat ? MARK_NATTED : 0, label: 0n, seenReply: false, nat: nat?.kind };
    const entry = opts.mark || opts.label ? applyMarks(fresh, opts) : fresh;
    this.put(entry);
    const table = this.writableZone(zone);
    table.set(key, { id, reply: false });
    table.set(tupleKey(reply), { id, reply: true });
    if (nat === undefined) return { state: CS_TRK | CS_NEW, entry, reply: false, packet: p };
    const target = invertTuple(reply);
    return { state: CS_TRK | CS_NEW | natFlags(t, target), entry, reply: false, packet: rewriteTo(p, target) };
  }

  /** The reply tuple of a new connection; SNAT picks the first free source port. */
  private replyTupleFor(zone: string, t: CtTuple, nat: NatSpec | undefined): CtTuple {
    const plain = invertTuple(t);
    if (nat === undefined) return plain;
    if (nat.kind === 'dnat') {
      return { ...plain, src: nat.ip, sport: isIcmpProto(t.proto) ? plain.sport : (nat.port ?? plain.sport) };
    }
    const base: CtTuple = { ...plain, dst: nat.ip };
    if (isIcmpProto(t.proto)) return base;
    // Linux keeps the source port when it is in range and free, else takes the next free one.
    const lo = nat.port ?? 1;
    const hi = nat.portMax ?? nat.port ?? 65535;
    const start = t.sport >= lo && t.sport <= hi ? t.sport : lo;
    const table = this.zones.get(zone);
    for (let i = 0; i <= hi - lo; i++) {
      const candidate: CtTuple = { ...base, dport: lo + ((start - lo + i) % (hi - lo + 1)) };
      if (table === undefined || !table.has(tupleKey(candidate))) return candidate;
    }
    return { ...base, dport: start };
  }

  private writableZone(zone: string): Map<string, Slot> {
    this.dirty = true;
    if (!this.ownedZones.has(zone)) {
      if (this.zones === (this.base.zones as Map<string, ZoneTable>)) this.zones = this.zones.size === 0 ? new Map() : new Map(this.zones);
      const current = this.zones.get(zone);
      this.zones.set(zone, current === undefined ? new Map() : new Map(current));
      this.ownedZones.add(zone);
    }
    return this.zones.get(zone) as Map<string, Slot>;
  }

  private put(entry: CtEntry): CtEntry {
    this.dirty = true;
    if (!this.ownsEntries) {
      this.byId = this.byId.size === 0 ? new Map() : new Map(this.byId);
      this.ownsEntries = true;
    }
    (this.byId as Map<number, CtEntry>).set(entry.id, entry);
    return entry;
  }

  /** The state after everything done through this transaction. */
  finish(): ConntrackState {
    if (!this.dirty) return this.base;
    return ConntrackState.of(this.zones, this.byId, this.nextId);
  }
}

function applyMarks(e: CtEntry, opts: CommitOptions): CtEntry {
  let { mark, label } = e;
  if (opts.mark) mark = (mark & ~opts.mark.mask) | (opts.mark.value & opts.mark.mask);
  if (opts.label) label = (label & ~opts.label.mask) | (opts.label.value & opts.label.mask);
  return mark === e.mark && label === e.label ? e : { ...e, mark, label };
}

/** ct_state bits as ovn-trace's `--ct` flags spell them, e.g. `new|trk`. */
export function formatCtState(state: number): string {
  const names: Array<[number, string]> = [
    [CS_NEW, 'new'], [CS_EST, 'est'], [CS_REL, 'rel'], [CS_RPL, 'rpl'],
    [CS_INV, 'inv'], [CS_TRK, 'trk'], [CS_SNAT, 'snat'], [CS_DNAT, 'dnat'],
  ];
  return names.filter(([bit]) => state & bit).map(([, n]) => n).join('|') || '-';
}

/**
 * The transaction a simulation reads and writes conntrack through. It never
 * changes its base state: what it adds (slots, new or updated entries) is
 * kept in small lists, searched newest first before the base's tables, and
 * handed to the next {@link ConntrackState} by `finish()`. A probe commits a
 * handful of connections, so the lists stay short and no table is copied.
 */
import { SimPacket } from '../../model/packet/canonical.ts';
import { isIPv4, l4ProtoOf, withFields, withIPs, withPorts, type Packet } from '../../model/packet/packet.ts';
import {
  ICMP4_DST_UNREACH,
  ICMP4_ECHO_REPLY,
  ICMP4_TIME_EXCEEDED,
  ICMP6_DST_UNREACH,
  ICMP6_ECHO_REPLY,
  ICMP6_PACKET_TOO_BIG,
  ICMP6_TIME_EXCEEDED,
  IPPROTO_ICMP,
  IPPROTO_ICMPV6,
  IPPROTO_SCTP,
  IPPROTO_TCP,
  TCP_ACK,
  TCP_FIN,
  TCP_PSH,
  TCP_RST,
  TCP_SYN,
  TCP_URG,
} from '../../model/packet/fields.ts';
import {
  type AffinityEntry,
  CS_DNAT,
  CS_EST,
  CS_INV,
  CS_NEW,
  CS_REL,
  CS_RPL,
  CS_SNAT,
  CS_TRK,
  type CommitOptions,
  ConntrackState,
  type CtEntry,
  type CtLookup,
  MARK_NATTED,
  type NatSpec,
  type NewSlot,
  type Slot,
} from './state.ts';
import { invertTuple, isIcmpProto, packetKey, tupleFromInner, tupleKey, tupleOf, type CtTuple } from './tuple.ts';

function isIcmpError(p: Packet): boolean {
  const t4 = p['icmp4.type'];
  if (t4 !== undefined) return t4 === ICMP4_DST_UNREACH || t4 === ICMP4_TIME_EXCEEDED;
  const t6 = p['icmp6.type'];
  return t6 === ICMP6_DST_UNREACH || t6 === ICMP6_PACKET_TOO_BIG || t6 === ICMP6_TIME_EXCEEDED;
}

/**
 * Whether a TCP packet may open a connection, as OVS 3.1's userspace
 * conntrack decides (lib/conntrack-tcp.c tcp_valid_new, tcp_invalid_flags):
 * not SYN with RST or FIN, not without SYN, ACK and RST alike, not FIN, PSH
 * or URG without ACK, and not SYN+ACK. So a bare ACK is picked up, and so is
 * a RST (a generated reset that meets ct_snat through a gateway is SNATed:
 * seen on real packets, seed 7 case 1693), where Linux's nf_conntrack finds
 * a RST invalid: the simulator follows the datapath its real packets run on.
 */
function tcpValidNew(f: number): boolean {
  if (f & TCP_SYN) return (f & (TCP_RST | TCP_FIN)) === 0 && (f & TCP_ACK) === 0;
  if ((f & (TCP_ACK | TCP_RST)) === 0) return false;
  return (f & TCP_ACK) !== 0 || (f & (TCP_FIN | TCP_PSH | TCP_URG)) === 0;
}

/** State of an IP packet no committed entry knows about. */
function unknownState(p: Packet): number {
  const proto = p['ip.proto'] ?? 0;
  if (proto === IPPROTO_TCP) return tcpValidNew(p['tcp.flags'] ?? 0) ? CS_TRK | CS_NEW : CS_TRK | CS_INV;
  if (proto === IPPROTO_ICMP && (p['icmp4.type'] ?? p['icmp6.type'] ?? 0) === ICMP4_ECHO_REPLY) return CS_TRK | CS_INV;
  if (proto === IPPROTO_ICMPV6 && (p['icmp4.type'] ?? p['icmp6.type'] ?? 0) === ICMP6_ECHO_REPLY)
    return CS_TRK | CS_INV;
  return CS_TRK | CS_NEW;
}

/** A packet rewritten to carry tuple `t` (addresses and ports): withPorts(withIPs(p, ...), ...) in one copy. */
function rewriteTo(p: Packet, t: CtTuple): Packet {
  if (!(p instanceof SimPacket)) {
    const out = withIPs(p, t.src, t.dst);
    return isIcmpProto(t.proto) ? out : withPorts(out, t.sport, t.dport);
  }
  const q = new SimPacket(p);
  if (isIPv4(p)) {
    q['ip4.src'] = t.src as number;
    q['ip4.dst'] = t.dst as number;
  } else {
    q['ip6.src'] = t.src as bigint;
    q['ip6.dst'] = t.dst as bigint;
  }
  if (isIcmpProto(t.proto)) return q;
  const proto = l4ProtoOf(p);
  if (proto === 'tcp') {
    q['tcp.src'] = t.sport;
    q['tcp.dst'] = t.dport;
  } else if (proto === 'udp') {
    q['udp.src'] = t.sport;
    q['udp.dst'] = t.dport;
  } else if (proto === 'sctp') {
    q['sctp.src'] = t.sport;
    q['sctp.dst'] = t.dport;
  }
  return q;
}

function natFlags(before: CtTuple, after: CtTuple): number {
  let s = 0;
  if (before.src !== after.src || (!isIcmpProto(before.proto) && before.sport !== after.sport)) s |= CS_SNAT;
  if (before.dst !== after.dst || (!isIcmpProto(before.proto) && before.dport !== after.dport)) s |= CS_DNAT;
  return s;
}

/*
 * Tuple equality exactly as equal `tupleKey` strings: the same family (an
 * IPv4 address is a number, an IPv6 one a bigint, and `===` never equates
 * the two) and the same values.
 */
const sameAddr = (a: number | bigint, b: number | bigint): boolean => a === b;

const sameTuple = (a: CtTuple, b: CtTuple): boolean =>
  a.proto === b.proto && a.sport === b.sport && a.dport === b.dport && sameAddr(a.src, b.src) && sameAddr(a.dst, b.dst);

/** Whether `t` is the tuple `packetKey(p)` names (`p` an IP packet). */
function tupleIsPacket(t: CtTuple, p: Packet, src: number | bigint, dst: number | bigint): boolean {
  const proto = p['ip.proto'] ?? 0;
  if (t.proto !== proto || !sameAddr(t.src, src) || !sameAddr(t.dst, dst)) return false;
  if (proto === IPPROTO_ICMP || proto === IPPROTO_ICMPV6) {
    return t.sport === (p['icmp.id'] ?? 0) && t.dport === (p['icmp4.type'] ?? p['icmp6.type'] ?? 0);
  }
  return (
    t.sport === (p['tcp.src'] ?? p['udp.src'] ?? p['sctp.src'] ?? 0) &&
    t.dport === (p['tcp.dst'] ?? p['udp.dst'] ?? p['sctp.dst'] ?? 0)
  );
}

/** Every lookup result has every field (one object shape). */
const result = (state: number, entry: CtEntry | undefined, reply: boolean | undefined, packet: Packet): CtLookup => ({
  state,
  entry,
  reply,
  packet,
});

function applyMarks(e: CtEntry, opts: CommitOptions): CtEntry {
  let { mark, label } = e;
  if (opts.mark) mark = (mark & ~opts.mark.mask) | (opts.mark.value & opts.mark.mask);
  if (opts.label) label = (label & ~opts.label.mask) | (opts.label.value & opts.label.mask);
  return mark === e.mark && label === e.label ? e : { ...e, mark, label };
}

/**
 * A mutable view over a {@link ConntrackState} for one simulation.
 *
 * @example
 * const tx = new ConntrackTx(ConntrackState.EMPTY);
 * tx.commit('lsp:a', syn);
 * tx.lookup('lsp:a', synAck, { nat: false }).state; // CS_TRK | CS_EST | CS_RPL
 * const next = tx.finish();
 */
export class ConntrackTx {
  /** Slots added here, oldest first (a later one wins over an earlier one and over the base). */
  private readonly slots: NewSlot[] = [];
  /** Entries added or changed here: latest version, in first-put order. */
  private readonly puts: CtEntry[] = [];
  private nextId: number;
  /** Affinities learned here (a copy of the base's, made at the first). */
  private learned: Map<string, AffinityEntry> | undefined;
  private learnedMacs: Map<string, string> | undefined;

  constructor(private readonly base: ConntrackState) {
    this.nextId = base.nextId;
  }

  private entry(id: number): CtEntry | undefined {
    for (let i = this.puts.length - 1; i >= 0; i--) if (this.puts[i]!.id === id) return this.puts[i];
    return this.base.byId.get(id);
  }

  private put(entry: CtEntry): CtEntry {
    const puts = this.puts;
    for (let i = 0; i < puts.length; i++) {
      if (puts[i]!.id === entry.id) {
        puts[i] = entry;
        return entry;
      }
    }
    puts.push(entry);
    return entry;
  }

  /** The slot of an IP packet's tuple in a zone. */
  private packetSlot(zone: string, p: Packet): Slot | undefined {
    const v4 = p['ip4.src'] !== undefined;
    const src = v4 ? p['ip4.src'] : p['ip6.src'];
    const dst = v4 ? p['ip4.dst'] : p['ip6.dst'];
    if (src === undefined || dst === undefined) return undefined;
    for (let i = this.slots.length - 1; i >= 0; i--) {
      const s = this.slots[i]!;
      if (s.zone === zone && tupleIsPacket(s.tuple, p, src, dst)) return s;
    }
    const zones = this.base.zones;
    const table = zones.size === 0 ? undefined : zones.get(zone);
    return table === undefined || table.size === 0 ? undefined : table.get(packetKey(p)!);
  }

  private tupleSlot(zone: string, t: CtTuple): Slot | undefined {
    for (let i = this.slots.length - 1; i >= 0; i--) {
      const s = this.slots[i]!;
      if (s.zone === zone && sameTuple(s.tuple, t)) return s;
    }
    const zones = this.base.zones;
    return zones.size === 0 ? undefined : zones.get(zone)?.get(tupleKey(t));
  }

  /**
   * `f` on the packet as conntrack keys it: with `sctpByAddress`, an SCTP
   * packet with its ports zeroed, which it gets back afterwards (SCTP NAT
   * translates no port).
   */
  private keyed(p: Packet, f: (q: Packet) => CtLookup): CtLookup {
    if (!this.base.sctpByAddress || p['ip.proto'] !== IPPROTO_SCTP) return f(p);
    const sport = p['sctp.src'] ?? 0;
    const dport = p['sctp.dst'] ?? 0;
    const r = f(withPorts(p, 0, 0));
    return result(r.state, r.entry, r.reply, withPorts(r.packet, sport, dport));
  }

  /** Look a packet up in a zone; with `nat`, apply the entry's translation. */
  lookup(zone: string, p: Packet, opts: { readonly nat: boolean }): CtLookup {
    return this.keyed(p, (q) => this.lookupKeyed(zone, q, opts));
  }

  private lookupKeyed(zone: string, p: Packet, opts: { readonly nat: boolean }): CtLookup {
    const v4 = p['ip4.src'] !== undefined;
    if ((v4 ? p['ip4.src'] : p['ip6.src']) === undefined || (v4 ? p['ip4.dst'] : p['ip6.dst']) === undefined)
      return result(0, undefined, undefined, p);
    // An ICMP error is keyed by the packet it quotes, never by its own header (as OVS does).
    if (p.inner !== undefined && isIcmpError(p)) return this.related(zone, p, opts.nat);
    const slot = this.packetSlot(zone, p);
    if (slot === undefined) return result(unknownState(p), undefined, undefined, p);
    let entry = this.entry(slot.id)!;
    let state = CS_TRK;
    if (slot.reply) {
      state |= CS_EST | CS_RPL;
      if (!entry.seenReply) entry = this.put({ ...entry, seenReply: true });
    } else {
      state |= entry.seenReply ? CS_EST : CS_NEW;
    }
    const reply = slot.reply;
    if (!opts.nat || entry.nat === undefined) return result(state, entry, reply, p);
    const target = reply ? invertTuple(entry.orig) : invertTuple(entry.reply);
    return result(state | natFlags(tupleOf(p)!, target), entry, reply, rewriteTo(p, target));
  }

  /**
   * A ct action in the zone of an earlier ct action on the same packet:
   * as OVS reuses the connection attached to the packet (skb_nfct_cached),
   * report it again with the same state; NAT is idempotent.
   */
  cached(
    entryId: number,
    reply: boolean,
    p: Packet,
    opts: { readonly nat: boolean; readonly state: number },
  ): CtLookup {
    return this.keyed(p, (q) => this.cachedKeyed(entryId, reply, q, opts));
  }

  private cachedKeyed(
    entryId: number,
    reply: boolean,
    p: Packet,
    opts: { readonly nat: boolean; readonly state: number },
  ): CtLookup {
    const entry = this.entry(entryId);
    if (entry === undefined) return result(opts.state, undefined, undefined, p);
    // OVS does not NAT again in the zone that NATed the packet (handle_nat); for an ICMP error, whose
    // translation is not the connection's plain rewrite, that matters.
    const related = p.inner !== undefined && isIcmpError(p);
    if (!opts.nat || entry.nat === undefined || related) return result(opts.state, entry, reply, p);
    const target = reply ? invertTuple(entry.orig) : invertTuple(entry.reply);
    return result(opts.state, entry, reply, rewriteTo(p, target));
  }

  /** Commit on the connection already attached to the packet: marks and labels only (NAT cannot be added later). */
  commitCached(entryId: number, reply: boolean, p: Packet, opts: CommitOptions & { readonly state: number }): CtLookup {
    const entry = this.entry(entryId);
    if (entry === undefined) return result(opts.state, undefined, undefined, p);
    const updated = this.put(applyMarks(entry, opts));
    const c = this.cached(entryId, reply, p, { nat: opts.nat !== undefined, state: opts.state });
    return result(c.state, updated, c.reply, c.packet);
  }

  /**
   * An ICMP error about a known connection: `rel` (and `rpl` when it travels
   * back to the initiator). With `nat`, as OVS's userspace conntrack
   * translates it (lib/conntrack.c un_nat_packet / nat_packet with
   * `related`): back to the initiator, the outer header is un-NATed like a
   * reply (SNAT: destination := the initiator; DNAT: source := the address
   * it asked for, a VIP) whoever sent the error, and the quoted packet
   * becomes the one the initiator sent; toward the responder only the outer
   * header is NATed like an original packet (SNAT: source := the SNAT
   * address; DNAT: destination := the backend), the quote left alone.
   */
  private related(zone: string, p: Packet, nat: boolean): CtLookup {
    // As OVS keys it: the quoted packet reversed (the direction the error travels), so a quote of a
    // NATed packet (client → backend) finds the connection by its reply tuple (backend → client).
    const slot = this.tupleSlot(zone, invertTuple(tupleFromInner(p.inner!)));
    if (slot === undefined) return result(CS_TRK | CS_INV, undefined, undefined, p);
    const entry = this.entry(slot.id)!;
    const backToInitiator = slot.reply;
    const state = CS_TRK | CS_REL | (backToInitiator ? CS_RPL : 0);
    if (!nat || entry.nat === undefined) return result(state, entry, undefined, p);
    const snat = entry.nat === 'snat';
    if (!backToInitiator) {
      const out = snat ? withIPs(p, entry.reply.dst, undefined) : withIPs(p, undefined, entry.reply.src);
      return result(state | (snat ? CS_SNAT : CS_DNAT), entry, undefined, out);
    }
    const quoted = entry.orig;
    const outer = snat ? withIPs(p, undefined, entry.orig.src) : withIPs(p, entry.orig.dst, undefined);
    const out = withFields(outer, {
      inner: {
        family: quoted.family,
        proto: quoted.proto,
        src: quoted.src,
        dst: quoted.dst,
        sport: quoted.sport,
        dport: quoted.dport,
      },
    });
    // Un-NAT of a reply: OVS reports the opposite kind (an SNAT entry un-NATs the destination).
    return result(state | (snat ? CS_DNAT : CS_SNAT), entry, undefined, out);
  }

  /**
   * Commit the packet's connection (creating it, with NAT if given, or
   * updating mark/label of the existing one). Returns the packet after NAT.
   */
  commit(zone: string, p: Packet, opts: CommitOptions = {}): CtLookup {
    return this.keyed(p, (q) => this.commitKeyed(zone, q, opts));
  }

  private commitKeyed(zone: string, p: Packet, opts: CommitOptions): CtLookup {
    // OVS keys an ICMP error by the packet it quotes and never starts a connection from one: it is
    // related to a known connection (NATed as that one is) or invalid, and then not NATed at all.
    if (p.inner !== undefined && isIcmpError(p)) return this.related(zone, p, opts.nat !== undefined);
    const t = tupleOf(p);
    if (t === undefined) return result(0, undefined, undefined, p);
    const slot = this.tupleSlot(zone, t);
    if (slot !== undefined) {
      const existing = this.entry(slot.id)!;
      const updated = opts.mark || opts.label ? this.put(applyMarks(existing, opts)) : existing;
      const found = this.lookup(zone, p, { nat: opts.nat !== undefined });
      return result(found.state, updated, found.reply, found.packet);
    }
    // A packet that cannot open a connection (an echo reply, a SYN-ACK: OVS valid_new) is invalid:
    // nothing is committed and nothing NATed (a DGP's ct_snat leaves such a reply's source alone).
    const fresh0 = unknownState(p);
    if (fresh0 & CS_INV) return result(fresh0, undefined, undefined, p);
    const nat = opts.nat;
    const reply = this.replyTupleFor(zone, t, nat);
    const id = this.nextId++;
    const fresh: CtEntry = {
      id,
      zone,
      orig: t,
      reply,
      mark: nat ? MARK_NATTED : 0,
      label: 0n,
      seenReply: false,
      nat: nat?.kind,
    };
    const entry = opts.mark || opts.label ? applyMarks(fresh, opts) : fresh;
    this.put(entry);
    this.slots.push({ zone, tuple: t, id, reply: false }, { zone, tuple: reply, id, reply: true });
    if (nat === undefined) return result(CS_TRK | CS_NEW, entry, false, p);
    const target = invertTuple(reply);
    return result(CS_TRK | CS_NEW | natFlags(t, target), entry, false, rewriteTo(p, target));
  }

  /** The reply tuple of a new connection; SNAT picks the first free source port. */
  private replyTupleFor(zone: string, t: CtTuple, nat: NatSpec | undefined): CtTuple {
    const plain = invertTuple(t);
    if (nat === undefined) return plain;
    // OVS's userspace conntrack translates TCP and UDP ports only (lib/conntrack.c pat_packet): an SCTP
    // connection is NATed by address alone, its ports kept (a VIP's :80 reaches the backend on :80).
    if (t.proto === IPPROTO_SCTP) return nat.kind === 'dnat' ? { ...plain, src: nat.ip } : { ...plain, dst: nat.ip };
    if (nat.kind === 'dnat') {
      return { ...plain, src: nat.ip, sport: isIcmpProto(t.proto) ? plain.sport : (nat.port ?? plain.sport) };
    }
    const base: CtTuple = { ...plain, dst: nat.ip };
    if (isIcmpProto(t.proto)) return base;
    // Linux keeps the source port when it is in range and free, else takes the next free one.
    const lo = nat.port ?? 1;
    const hi = nat.portMax ?? nat.port ?? 65535;
    const start = t.sport >= lo && t.sport <= hi ? t.sport : lo;
    for (let i = 0; i <= hi - lo; i++) {
      const candidate: CtTuple = { ...base, dport: lo + ((start - lo + i) % (hi - lo + 1)) };
      if (this.tupleSlot(zone, candidate) === undefined) return candidate;
    }
    return { ...base, dport: start };
  }

  /** `chk_lb_aff()`: the affinity learned for this key, if any. */
  affinity(key: string): AffinityEntry | undefined {
    return (this.learned ?? this.base.affinity).get(key);
  }

  /** `commit_lb_aff(...)`: learns (or refreshes) an affinity. */
  learnAffinity(key: string, entry: AffinityEntry): void {
    this.learned ??= new Map(this.base.affinity);
    this.learned.set(key, entry);
  }

  /**
   * `get_fdb` / `lookup_fdb`: the port a MAC was learned on, as the packet
   * began. What this packet learns is not seen by it: OVS learns through
   * pinctrl, the SB FDB table and ovn-controller, after the packet.
   */
  fdb(key: string): string | undefined {
    return this.base.fdb.get(key);
  }

  /** `put_fdb(inport, eth.src)`: the MAC is on this port from the next packet on. */
  learnFdb(key: string, port: string): void {
    this.learnedMacs ??= new Map(this.base.fdb);
    this.learnedMacs.set(key, port);
  }

  /** The state after everything done through this transaction. */
  finish(): ConntrackState {
    if (
      this.slots.length === 0 &&
      this.puts.length === 0 &&
      this.learned === undefined &&
      this.learnedMacs === undefined
    )
      return this.base;
    return ConntrackState.derive(this.base, this.slots, this.puts, this.nextId, this.learned, this.learnedMacs);
  }
}

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
 *
 * Beside the zones, the state holds the load-balancer affinity entries and the
 * MACs switch ports learned (FDB),
 * `commit_lb_aff` learns (in OVS, learned flows of ovn-controller's
 * OFTABLE_CHK_LB_AFFINITY table, not conntrack; they live here because this
 * is the state one packet hands the next). The simulator has no clock:
 * an entry lives as long as the state chain it was learned in.
 *
 * A state a transaction made is kept as its base plus what the transaction
 * added (a few slots and entries); the zone tables are built from that only
 * when something reads them (a later transaction's lookup, `entries()`),
 * so a probe whose result nobody reads again costs no table copies.
 */
import type { Packet } from '../../model/packet/packet.ts';
import { tupleKey, type CtTuple } from './tuple.ts';

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

/**
 * A learned load-balancer affinity: new connections of this client to this
 * VIP on this datapath go to `backend` (`ip:port` as the VIP lists it).
 */
export interface AffinityEntry {
  readonly backend: string;
  /** options:affinity_timeout, seconds (recorded; the simulator has no clock). */
  readonly timeout: number;
}

/** The key of a learned MAC: the switch and the MAC. */
export function fdbKey(datapath: string, mac: number): string {
  return `${datapath}\u0000${mac}`;
}

/** The key of an affinity entry: the datapath, the VIP (`lb|vip`) and the client address. */
export function affinityKey(datapath: string, vipKey: string, client: number | bigint): string {
  return `${datapath}\u0000${vipKey}\u0000${client}`;
}

/** A connection tuple of a zone: the entry it belongs to and its direction. */
export interface Slot {
  readonly id: number;
  readonly reply: boolean;
}

/** A slot a transaction added (zone tables are keyed by `tupleKey(tuple)`). */
export interface NewSlot extends Slot {
  readonly zone: string;
  readonly tuple: CtTuple;
}

export type ZoneTable = ReadonlyMap<string, Slot>;

/** An immutable set of conntrack zones and their entries. */
export class ConntrackState {
  private zoneTables: ReadonlyMap<string, ZoneTable> | undefined;
  private entryTable: ReadonlyMap<number, CtEntry> | undefined;

  private constructor(
    zones: ReadonlyMap<string, ZoneTable> | undefined,
    byId: ReadonlyMap<number, CtEntry> | undefined,
    /** @internal */ readonly nextId: number,
    /** Learned LB affinities by {@link affinityKey}. */
    readonly affinity: ReadonlyMap<string, AffinityEntry>,
    /** MACs learned by switch ports (`put_fdb`), by {@link fdbKey}: the port. */
    readonly fdb: ReadonlyMap<string, string>,
    /**
     * Until built: the state this one extends, the slots and the entries (latest versions, first-put order) added to
     * it.
     */
    private delta?: {
      readonly base: ConntrackState;
      readonly slots: readonly NewSlot[];
      readonly entries: readonly CtEntry[];
    },
    /**
     * SCTP is keyed by addresses alone, its ports left out, as OVS 3.1's
     * userspace conntrack keys it (lib/conntrack.c extract_l4 reads the L4
     * keys of TCP, UDP and ICMP only): two SCTP packets between the same
     * addresses are one connection whatever their ports. The simulator keys
     * SCTP by ports, as the kernel's conntrack does; this keying is for the
     * differential test, which shows with it where that difference decides a
     * case (verify/difftest/datapath-side.ts).
     */
    readonly sctpByAddress = false,
  ) {
    this.zoneTables = zones;
    this.entryTable = byId;
  }

  static readonly EMPTY = new ConntrackState(new Map(), new Map(), 1, new Map(), new Map());

  /** Empty, keying SCTP as OVS 3.1's userspace conntrack does (see `sctpByAddress`). */
  static readonly EMPTY_SCTP_BY_ADDRESS = new ConntrackState(
    new Map(),
    new Map(),
    1,
    new Map(),
    new Map(),
    undefined,
    true,
  );

  /** @internal A transaction's result: `base` plus what it added. `base` is built now, so chains stay one deep. */
  static derive(
    base: ConntrackState,
    slots: readonly NewSlot[],
    entries: readonly CtEntry[],
    nextId: number,
    affinity: ReadonlyMap<string, AffinityEntry> = base.affinity,
    fdb: ReadonlyMap<string, string> = base.fdb,
  ): ConntrackState {
    base.build();
    return new ConntrackState(
      undefined,
      undefined,
      nextId,
      affinity,
      fdb,
      { base, slots, entries },
      base.sctpByAddress,
    );
  }

  /** @internal Zone name → tuple key → slot. */
  get zones(): ReadonlyMap<string, ZoneTable> {
    if (this.zoneTables === undefined) this.build();
    return this.zoneTables!;
  }

  /** @internal Entries by id, oldest first. */
  get byId(): ReadonlyMap<number, CtEntry> {
    if (this.entryTable === undefined) this.build();
    return this.entryTable!;
  }

  /** The tables as the original eager copy-on-write built them: later slots win, entries keep first-insertion order. */
  private build(): void {
    const d = this.delta;
    if (d === undefined) return;
    const baseZones = d.base.zones;
    let zones = baseZones;
    if (d.slots.length > 0) {
      const copy = new Map(baseZones);
      const owned = new Set<string>();
      for (const s of d.slots) {
        if (!owned.has(s.zone)) {
          owned.add(s.zone);
          copy.set(s.zone, new Map(baseZones.get(s.zone) ?? []));
        }
        (copy.get(s.zone) as Map<string, Slot>).set(tupleKey(s.tuple), { id: s.id, reply: s.reply });
      }
      zones = copy;
    }
    let byId = d.base.byId;
    if (d.entries.length > 0) {
      const copy = new Map(byId);
      for (const e of d.entries) copy.set(e.id, e);
      byId = copy;
    }
    this.zoneTables = zones;
    this.entryTable = byId;
    this.delta = undefined;
  }

  /**
   * After `dpctl/flush-conntrack`: no entries; the learned load-balancer
   * affinities and MACs stay (in OVS they are OpenFlow flows, learned by
   * commit_lb_aff and from the SB FDB, not conntrack entries).
   */
  flushed(): ConntrackState {
    return new ConntrackState(
      new Map(),
      new Map(),
      this.nextId,
      this.affinity,
      this.fdb,
      undefined,
      this.sctpByAddress,
    );
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

/** ct_state bits as ovn-trace's `--ct` flags spell them, e.g. `new|trk`. */
export function formatCtState(state: number): string {
  const names: Array<[number, string]> = [
    [CS_NEW, 'new'],
    [CS_EST, 'est'],
    [CS_REL, 'rel'],
    [CS_RPL, 'rpl'],
    [CS_INV, 'inv'],
    [CS_TRK, 'trk'],
    [CS_SNAT, 'snat'],
    [CS_DNAT, 'dnat'],
  ];
  return (
    names
      .filter(([bit]) => state & bit)
      .map(([, n]) => n)
      .join('|') || '-'
  );
}

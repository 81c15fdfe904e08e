/**
 * The symbol table of OVN 23.03.1, the release Debian 12 ships and the
 * binaries installed here (lib/logical-fields.c `ovn_init_symtab` at tag
 * v23.03.1; later 23.03.x add `flags.localnet`, `flags.from_ctrl` and
 * `nd_ns_mcast`, and narrow `igmp`, `mldv1` and `mldv2` to multicast):
 * every field, subfield and predicate a match may name, with its width,
 * level of measurement and prerequisites. Widths come from the OpenFlow
 * fields (OVS 3.1 meta-flow.h); a field is ordinal iff OVS can mask it
 * bitwise, otherwise nominal (`==` only, and only "positively").
 *
 * Packets expose fields by {@link MatchStorageKey}: the storage a symbol
 * reads. Subfields read a slice of their parent's storage (`reg0` is
 * `xxreg0[96..127]`, `ct.est` is `ct_state[1]`); `rarp.*` read the `arp.*`
 * storage, as OVS keeps both in the same OpenFlow fields.
 *
 * Left out: `icmp4.frag_mtu`/`icmp6.frag_mtu` (action-only OVN fields).
 */

export type FieldLevel = 'nominal' | 'boolean' | 'ordinal';

/** Keys of `MatchPacket.get` (see evaluate.ts for what each holds). */
export type MatchStorageKey =
  | 'xxreg0'
  | 'xxreg1'
  | 'xreg4'
  | 'flags'
  | 'pkt.mark'
  | 'ct_state'
  | 'ct_mark'
  | 'ct_label'
  | 'eth.src'
  | 'eth.dst'
  | 'eth.type'
  | 'vlan.tci'
  | 'ip.proto'
  | 'ip.dscp'
  | 'ip.ecn'
  | 'ip.ttl'
  | 'ip.frag'
  | 'ip4.src'
  | 'ip4.dst'
  | 'ip6.src'
  | 'ip6.dst'
  | 'ip6.label'
  | 'icmp4.type'
  | 'icmp4.code'
  | 'icmp6.type'
  | 'icmp6.code'
  | 'arp.op'
  | 'arp.spa'
  | 'arp.sha'
  | 'arp.tpa'
  | 'arp.tha'
  | 'nd.target'
  | 'nd.sll'
  | 'nd.tll'
  | 'tcp.src'
  | 'tcp.dst'
  | 'tcp.flags'
  | 'udp.src'
  | 'udp.dst'
  | 'sctp.src'
  | 'sctp.dst';

/** An integer field or subfield: reads `width` bits at `offset` of `storage`. */
export interface IntSymbol {
  readonly kind: 'int';
  readonly name: string;
  readonly width: number;
  readonly level: FieldLevel;
  /** Match text that must also hold wherever the symbol is compared (e.g. `tcp` for `tcp.dst`). */
  readonly prereqs?: string;
  readonly storage: MatchStorageKey;
  readonly storageWidth: number;
  readonly offset: number;
  /** For subfields: the parent as OVN defines it (`ct_state[1]`). */
  readonly parent?: string;
}

/** `inport`/`outport`: logical port names (width 0, always nominal). */
export interface StringSymbol {
  readonly kind: 'string';
  readonly name: 'inport' | 'outport';
  readonly width: 0;
  readonly level: 'nominal';
  readonly prereqs?: undefined;
}

/** A 1-bit shorthand for a boolean expression (`ip4` is `eth.type == 0x800`). */
export interface PredicateSymbol {
  readonly kind: 'predicate';
  readonly name: string;
  readonly width: 1;
  /** Nominal iff the expansion names a nominal field or predicate. */
  readonly level: 'nominal' | 'boolean';
  readonly expansion: string;
  readonly prereqs?: undefined;
}

export type MatchSymbol = IntSymbol | StringSymbol | PredicateSymbol;

const table = new Map<string, MatchSymbol>();

function field(name: string, width: number, level: FieldLevel, prereqs?: string, storage = name): void {
  add({
    kind: 'int',
    name,
    width,
    level,
    storage: storage as MatchStorageKey,
    storageWidth: width,
    offset: 0,
    ...opt(prereqs),
  });
}

/** `parent[lo..hi]`; subfields take the parent's level (always ordinal in OVN's table). */
function subfield(name: string, parent: string, lo: number, hi: number, prereqs?: string): void {
  const p = table.get(parent);
  if (p?.kind !== 'int') throw new Error(`symbol table: ${name}: parent ${parent} is not an integer field`);
  add({
    kind: 'int',
    name,
    width: hi - lo + 1,
    level: p.level,
    storage: p.storage,
    storageWidth: p.storageWidth,
    offset: p.offset + lo,
    parent: lo === hi ? `${parent}[${lo}]` : `${parent}[${lo}..${hi}]`,
    ...opt(prereqs),
  });
}

function predicate(name: string, level: 'nominal' | 'boolean', expansion: string): void {
  add({ kind: 'predicate', name, width: 1, level, expansion });
}

function add(sym: MatchSymbol): void {
  if (table.has(sym.name)) throw new Error(`symbol table: duplicate ${sym.name}`);
  table.set(sym.name, sym);
}

const opt = (prereqs: string | undefined) => (prereqs === undefined ? {} : { prereqs });

// Logical ports and registers. reg0 is the most significant word of xxreg0.
add({ kind: 'string', name: 'inport', width: 0, level: 'nominal' });
add({ kind: 'string', name: 'outport', width: 0, level: 'nominal' });
field('xxreg0', 128, 'ordinal');
field('xxreg1', 128, 'ordinal');
subfield('xreg0', 'xxreg0', 64, 127);
subfield('xreg1', 'xxreg0', 0, 63);
subfield('xreg2', 'xxreg1', 64, 127);
subfield('xreg3', 'xxreg1', 0, 63);
field('xreg4', 64, 'ordinal');
for (let i = 0; i < 8; i++) {
  const lo = 32 * (3 - (i % 4));
  subfield(`reg${i}`, `xxreg${i >> 2}`, lo, lo + 31);
}
subfield('reg8', 'xreg4', 32, 63);
subfield('reg9', 'xreg4', 0, 31);

// Logical flags (MLF_* bits of reg10).
field('flags', 32, 'ordinal');
const FLAG_BITS: ReadonlyArray<readonly [string, number]> = [
  ['loopback', 0],
  ['force_snat_for_dnat', 2],
  ['force_snat_for_lb', 3],
  ['skip_snat_for_lb', 9],
  ['use_snat_zone', 11],
];
for (const [n, bit] of FLAG_BITS) subfield(`flags.${n}`, 'flags', bit, bit);

// Connection tracking.
field('ct_mark', 32, 'ordinal');
subfield('ct_mark.blocked', 'ct_mark', 0, 0);
subfield('ct_mark.natted', 'ct_mark', 1, 1);
subfield('ct_mark.ecmp_reply_port', 'ct_mark', 16, 31);
subfield('ct_mark.skip_snat', 'ct_mark', 2, 2);
subfield('ct_mark.force_snat', 'ct_mark', 3, 3);
field('ct_label', 128, 'ordinal');
subfield('ct_label.blocked', 'ct_label', 0, 0);
subfield('ct_label.natted', 'ct_label', 1, 1);
subfield('ct_label.ecmp_reply_eth', 'ct_label', 32, 79);
subfield('ct_label.ecmp_reply_port', 'ct_label', 80, 95);
subfield('ct_label.label', 'ct_label', 96, 127);
subfield('ct_label.skip_snat', 'ct_label', 2, 2);
subfield('ct_label.force_snat', 'ct_label', 3, 3);
field('ct_state', 32, 'ordinal');
/** ct_state bits (OVS CS_* bits). */
export const CT_STATE_BITS = { new: 0, est: 1, rel: 2, rpl: 3, inv: 4, trk: 5, snat: 6, dnat: 7 } as const;
for (const [n, bit] of Object.entries(CT_STATE_BITS)) {
  subfield(`ct.${n}`, 'ct_state', bit, bit, n === 'trk' ? undefined : 'ct.trk');
}

// Ethernet and VLAN.
field('eth.src', 48, 'ordinal');
field('eth.dst', 48, 'ordinal');
field('eth.type', 16, 'nominal');
predicate('eth.bcast', 'boolean', 'eth.dst == ff:ff:ff:ff:ff:ff');
subfield('eth.mcast', 'eth.dst', 40, 40);
predicate('eth.mcastv6', 'boolean', 'eth.dst[32..47] == 0x3333');
field('vlan.tci', 16, 'ordinal');
predicate('vlan.present', 'boolean', 'vlan.tci[12]');
subfield('vlan.pcp', 'vlan.tci', 13, 15, 'vlan.present');
subfield('vlan.vid', 'vlan.tci', 0, 11, 'vlan.present');

// IP.
predicate('ip4', 'nominal', 'eth.type == 0x800');
predicate('ip6', 'nominal', 'eth.type == 0x86dd');
predicate('ip', 'nominal', 'ip4 || ip6');
field('ip.proto', 8, 'nominal', 'ip');
field('ip.dscp', 6, 'nominal', 'ip');
field('ip.ecn', 2, 'nominal', 'ip');
field('ip.ttl', 8, 'nominal', 'ip');
field('ip4.src', 32, 'ordinal', 'ip4');
field('ip4.dst', 32, 'ordinal', 'ip4');
predicate('ip4.src_mcast', 'boolean', 'ip4.src[28..31] == 0xe');
predicate('ip4.mcast', 'boolean', 'eth.mcast && ip4.dst[28..31] == 0xe');
predicate('icmp4', 'nominal', 'ip4 && ip.proto == 1');
field('icmp4.type', 8, 'nominal', 'icmp4');
field('icmp4.code', 8, 'nominal', 'icmp4');
predicate('igmp', 'nominal', 'ip4 && ip.proto == 2');
field('ip6.src', 128, 'ordinal', 'ip6');
field('ip6.dst', 128, 'ordinal', 'ip6');
field('ip6.label', 20, 'ordinal', 'ip6');
predicate('ip6.mcast_rsvd', 'boolean', 'ip6.dst[116..127] == 0xff0 && ip6.dst[0..111] == 0x0');
predicate('ip6.mcast_all_nodes', 'boolean', 'ip6.dst == ff01::1 || ip6.dst == ff02::1');
predicate('ip6.mcast_all_rtrs', 'boolean', 'ip6.dst == ff01::2 || ip6.dst == ff02::2 || ip6.dst == ff05::2');
predicate('ip6.mcast_sol_node', 'boolean', 'ip6.dst == ff02::1:ff00:0000/104');
predicate(
  'ip6.mcast_flood',
  'boolean',
  'eth.mcastv6 && (ip6.mcast_rsvd || ip6.mcast_all_nodes || ip6.mcast_all_rtrs || ip6.mcast_sol_node)',
);
predicate('ip6.mcast', 'boolean', 'eth.mcastv6 && ip6.dst[120..127] == 0xff');
predicate('icmp6', 'nominal', 'ip6 && ip.proto == 58');
field('icmp6.type', 8, 'nominal', 'icmp6');
field('icmp6.code', 8, 'nominal', 'icmp6');
predicate('icmp', 'nominal', 'icmp4 || icmp6');
field('ip.frag', 2, 'ordinal', 'ip');
predicate('ip.is_frag', 'boolean', 'ip.frag[0]');
predicate('ip.later_frag', 'boolean', 'ip.frag[1]');
predicate('ip.first_frag', 'boolean', 'ip.is_frag && !ip.later_frag');

// ARP and RARP share OVS's ARP fields.
for (const proto of ['arp', 'rarp'] as const) {
  predicate(proto, 'nominal', proto === 'arp' ? 'eth.type == 0x806' : 'eth.type == 0x8035');
  field(`${proto}.op`, 16, 'nominal', proto, 'arp.op');
  field(`${proto}.spa`, 32, 'ordinal', proto, 'arp.spa');
  field(`${proto}.sha`, 48, 'ordinal', proto, 'arp.sha');
  field(`${proto}.tpa`, 32, 'ordinal', proto, 'arp.tpa');
  field(`${proto}.tha`, 48, 'ordinal', proto, 'arp.tha');
}

// Neighbour discovery and MLD.
predicate('nd', 'nominal', 'icmp6.type == {135, 136} && icmp6.code == 0 && ip.ttl == 255');
predicate('nd_ns', 'nominal', 'icmp6.type == 135 && icmp6.code == 0 && ip.ttl == 255');
predicate('nd_na', 'nominal', 'icmp6.type == 136 && icmp6.code == 0 && ip.ttl == 255');
predicate('nd_rs', 'nominal', 'icmp6.type == 133 && icmp6.code == 0 && ip.ttl == 255');
predicate('nd_ra', 'nominal', 'icmp6.type == 134 && icmp6.code == 0 && ip.ttl == 255');
field('nd.target', 128, 'ordinal', 'nd');
field('nd.sll', 48, 'ordinal', 'nd_ns');
field('nd.tll', 48, 'ordinal', 'nd_na');
predicate('mldv1', 'nominal', 'ip6.src == fe80::/10 && icmp6.type == {130, 131, 132}');
predicate('mldv2', 'nominal', 'ip6.dst == ff02::16 && icmp6.type == 143');

// Transport.
predicate('tcp', 'nominal', 'ip.proto == 6');
field('tcp.src', 16, 'ordinal', 'tcp');
field('tcp.dst', 16, 'ordinal', 'tcp');
field('tcp.flags', 12, 'ordinal', 'tcp');
predicate('udp', 'nominal', 'ip.proto == 17');
field('udp.src', 16, 'ordinal', 'udp');
field('udp.dst', 16, 'ordinal', 'udp');
predicate('sctp', 'nominal', 'ip.proto == 132');
field('sctp.src', 16, 'ordinal', 'sctp');
field('sctp.dst', 16, 'ordinal', 'sctp');

field('pkt.mark', 32, 'ordinal');

/** Every symbol, in OVN's definition order. */
export const MATCH_SYMBOLS: ReadonlyMap<string, MatchSymbol> = table;

/**
 * @example lookupSymbol('tcp.dst') // { kind: 'int', width: 16, level: 'ordinal', prereqs: 'tcp', ... }
 */
export function lookupSymbol(name: string): MatchSymbol | undefined {
  return table.get(name);
}

/** Storage keys, for packet implementations that want to enumerate them. */
export const MATCH_STORAGE_KEYS: readonly MatchStorageKey[] = [
  ...new Set([...table.values()].flatMap((s) => (s.kind === 'int' ? [s.storage] : []))),
];

/**
 * What the evaluator reads from a packet. The simulator implements
 * {@link MatchPacket} over its own packet values; nothing here allocates per
 * read beyond what the implementation does.
 */
import type { MatchStorageKey } from './fields.ts';

/**
 * A packet as a match sees it: the logical ports, and header and metadata
 * fields by storage key (fields.ts). Values are non-negative integers:
 * a `number` when below 2^53 (IPv4 as uint32, MACs as 48-bit numbers, as
 * model/addr represents them), otherwise a `bigint` (IPv6, ct_label,
 * xxreg). `undefined` means the field is absent (no TCP header, no VLAN
 * tag): it reads as 0, as in OpenFlow, and the prerequisites OVN attaches
 * to every comparison (`tcp.dst` requires `ip.proto == 6` and IP) keep an
 * absent header from matching.
 *
 * Keys and contents (OVS conventions):
 * - `eth.src`, `eth.dst` (48 bits); `eth.type`, the Ethertype after any VLAN tag.
 * - `vlan.tci`: the TCI with bit 12 (CFI) set iff a VLAN header is present, else 0.
 * - `ip.proto`, `ip.ttl` (hop limit for IPv6), `ip.dscp` (6-bit DSCP, shifted
 *   down), `ip.ecn` (2 bits), `ip.frag` (bit 0 = is a fragment, bit 1 = not the first).
 * - `ip4.src`, `ip4.dst` (32 bits); `ip6.src`, `ip6.dst` (128); `ip6.label` (20).
 * - `icmp4.type`, `icmp4.code`, `icmp6.type`, `icmp6.code`.
 * - `arp.op`, `arp.spa`, `arp.sha`, `arp.tpa`, `arp.tha` (RARP too).
 * - `nd.target` (128), `nd.sll`, `nd.tll` (48; 0 without the option).
 * - `tcp.src`, `tcp.dst`, `tcp.flags` (12 bits), `udp.src`, `udp.dst`, `sctp.src`, `sctp.dst`.
 * - `ct_state` (bits in CT_STATE_BITS; 0 before conntrack), `ct_mark` (32), `ct_label` (128).
 * - `xxreg0` = reg0..reg3 and `xxreg1` = reg4..reg7 (reg0 most significant),
 *   `xreg4` = reg8 (high) and reg9 (low), `flags` (logical flags), `pkt.mark`.
 *
 * @example
 * const p: MatchPacket = {
 *   inport: 'web-0.default', outport: '',
 *   get: (k) => (k === 'eth.type' ? 0x800 : k === 'ip4.src' ? 0x0a100005 : undefined),
 * };
 */
export interface MatchPacket {
  /** Logical input port name, '' when unset. */
  readonly inport: string;
  /** Logical output port (or multicast group) name, '' when unset. */
  readonly outport: string;
  get(key: MatchStorageKey): number | bigint | undefined;
}

/** Field values by storage key, for {@link packetFromRecord}. */
export type MatchFieldValues = Readonly<Partial<Record<MatchStorageKey, number | bigint>>>;

/**
 * A MatchPacket over a plain record (tests, tools; the simulator may use its own).
 *
 * @example packetFromRecord({ inport: 'a', fields: { 'eth.type': 0x800, 'ip4.src': 0x0a000001 } })
 */
export function packetFromRecord(p: { inport?: string; outport?: string; fields: MatchFieldValues }): MatchPacket {
  const fields = p.fields;
  return { inport: p.inport ?? '', outport: p.outport ?? '', get: (k) => fields[k] };
}

/**
 * A packet is an immutable flat record of OVN-named header fields (see
 * `fields.ts`). Changing a field makes a new packet; the helpers here answer
 * the questions the pipelines ask (which family, which L4 protocol, which
 * ports) without the caller spelling field names per protocol.
 */
import {
  ETH_TYPE_ARP,
  ETH_TYPE_IP,
  ETH_TYPE_IPV6,
  FIELD_ORDER,
  ICMP4_ECHO_REPLY,
  ICMP4_ECHO_REQUEST,
  ICMP6_ECHO_REPLY,
  ICMP6_ECHO_REQUEST,
  IPPROTO_ICMP,
  IPPROTO_ICMPV6,
  IPPROTO_SCTP,
  IPPROTO_TCP,
  IPPROTO_UDP,
  ND_NA,
  ND_NS,
  ND_RA,
  ND_RS,
  type FieldName,
  type InnerTuple,
  type PacketFields,
} from './fields.ts';
import { SimPacket } from './canonical.ts';

export interface Packet extends PacketFields {
  /** For ICMP errors: the tuple of the packet the error is about. */
  readonly inner?: InnerTuple;
}

/** A partial update; `undefined` removes a field. */
export type FieldPatch = { -readonly [K in FieldName]?: PacketFields[K] | undefined } & {
  inner?: InnerTuple | undefined;
};

/**
 * A new packet with some fields replaced (or removed, with `undefined`).
 *
 * @example withFields(p, { 'ip.ttl': 63, 'eth.src': 0x0a0000000001 })
 */
export function withFields(p: Packet, patch: FieldPatch): Packet {
  if (p instanceof SimPacket) {
    // The working form keeps every field: a removed one is set to undefined.
    const q = new SimPacket(p) as unknown as Record<string, unknown>;
    for (const k in patch) q[k] = (patch as Record<string, unknown>)[k];
    return q as unknown as Packet;
  }
  const out: Record<string, unknown> = { ...p };
  for (const k in patch) {
    const v = (patch as Record<string, unknown>)[k];
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out as unknown as Packet;
}

/**
 * The packet as OVS keys it. OVS holds the ARP opcode in the 8-bit
 * `nw_proto`: setting the field keeps the low 8 bits (meta-flow
 * mf_set_flow_value, MFF_ARP_OP; so ovn-trace traces `arp.op == 257` as
 * opcode 1), and a frame whose opcode does not fit has none (see
 * wire/arp.ts). `simulate()` applies this to the packet it is given.
 *
 * @example asOvsKeys(withFields(arpRequest(spec), { 'arp.op': 0x101 }))['arp.op'] // 1
 */
export function asOvsKeys(p: Packet): Packet {
  const op = p['arp.op'];
  return op !== undefined && op > 0xff ? withFields(p, { 'arp.op': op & 0xff }) : p;
}

export type L4Proto = 'tcp' | 'udp' | 'sctp' | 'icmp4' | 'icmp6';

export const isIPv4 = (p: Packet): boolean => p['eth.type'] === ETH_TYPE_IP;
export const isIPv6 = (p: Packet): boolean => p['eth.type'] === ETH_TYPE_IPV6;
export const isIP = (p: Packet): boolean => isIPv4(p) || isIPv6(p);
export const isArp = (p: Packet): boolean => p['eth.type'] === ETH_TYPE_ARP;

/** The IP family, or undefined for non-IP frames. */
export function familyOf(p: Packet): 4 | 6 | undefined {
  return isIPv4(p) ? 4 : isIPv6(p) ? 6 : undefined;
}

/**
 * The group bit of a 48-bit MAC (bit 40 as a number). Integer `&` on the
 * high byte, not `% 2` on a double (a C call in V8, and this runs several
 * times per packet); a negative or non-numeric value has no group bit.
 */
export function isMcastMac(mac: number): boolean {
  const high = Math.floor(mac / 0x10000000000);
  return high >= 0 && (high & 1) === 1;
}

/** OVN's `eth.mcast`: the group bit of the destination MAC (broadcast included). */
export function isEthMcast(p: Packet): boolean {
  return isMcastMac(p['eth.dst']);
}

export const isEthBcast = (p: Packet): boolean => p['eth.dst'] === 0xffffffffffff;

export function l4ProtoOf(p: Packet): L4Proto | undefined {
  switch (p['ip.proto']) {
    case IPPROTO_TCP:
      return 'tcp';
    case IPPROTO_UDP:
      return 'udp';
    case IPPROTO_SCTP:
      return 'sctp';
    case IPPROTO_ICMP:
      return isIPv4(p) ? 'icmp4' : undefined;
    case IPPROTO_ICMPV6:
      return isIPv6(p) ? 'icmp6' : undefined;
    default:
      return undefined;
  }
}

/** Source and destination IP as numbers (IPv4) or bigints (IPv6). */
export function ipSrc(p: Packet): number | bigint | undefined {
  return isIPv4(p) ? p['ip4.src'] : isIPv6(p) ? p['ip6.src'] : undefined;
}

export function ipDst(p: Packet): number | bigint | undefined {
  return isIPv4(p) ? p['ip4.dst'] : isIPv6(p) ? p['ip6.dst'] : undefined;
}

/** L4 source port (TCP/UDP/SCTP) or undefined. */
export function srcPort(p: Packet): number | undefined {
  return p['tcp.src'] ?? p['udp.src'] ?? p['sctp.src'];
}

export function dstPort(p: Packet): number | undefined {
  return p['tcp.dst'] ?? p['udp.dst'] ?? p['sctp.dst'];
}

/** A packet with its IP source and/or destination replaced (family kept). */
export function withIPs(p: Packet, src: number | bigint | undefined, dst: number | bigint | undefined): Packet {
  if (p instanceof SimPacket) {
    const q = new SimPacket(p);
    const v4 = isIPv4(p);
    if (src !== undefined) v4 ? (q['ip4.src'] = src as number) : (q['ip6.src'] = src as bigint);
    if (dst !== undefined) v4 ? (q['ip4.dst'] = dst as number) : (q['ip6.dst'] = dst as bigint);
    return q;
  }
  if (isIPv4(p)) {
    return withFields(p, {
      ...(src !== undefined ? { 'ip4.src': src as number } : {}),
      ...(dst !== undefined ? { 'ip4.dst': dst as number } : {}),
    });
  }
  return withFields(p, {
    ...(src !== undefined ? { 'ip6.src': src as bigint } : {}),
    ...(dst !== undefined ? { 'ip6.dst': dst as bigint } : {}),
  });
}

/** A packet with its L4 ports replaced (no-op for protocols without ports). */
export function withPorts(p: Packet, sport: number | undefined, dport: number | undefined): Packet {
  const proto = l4ProtoOf(p);
  if (proto !== 'tcp' && proto !== 'udp' && proto !== 'sctp') return p;
  if (p instanceof SimPacket) {
    const q = new SimPacket(p);
    if (proto === 'tcp') {
      if (sport !== undefined) q['tcp.src'] = sport;
      if (dport !== undefined) q['tcp.dst'] = dport;
    } else if (proto === 'udp') {
      if (sport !== undefined) q['udp.src'] = sport;
      if (dport !== undefined) q['udp.dst'] = dport;
    } else {
      if (sport !== undefined) q['sctp.src'] = sport;
      if (dport !== undefined) q['sctp.dst'] = dport;
    }
    return q;
  }
  const patch: FieldPatch = {};
  if (sport !== undefined) patch[`${proto}.src`] = sport;
  if (dport !== undefined) patch[`${proto}.dst`] = dport;
  return withFields(p, patch);
}

export function icmpType(p: Packet): number | undefined {
  return p['icmp4.type'] ?? p['icmp6.type'];
}

/** ICMP echo request or reply (either family). */
export function isIcmpEcho(p: Packet): 'request' | 'reply' | undefined {
  const t4 = p['icmp4.type'];
  if (t4 !== undefined) return t4 === ICMP4_ECHO_REQUEST ? 'request' : t4 === ICMP4_ECHO_REPLY ? 'reply' : undefined;
  const t6 = p['icmp6.type'];
  if (t6 !== undefined) return t6 === ICMP6_ECHO_REQUEST ? 'request' : t6 === ICMP6_ECHO_REPLY ? 'reply' : undefined;
  return undefined;
}

/** OVN's `nd` (NS or NA with hop limit 255 and code 0). */
export function isNd(p: Packet): boolean {
  const t = p['icmp6.type'];
  return (t === ND_NS || t === ND_NA) && p['icmp6.code'] === 0 && p['ip.ttl'] === 255;
}

export const isNdNs = (p: Packet): boolean => isNd(p) && p['icmp6.type'] === ND_NS;
export const isNdNa = (p: Packet): boolean => isNd(p) && p['icmp6.type'] === ND_NA;

/** `nd || nd_rs || nd_ra || mldv1 || mldv2`: what OVN keeps out of conntrack. */
export function isNdOrMld(p: Packet): boolean {
  if (!isIPv6(p) || p['ip.proto'] !== IPPROTO_ICMPV6) return false;
  const t = p['icmp6.type'];
  if (isNd(p)) return true;
  if ((t === ND_RS || t === ND_RA) && p['icmp6.code'] === 0 && p['ip.ttl'] === 255) return true;
  // MLDv1 (130..132) and MLDv2 reports (143) are sent with hop limit 1 from link-local sources.
  return (t === 130 || t === 131 || t === 132 || t === 143) && p['ip.ttl'] === 1;
}

/** Fields whose value differs between two packets, in header order. */
export function changedFields(before: Packet, after: Packet): FieldName[] {
  if (before === after) return [];
  const out: FieldName[] = [];
  for (const f of FIELD_ORDER) if (before[f] !== after[f]) out.push(f);
  return out;
}

/**
 * Packet header fields, named exactly as the OVN match language names them
 * (ovn-sb(5), "Logical_Flow" match fields), so a packet is a flat record the
 * match evaluator reads without translation. Values are plain numbers except
 * 128-bit IPv6 values (bigint). MACs are 48-bit numbers (see model/addr).
 *
 * Which fields are present says which headers the packet has: `ip4.src`
 * is set iff the packet is IPv4, `tcp.src` iff it carries TCP, and so on. A
 * field is absent when its value is `undefined`: the simulator's working
 * form (`SimPacket`, what the builders return) keeps every key.
 * The predicates OVN derives (`ip4`, `tcp`, `nd_ns`, `eth.mcast`, ...) follow
 * from `eth.type`, `ip.proto`, `icmp*.type` and friends.
 */

export const ETH_TYPE_IP = 0x0800;
export const ETH_TYPE_ARP = 0x0806;
export const ETH_TYPE_RARP = 0x8035;
export const ETH_TYPE_IPV6 = 0x86dd;
export const ETH_TYPE_VLAN = 0x8100;

export const IPPROTO_ICMP = 1;
export const IPPROTO_TCP = 6;
export const IPPROTO_UDP = 17;
export const IPPROTO_ICMPV6 = 58;
export const IPPROTO_SCTP = 132;

export const ARP_OP_REQUEST = 1;
export const ARP_OP_REPLY = 2;

/** TCP flag bits as `tcp.flags` holds them (the low 12 bits of the header word). */
export const TCP_FIN = 0x001;
export const TCP_SYN = 0x002;
export const TCP_RST = 0x004;
export const TCP_PSH = 0x008;
export const TCP_ACK = 0x010;
export const TCP_URG = 0x020;

export const ICMP4_ECHO_REPLY = 0;
export const ICMP4_DST_UNREACH = 3;
export const ICMP4_ECHO_REQUEST = 8;
export const ICMP4_TIME_EXCEEDED = 11;
export const ICMP6_DST_UNREACH = 1;
export const ICMP6_PACKET_TOO_BIG = 2;
export const ICMP6_TIME_EXCEEDED = 3;
export const ICMP6_ECHO_REQUEST = 128;
export const ICMP6_ECHO_REPLY = 129;
export const ND_RS = 133;
export const ND_RA = 134;
export const ND_NS = 135;
export const ND_NA = 136;

/** `ip.frag` bits (OVS nw_frag): bit 0 "is a fragment", bit 1 "not the first fragment". */
export const FRAG_ANY = 1;
export const FRAG_LATER = 2;

/**
 * Every header field the simulator models. Optional fields are absent when
 * the header is. (`vlan.tci` is only ever present to be dropped: OVN's
 * switches and routers drop VLAN-tagged frames from VIFs.)
 */
export interface PacketFields {
  readonly 'eth.src': number;
  readonly 'eth.dst': number;
  readonly 'eth.type': number;
  readonly 'vlan.tci'?: number;

  readonly 'arp.op'?: number;
  readonly 'arp.spa'?: number;
  readonly 'arp.tpa'?: number;
  readonly 'arp.sha'?: number;
  readonly 'arp.tha'?: number;

  /** Present for IPv4 and IPv6. */
  readonly 'ip.proto'?: number;
  readonly 'ip.ttl'?: number;
  readonly 'ip.dscp'?: number;
  readonly 'ip.ecn'?: number;
  /** OVS nw_frag bits, see {@link FRAG_ANY}. */
  readonly 'ip.frag'?: number;

  readonly 'ip4.src'?: number;
  readonly 'ip4.dst'?: number;
  readonly 'ip6.src'?: bigint;
  readonly 'ip6.dst'?: bigint;
  readonly 'ip6.label'?: number;

  readonly 'icmp4.type'?: number;
  readonly 'icmp4.code'?: number;
  readonly 'icmp6.type'?: number;
  readonly 'icmp6.code'?: number;
  /** ICMP echo identifier: not an OVN match field, but conntrack keys on it. */
  readonly 'icmp.id'?: number;

  readonly 'nd.target'?: bigint;
  readonly 'nd.sll'?: number;
  readonly 'nd.tll'?: number;

  readonly 'tcp.src'?: number;
  readonly 'tcp.dst'?: number;
  readonly 'tcp.flags'?: number;
  readonly 'udp.src'?: number;
  readonly 'udp.dst'?: number;
  readonly 'sctp.src'?: number;
  readonly 'sctp.dst'?: number;
}

export type FieldName = keyof PacketFields;

/**
 * The transport tuple an ICMP error quotes (its embedded IP header plus the
 * first 8 bytes): what conntrack uses to find the connection the error is
 * related to.
 */
export interface InnerTuple {
  readonly family: 4 | 6;
  readonly proto: number;
  readonly src: number | bigint;
  readonly dst: number | bigint;
  /** L4 ports, or ICMP id and 0. */
  readonly sport: number;
  readonly dport: number;
}

/** Every field name, in header order (printing, JSON). */
export const FIELD_ORDER: readonly FieldName[] = [
  'eth.src',
  'eth.dst',
  'eth.type',
  'vlan.tci',
  'arp.op',
  'arp.spa',
  'arp.tpa',
  'arp.sha',
  'arp.tha',
  'ip.proto',
  'ip.ttl',
  'ip.dscp',
  'ip.ecn',
  'ip.frag',
  'ip4.src',
  'ip4.dst',
  'ip6.src',
  'ip6.dst',
  'ip6.label',
  'icmp4.type',
  'icmp4.code',
  'icmp6.type',
  'icmp6.code',
  'icmp.id',
  'nd.target',
  'nd.sll',
  'nd.tll',
  'tcp.src',
  'tcp.dst',
  'tcp.flags',
  'udp.src',
  'udp.dst',
  'sctp.src',
  'sctp.dst',
];

/** How each field prints: MACs, IPv4, IPv6, hex or decimal. */
export type FieldKind = 'mac' | 'ip4' | 'ip6' | 'hex' | 'dec';

export const FIELD_KIND: Readonly<Record<FieldName, FieldKind>> = {
  'eth.src': 'mac',
  'eth.dst': 'mac',
  'eth.type': 'hex',
  'vlan.tci': 'hex',
  'arp.op': 'dec',
  'arp.spa': 'ip4',
  'arp.tpa': 'ip4',
  'arp.sha': 'mac',
  'arp.tha': 'mac',
  'ip.proto': 'dec',
  'ip.ttl': 'dec',
  'ip.dscp': 'dec',
  'ip.ecn': 'dec',
  'ip.frag': 'dec',
  'ip4.src': 'ip4',
  'ip4.dst': 'ip4',
  'ip6.src': 'ip6',
  'ip6.dst': 'ip6',
  'ip6.label': 'hex',
  'icmp4.type': 'dec',
  'icmp4.code': 'dec',
  'icmp6.type': 'dec',
  'icmp6.code': 'dec',
  'icmp.id': 'dec',
  'nd.target': 'ip6',
  'nd.sll': 'mac',
  'nd.tll': 'mac',
  'tcp.src': 'dec',
  'tcp.dst': 'dec',
  'tcp.flags': 'hex',
  'udp.src': 'dec',
  'udp.dst': 'dec',
  'sctp.src': 'dec',
  'sctp.dst': 'dec',
};

/**
 * Packet builders for tests, scenarios and probes. Addresses may be given as
 * text ("10.0.0.1", "fd00::1", "0a:00:00:00:00:01") or as values; the IP
 * family follows the source address. They return packets in the
 * simulator's working form (canonical.ts), which simulate() takes as is.
 */
import { MAC_BROADCAST, parseIPv4, parseIPv6, parseMAC } from '../addr/index.ts';
import {
  ARP_OP_REPLY,
  ARP_OP_REQUEST,
  ETH_TYPE_ARP,
  ETH_TYPE_IP,
  ETH_TYPE_IPV6,
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
  TCP_SYN,
  type InnerTuple,
} from './fields.ts';
import { SimPacket } from './canonical.ts';
import { dstPort, ipDst, ipSrc, isIPv4, srcPort, type Packet } from './packet.ts';

export type MacLike = string | number;
export type IPLike = string | number | bigint;

export const mac = (m: MacLike): number => (typeof m === 'number' ? m : parseMAC(m));

function ipFamily(ip: IPLike): 4 | 6 {
  if (typeof ip === 'bigint') return 6;
  if (typeof ip === 'number') return 4;
  return ip.includes(':') ? 6 : 4;
}

const ip4 = (ip: IPLike): number => (typeof ip === 'number' ? ip : parseIPv4(String(ip)));
const ip6 = (ip: IPLike): bigint => (typeof ip === 'bigint' ? ip : parseIPv6(String(ip)));

export interface IPPacketSpec {
  readonly ethSrc: MacLike;
  readonly ethDst: MacLike;
  readonly src: IPLike;
  readonly dst: IPLike;
  /** Default 64. */
  readonly ttl?: number;
  readonly dscp?: number;
}

/** Ethernet + IPv4/IPv6 headers, without L4. */
export function ipHeaders(spec: IPPacketSpec, proto: number): Packet {
  const base = {
    'eth.src': mac(spec.ethSrc),
    'eth.dst': mac(spec.ethDst),
    'ip.proto': proto,
    'ip.ttl': spec.ttl ?? 64,
    'ip.dscp': spec.dscp ?? 0,
    'ip.ecn': 0,
    'ip.frag': 0,
  };
  if (ipFamily(spec.src) === 4) {
    return { ...base, 'eth.type': ETH_TYPE_IP, 'ip4.src': ip4(spec.src), 'ip4.dst': ip4(spec.dst) };
  }
  return { ...base, 'eth.type': ETH_TYPE_IPV6, 'ip6.src': ip6(spec.src), 'ip6.dst': ip6(spec.dst), 'ip6.label': 0 };
}

export interface L4PacketSpec extends IPPacketSpec {
  readonly sport: number;
  readonly dport: number;
}

export interface TcpPacketSpec extends L4PacketSpec {
  /** Default SYN. */
  readonly flags?: number;
}

/**
 * @example tcpPacket({ ethSrc: '0a:00:00:00:00:01', ethDst: '0a:00:00:00:00:02', src: '10.16.0.2', dst: '10.16.0.3', sport: 40000, dport: 80 })
 */
export function tcpPacket(spec: TcpPacketSpec): Packet {
  return SimPacket.of({
    ...ipHeaders(spec, IPPROTO_TCP),
    'tcp.src': spec.sport,
    'tcp.dst': spec.dport,
    'tcp.flags': spec.flags ?? TCP_SYN,
  });
}

export function udpPacket(spec: L4PacketSpec): Packet {
  return SimPacket.of({ ...ipHeaders(spec, IPPROTO_UDP), 'udp.src': spec.sport, 'udp.dst': spec.dport });
}

export function sctpPacket(spec: L4PacketSpec): Packet {
  return SimPacket.of({ ...ipHeaders(spec, IPPROTO_SCTP), 'sctp.src': spec.sport, 'sctp.dst': spec.dport });
}

export interface IcmpEchoSpec extends IPPacketSpec {
  /** Default 'request'. */
  readonly kind?: 'request' | 'reply';
  /** Echo identifier (conntrack keys on it). Default 1. */
  readonly id?: number;
}

/** ICMPv4 or ICMPv6 echo request/reply, by the source address family. */
export function icmpEcho(spec: IcmpEchoSpec): Packet {
  const reply = spec.kind === 'reply';
  if (ipFamily(spec.src) === 4) {
    return SimPacket.of({
      ...ipHeaders(spec, IPPROTO_ICMP),
      'icmp4.type': reply ? ICMP4_ECHO_REPLY : ICMP4_ECHO_REQUEST,
      'icmp4.code': 0,
      'icmp.id': spec.id ?? 1,
    });
  }
  return SimPacket.of({
    ...ipHeaders(spec, IPPROTO_ICMPV6),
    'icmp6.type': reply ? ICMP6_ECHO_REPLY : ICMP6_ECHO_REQUEST,
    'icmp6.code': 0,
    'icmp.id': spec.id ?? 1,
  });
}

export interface ArpSpec {
  readonly sha: MacLike;
  readonly spa: IPLike;
  readonly tpa: IPLike;
  /** Default: broadcast for requests. */
  readonly ethDst?: MacLike;
  /** Default: zero for requests. */
  readonly tha?: MacLike;
}

/** A broadcast ARP request "who has tpa? tell spa". */
export function arpRequest(spec: ArpSpec): Packet {
  return SimPacket.of({
    'eth.src': mac(spec.sha),
    'eth.dst': spec.ethDst === undefined ? MAC_BROADCAST : mac(spec.ethDst),
    'eth.type': ETH_TYPE_ARP,
    'arp.op': ARP_OP_REQUEST,
    'arp.sha': mac(spec.sha),
    'arp.spa': ip4(spec.spa),
    'arp.tha': spec.tha === undefined ? 0 : mac(spec.tha),
    'arp.tpa': ip4(spec.tpa),
  });
}

export function arpReply(spec: ArpSpec & { readonly tha: MacLike }): Packet {
  return SimPacket.of({
    'eth.src': mac(spec.sha),
    'eth.dst': spec.ethDst === undefined ? mac(spec.tha) : mac(spec.ethDst),
    'eth.type': ETH_TYPE_ARP,
    'arp.op': ARP_OP_REPLY,
    'arp.sha': mac(spec.sha),
    'arp.spa': ip4(spec.spa),
    'arp.tha': mac(spec.tha),
    'arp.tpa': ip4(spec.tpa),
  });
}

/** The solicited-node multicast address ff02::1:ffXX:XXXX of an IPv6 address. */
export function solicitedNode(ip: bigint): bigint {
  return 0xff020000000000000000000000000000n | 0x1ff000000n | (ip & 0xffffffn);
}

/** The multicast MAC 33:33:xx:xx:xx:xx for an IPv6 multicast address. */
export function ipv6McastMac(ip: bigint): number {
  return 0x333300000000 + Number(ip & 0xffffffffn);
}

export interface NsSpec {
  readonly ethSrc: MacLike;
  readonly src: IPLike;
  readonly target: IPLike;
}

/** A neighbor solicitation to the target's solicited-node address, with SLL. */
export function ndNs(spec: NsSpec): Packet {
  const target = ip6(spec.target);
  const dst = solicitedNode(target);
  return SimPacket.of({
    ...ipHeaders({ ethSrc: spec.ethSrc, ethDst: ipv6McastMac(dst), src: ip6(spec.src), dst, ttl: 255 }, IPPROTO_ICMPV6),
    'icmp6.type': ND_NS,
    'icmp6.code': 0,
    'nd.target': target,
    'nd.sll': mac(spec.ethSrc),
    'nd.tll': 0,
  });
}

export interface NaSpec {
  readonly ethSrc: MacLike;
  readonly ethDst: MacLike;
  readonly src: IPLike;
  readonly dst: IPLike;
  readonly target: IPLike;
}

export function ndNa(spec: NaSpec): Packet {
  return SimPacket.of({
    ...ipHeaders(
      { ethSrc: spec.ethSrc, ethDst: spec.ethDst, src: ip6(spec.src), dst: ip6(spec.dst), ttl: 255 },
      IPPROTO_ICMPV6,
    ),
    'icmp6.type': ND_NA,
    'icmp6.code': 0,
    'nd.target': ip6(spec.target),
    'nd.sll': 0,
    'nd.tll': mac(spec.ethSrc),
  });
}

/** The tuple an ICMP error quotes for the packet it is about. */
export function innerOf(p: Packet): InnerTuple {
  const proto = p['ip.proto'] ?? 0;
  const icmp = proto === IPPROTO_ICMP || proto === IPPROTO_ICMPV6;
  return {
    family: isIPv4(p) ? 4 : 6,
    proto,
    src: ipSrc(p) ?? 0,
    dst: ipDst(p) ?? 0,
    sport: icmp ? (p['icmp.id'] ?? 0) : (srcPort(p) ?? 0),
    dport: icmp ? (p['icmp4.type'] ?? p['icmp6.type'] ?? 0) : (dstPort(p) ?? 0),
  };
}

export interface IcmpErrorSpec {
  readonly type: number;
  readonly code: number;
  /** Source address of the error (default: the offending packet's destination). */
  readonly src?: number | bigint;
  readonly ttl?: number;
}

/** An ICMPv4/ICMPv6 error about `p`, sent back to its source (Ethernet addresses swapped). */
export function icmpErrorFor(p: Packet, spec: IcmpErrorSpec): Packet {
  const v4 = isIPv4(p);
  const base = {
    'eth.src': p['eth.dst'],
    'eth.dst': p['eth.src'],
    'ip.ttl': spec.ttl ?? 255,
    'ip.dscp': 0,
    'ip.ecn': 0,
    'ip.frag': 0,
    inner: innerOf(p),
  };
  if (v4) {
    return {
      ...base,
      'eth.type': ETH_TYPE_IP,
      'ip.proto': IPPROTO_ICMP,
      'ip4.src': (spec.src as number | undefined) ?? p['ip4.dst'] ?? 0,
      'ip4.dst': p['ip4.src'] ?? 0,
      'icmp4.type': spec.type,
      'icmp4.code': spec.code,
    };
  }
  return {
    ...base,
    'eth.type': ETH_TYPE_IPV6,
    'ip.proto': IPPROTO_ICMPV6,
    'ip6.src': (spec.src as bigint | undefined) ?? p['ip6.dst'] ?? 0n,
    'ip6.dst': p['ip6.src'] ?? 0n,
    'ip6.label': 0,
    'icmp6.type': spec.type,
    'icmp6.code': spec.code,
  };
}

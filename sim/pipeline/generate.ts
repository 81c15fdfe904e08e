/**
 * Packets the pipelines generate (OVN actions `arp {}`, `nd_na {}`,
 * `nd_ns {}`, `icmp4 {}`, `icmp6 {}`, `tcp_reset {}`, `reject {}`), built from
 * the packet that triggered them the way ovn-controller's pinctrl builds them.
 */
import { MAC_BROADCAST } from '../../model/addr/index.ts';
import { ipv6McastMac, solicitedNode } from '../packet/build.ts';
import {
  ARP_OP_REPLY,
  ARP_OP_REQUEST,
  ETH_TYPE_ARP,
  ETH_TYPE_IP,
  ETH_TYPE_IPV6,
  ICMP4_DST_UNREACH,
  ICMP6_DST_UNREACH,
  IPPROTO_ICMP,
  IPPROTO_ICMPV6,
  IPPROTO_SCTP,
  IPPROTO_TCP,
  ND_NA,
  ND_NS,
  TCP_ACK,
  TCP_RST,
  type InnerTuple,
} from '../packet/fields.ts';
import { dstPort, ipDst, ipSrc, isIPv4, l4ProtoOf, srcPort, type Packet } from '../packet/packet.ts';

/** `arp.op = 2` answer to an ARP request, from `mac`/`ip`. */
export function arpReplyTo(req: Packet, mac: number, ip: number): Packet {
  return {
    'eth.src': mac,
    'eth.dst': req['eth.src'],
    'eth.type': ETH_TYPE_ARP,
    'arp.op': ARP_OP_REPLY,
    'arp.sha': mac,
    'arp.spa': ip,
    'arp.tha': req['arp.sha'] ?? req['eth.src'],
    'arp.tpa': req['arp.spa'] ?? 0,
  };
}

/** A neighbour advertisement answering an NS for `target`. */
export function ndNaTo(ns: Packet, mac: number, target: bigint): Packet {
  return {
    'eth.src': mac,
    'eth.dst': ns['eth.src'],
    'eth.type': ETH_TYPE_IPV6,
    'ip.proto': IPPROTO_ICMPV6,
    'ip.ttl': 255,
    'ip.dscp': 0,
    'ip.ecn': 0,
    'ip.frag': 0,
    'ip6.src': target,
    'ip6.dst': ns['ip6.src'] ?? 0n,
    'ip6.label': 0,
    'icmp6.type': ND_NA,
    'icmp6.code': 0,
    'nd.target': target,
    'nd.sll': 0,
    'nd.tll': mac,
  };
}

/** The router's `arp {}` request for `target`, sourced from `mac`/`spa`. */
export function arpRequestFor(mac: number, spa: number, target: number): Packet {
  return {
    'eth.src': mac,
    'eth.dst': MAC_BROADCAST,
    'eth.type': ETH_TYPE_ARP,
    'arp.op': ARP_OP_REQUEST,
    'arp.sha': mac,
    'arp.spa': spa,
    'arp.tha': 0,
    'arp.tpa': target,
  };
}

/** The router's `nd_ns {}` for `target`, to its solicited-node group. */
export function ndNsFor(mac: number, src: bigint, target: bigint): Packet {
  const dst = solicitedNode(target);
  return {
    'eth.src': mac,
    'eth.dst': ipv6McastMac(dst),
    'eth.type': ETH_TYPE_IPV6,
    'ip.proto': IPPROTO_ICMPV6,
    'ip.ttl': 255,
    'ip.dscp': 0,
    'ip.ecn': 0,
    'ip.frag': 0,
    'ip6.src': src,
    'ip6.dst': dst,
    'ip6.label': 0,
    'icmp6.type': ND_NS,
    'icmp6.code': 0,
    'nd.target': target,
    'nd.sll': mac,
    'nd.tll': 0,
  };
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

/** `p` sent back: Ethernet and IP addresses swapped, TTL 255. */
function reversed(p: Packet): Record<string, unknown> {
  const out: Record<string, unknown> = { ...p, 'eth.src': p['eth.dst'], 'eth.dst': p['eth.src'], 'ip.ttl': 255 };
  if (isIPv4(p)) {
    out['ip4.src'] = p['ip4.dst'];
    out['ip4.dst'] = p['ip4.src'];
  } else {
    out['ip6.src'] = p['ip6.dst'];
    out['ip6.dst'] = p['ip6.src'];
  }
  return out;
}

/** A TCP RST answering `p` (addresses and ports swapped). */
export function tcpResetFor(p: Packet): Packet {
  const out = reversed(p);
  out['tcp.src'] = p['tcp.dst'];
  out['tcp.dst'] = p['tcp.src'];
  out['tcp.flags'] = TCP_RST | TCP_ACK;
  return out as unknown as Packet;
}

/** An SCTP ABORT answering `p` (chunks are not modelled: ports swapped). */
export function sctpAbortFor(p: Packet): Packet {
  const out = reversed(p);
  out['sctp.src'] = p['sctp.dst'];
  out['sctp.dst'] = p['sctp.src'];
  return out as unknown as Packet;
}

/**
 * What `reject {}` sends back: a TCP RST for TCP, an SCTP ABORT for SCTP,
 * else an ICMP port unreachable (v4 type 3 code 3, v6 type 1 code 4).
 */
export function rejectReplyFor(p: Packet): { packet: Packet; kind: 'tcp-reset' | 'sctp-abort' | 'icmp-error' } {
  const l4 = l4ProtoOf(p);
  if (p['ip.proto'] === IPPROTO_TCP && l4 === 'tcp') return { packet: tcpResetFor(p), kind: 'tcp-reset' };
  if (p['ip.proto'] === IPPROTO_SCTP && l4 === 'sctp') return { packet: sctpAbortFor(p), kind: 'sctp-abort' };
  const unreach = isIPv4(p) ? { type: ICMP4_DST_UNREACH, code: 3 } : { type: ICMP6_DST_UNREACH, code: 4 };
  return { packet: icmpErrorFor(p, unreach), kind: 'icmp-error' };
}

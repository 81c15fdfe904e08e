/**
 * Packets the pipelines generate (OVN actions `arp {}`, `nd_na {}`,
 * `nd_ns {}`, `icmp4 {}`, `icmp6 {}`, `tcp_reset {}`, `reject {}`), built from
 * the packet that triggered them the way ovn-controller's pinctrl builds them.
 */
import { MAC_BROADCAST } from '../../model/addr/index.ts';
import { linkLocalOf } from '../compile/addresses.ts';
import { icmpErrorFor, ipv6McastMac, solicitedNode } from '../../model/packet/build.ts';

export { icmpErrorFor, innerOf, type IcmpErrorSpec } from '../../model/packet/build.ts';
import {
  ARP_OP_REPLY,
  ARP_OP_REQUEST,
  ETH_TYPE_ARP,
  ETH_TYPE_IPV6,
  ICMP4_DST_UNREACH,
  ICMP6_DST_UNREACH,
  IPPROTO_ICMPV6,
  IPPROTO_SCTP,
  IPPROTO_TCP,
  ND_NA,
  ND_NS,
  TCP_ACK,
  TCP_RST,
} from '../../model/packet/fields.ts';
import { isIPv4, l4ProtoOf, type Packet } from '../../model/packet/packet.ts';

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

export interface NdNsSpec {
  /** The router port's MAC: Ethernet source and SLL option. */
  readonly mac: number;
  /** The waiting packet's IPv6 destination: pinctrl solicits its solicited-node group. */
  readonly dst: bigint;
  /** The next hop (`nd.target = xxreg0`), default `dst`. */
  readonly target?: bigint;
}

/**
 * The router's `nd_ns {}` for an unknown next hop, as pinctrl_handle_nd_ns
 * builds it (OVS compose_nd_ns): from the link-local address of the router
 * port's MAC (in6_generate_lla), to the solicited-node group of the waiting
 * packet's destination, hop limit 255, traffic class and flow label 0, SLL
 * option = the MAC, target = that destination; then the flow's nested
 * `nd.target = xxreg0` makes the target the next hop (lr_in_arp_request
 * priority 100). A static route's /128 next hop has its own priority-200
 * flow that also sets `eth.dst`/`ip6.dst` to the next hop's group: pass
 * `dst: nexthop` for it.
 *
 * @example ndNsFor({ mac: 0x00000000ff02, dst: parseIPv6('fd02::99') }) // fe80::200:ff:fe00:ff02 > ff02::1:ff00:99, who has fd02::99
 */
export function ndNsFor(spec: NdNsSpec): Packet {
  const group = solicitedNode(spec.dst);
  return {
    'eth.src': spec.mac,
    'eth.dst': ipv6McastMac(group),
    'eth.type': ETH_TYPE_IPV6,
    'ip.proto': IPPROTO_ICMPV6,
    'ip.ttl': 255,
    'ip.dscp': 0,
    'ip.ecn': 0,
    'ip.frag': 0,
    'ip6.src': linkLocalOf(spec.mac),
    'ip6.dst': group,
    'ip6.label': 0,
    'icmp6.type': ND_NS,
    'icmp6.code': 0,
    'nd.target': spec.target ?? spec.dst,
    'nd.sll': spec.mac,
    'nd.tll': 0,
  };
}

/**
 * TTL (hop limit) of the TCP RST and SCTP ABORT pinctrl builds
 * (pinctrl_handle_tcp_reset / pinctrl_handle_sctp_abort: `IPPROTO_TCP, 63`).
 * ovn-trace seeds 255 instead (see sim/index.ts on ovn-trace's differences).
 */
export const TRANSPORT_REPLY_TTL = 63;

/**
 * `p`'s IP header sent back, composed afresh as pinctrl does
 * (pinctrl_compose_ipv4/6): addresses swapped, TTL 63, TOS, fragment bits
 * and flow label 0; only the L4 header is the caller's to add.
 */
function reversedIp(p: Packet, proto: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    'eth.src': p['eth.dst'],
    'eth.dst': p['eth.src'],
    'eth.type': p['eth.type'],
    'ip.proto': proto,
    'ip.ttl': TRANSPORT_REPLY_TTL,
    'ip.dscp': 0,
    'ip.ecn': 0,
    'ip.frag': 0,
  };
  if (isIPv4(p)) {
    out['ip4.src'] = p['ip4.dst'];
    out['ip4.dst'] = p['ip4.src'];
  } else {
    out['ip6.src'] = p['ip6.dst'];
    out['ip6.dst'] = p['ip6.src'];
    out['ip6.label'] = 0;
  }
  return out;
}

/** A TCP RST|ACK answering `p` (addresses and ports swapped, TTL 63). */
export function tcpResetFor(p: Packet): Packet {
  const out = reversedIp(p, IPPROTO_TCP);
  out['tcp.src'] = p['tcp.dst'];
  out['tcp.dst'] = p['tcp.src'];
  out['tcp.flags'] = TCP_RST | TCP_ACK;
  return out as unknown as Packet;
}

/** An SCTP ABORT answering `p` (chunks are not modelled: ports swapped, TTL 63). */
export function sctpAbortFor(p: Packet): Packet {
  const out = reversedIp(p, IPPROTO_SCTP);
  out['sctp.src'] = p['sctp.dst'];
  out['sctp.dst'] = p['sctp.src'];
  return out as unknown as Packet;
}

/**
 * What `reject {}` sends back, as pinctrl's ACTION_OPCODE_REJECT does: a TCP
 * RST for TCP, an SCTP ABORT for SCTP, else ICMP destination unreachable
 * (TTL 255) whose code is "port unreachable" for UDP only (v4 type 3 code 3,
 * v6 type 1 code 4) and 1 for anything else (v4 host unreachable, v6
 * administratively prohibited): pinctrl_handle_icmp starts from code 1 and
 * sets the port code when `set_icmp_code && ip_proto == IPPROTO_UDP`.
 */
export function rejectReplyFor(p: Packet): { packet: Packet; kind: 'tcp-reset' | 'sctp-abort' | 'icmp-error' } {
  const l4 = l4ProtoOf(p);
  if (l4 === 'tcp') return { packet: tcpResetFor(p), kind: 'tcp-reset' };
  if (l4 === 'sctp') return { packet: sctpAbortFor(p), kind: 'sctp-abort' };
  const udp = l4 === 'udp';
  const unreach = isIPv4(p)
    ? { type: ICMP4_DST_UNREACH, code: udp ? 3 : 1 }
    : { type: ICMP6_DST_UNREACH, code: udp ? 4 : 1 };
  return { packet: icmpErrorFor(p, unreach), kind: 'icmp-error' };
}

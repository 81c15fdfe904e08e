/**
 * Packets the pipelines generate (`arp {}`, `nd_na {}`, `nd_ns {}`,
 * `icmp4 {}`, `icmp6 {}`, `tcp_reset {}`, `sctp_abort {}`, `reject {}`), as
 * the packet their nested actions start from.
 *
 * Two seeds for each: `ovn-trace` is what utilities/ovn-trace.c puts in its
 * flow (execute_arp, execute_nd_na, execute_icmp4, ...), `pinctrl` is what
 * ovn-controller really builds (controller/pinctrl.c of 23.03). Where they
 * differ is a documented quirk (see normalize.ts, rule `generated-packets`).
 */
import { ipv6McastMac, solicitedNode } from '../../../model/packet/build.ts';
import {
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
  IPPROTO_UDP,
  ND_NA,
  ND_NS,
  TCP_ACK,
  TCP_RST,
} from '../../../model/packet/fields.ts';
import { isIP, isIPv4, type Packet } from '../../../model/packet/packet.ts';

export type GeneratedKind = 'arp' | 'nd_na' | 'nd_ns' | 'icmp4' | 'icmp6' | 'tcp_reset' | 'sctp_abort';

export type SeedMode = 'ovn-trace' | 'pinctrl';

export interface SeedSpec {
  readonly kind: GeneratedKind;
  /** `reject {}`: sent back where the packet came from (addresses swapped). */
  readonly loopback: boolean;
  readonly mode: SeedMode;
}

type Rec = Record<string, unknown>;

/** Keeps Ethernet (and VLAN) fields only. */
function l2(p: Packet): Rec {
  const out: Rec = { 'eth.src': p['eth.src'], 'eth.dst': p['eth.dst'], 'eth.type': p['eth.type'] };
  if (p['vlan.tci'] !== undefined) out['vlan.tci'] = p['vlan.tci'];
  return out;
}

/** IP header of `p` (optionally reversed), without L4. */
function l3(p: Packet, reverse: boolean, proto: number, ttl: number, clean: boolean): Rec {
  const out = l2(p);
  if (reverse) [out['eth.src'], out['eth.dst']] = [p['eth.dst'], p['eth.src']];
  out['ip.proto'] = proto;
  out['ip.ttl'] = ttl;
  for (const f of ['ip.dscp', 'ip.ecn', 'ip.frag'] as const) out[f] = clean ? 0 : (p[f] ?? 0);
  const v4 = isIPv4(p);
  const [s, d] = v4 ? (['ip4.src', 'ip4.dst'] as const) : (['ip6.src', 'ip6.dst'] as const);
  // A flow holds every field: one the packet lacks (IPv6 addresses of an ARP frame) is zero, `::`.
  const zero = v4 ? 0 : 0n;
  out[s] = (reverse ? p[d] : p[s]) ?? zero;
  out[d] = (reverse ? p[s] : p[d]) ?? zero;
  if (!v4) out['ip6.label'] = clean ? 0 : (p['ip6.label'] ?? 0);
  return out;
}

/** The tuple an ICMP error quotes (see sim/pipeline/generate.ts innerOf). */
function inner(p: Packet): Rec['inner'] {
  const proto = p['ip.proto'] ?? 0;
  const icmp = proto === IPPROTO_ICMP || proto === IPPROTO_ICMPV6;
  const v4 = isIPv4(p);
  return {
    family: v4 ? 4 : 6,
    proto,
    src: (v4 ? p['ip4.src'] : p['ip6.src']) ?? 0,
    dst: (v4 ? p['ip4.dst'] : p['ip6.dst']) ?? 0,
    sport: icmp ? (p['icmp.id'] ?? 0) : (p['tcp.src'] ?? p['udp.src'] ?? p['sctp.src'] ?? 0),
    dport: icmp ? (p['icmp4.type'] ?? p['icmp6.type'] ?? 0) : (p['tcp.dst'] ?? p['udp.dst'] ?? p['sctp.dst'] ?? 0),
  };
}

function arp(p: Packet): Rec {
  return {
    ...l2(p),
    'eth.type': ETH_TYPE_ARP,
    'arp.op': ARP_OP_REQUEST,
    'arp.sha': p['eth.src'],
    'arp.spa': p['ip4.src'] ?? 0,
    'arp.tha': 0,
    'arp.tpa': p['ip4.dst'] ?? 0,
  };
}

/** The EUI-64 link-local address of a MAC (in6_generate_lla). */
export function linkLocalOf(mac: number): bigint {
  const m = BigInt(mac);
  const hi = ((m >> 24n) ^ 0x020000n) & 0xffffffn;
  const eui = (hi << 40n) | (0xfffen << 24n) | (m & 0xffffffn);
  return (0xfe80n << 112n) | eui;
}

function ndNa(p: Packet, mode: SeedMode): Rec {
  const out = { ...l3(p, false, IPPROTO_ICMPV6, mode === 'pinctrl' ? 255 : (p['ip.ttl'] ?? 0), mode === 'pinctrl') };
  out['eth.src'] = p['eth.dst'];
  out['eth.dst'] = p['eth.src'];
  out['ip6.src'] = p['nd.target'] ?? 0n;
  out['ip6.dst'] = p['ip6.src'] ?? 0n;
  return {
    ...out,
    'icmp6.type': ND_NA,
    'icmp6.code': 0,
    'nd.target': p['nd.target'] ?? 0n,
    'nd.sll': 0,
    'nd.tll': p['eth.dst'],
  };
}

function ndNs(p: Packet, mode: SeedMode): Rec {
  const dst = p['ip6.dst'] ?? 0n;
  const sn = solicitedNode(dst);
  const out = { ...l3(p, false, IPPROTO_ICMPV6, mode === 'pinctrl' ? 255 : (p['ip.ttl'] ?? 0), mode === 'pinctrl') };
  out['eth.dst'] = ipv6McastMac(sn);
  if (mode === 'pinctrl') {
    // compose_nd_ns: from the link-local address, to the solicited-node group, SLL option set.
    out['ip6.src'] = linkLocalOf(p['eth.src']);
    out['ip6.dst'] = sn;
    return { ...out, 'icmp6.type': ND_NS, 'icmp6.code': 0, 'nd.target': dst, 'nd.sll': p['eth.src'], 'nd.tll': 0 };
  }
  return {
    ...out,
    'icmp6.type': ND_NS,
    'icmp6.code': p['icmp6.code'] ?? 0,
    'nd.target': p['nd.target'] ?? 0n,
    'nd.sll': 0,
    'nd.tll': p['eth.dst'],
  };
}

function icmpError(p: Packet, spec: SeedSpec): Rec {
  const v4 = isIPv4(p);
  const out = l3(p, spec.loopback, v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6, 255, spec.mode === 'pinctrl');
  // ovn-trace always says code 1; pinctrl's reject says "port unreachable" for UDP only.
  const udpReject = spec.mode === 'pinctrl' && spec.loopback && p['ip.proto'] === IPPROTO_UDP;
  if (v4)
    return {
      ...out,
      'eth.type': ETH_TYPE_IP,
      'icmp4.type': ICMP4_DST_UNREACH,
      'icmp4.code': udpReject ? 3 : 1,
      inner: inner(p),
    };
  return {
    ...out,
    'eth.type': ETH_TYPE_IPV6,
    'icmp6.type': ICMP6_DST_UNREACH,
    'icmp6.code': udpReject ? 4 : 1,
    inner: inner(p),
  };
}

function transportReply(p: Packet, spec: SeedSpec, proto: number): Rec {
  const real = spec.mode === 'pinctrl';
  // pinctrl sends TCP RST / SCTP ABORT with TTL 63, ports swapped, RST+ACK; ovn-trace keeps the ports, TTL 255, RST
  // only.
  const out = l3(p, spec.loopback, proto, real ? 63 : 255, real);
  const l4 = proto === IPPROTO_TCP ? 'tcp' : 'sctp';
  const sport = p[`${l4}.src`] ?? 0;
  const dport = p[`${l4}.dst`] ?? 0;
  out[`${l4}.src`] = real ? dport : sport;
  out[`${l4}.dst`] = real ? sport : dport;
  if (proto === IPPROTO_TCP) out['tcp.flags'] = real ? TCP_RST | TCP_ACK : TCP_RST;
  return out;
}

/**
 * Why pinctrl sends nothing for a generating action, or undefined when it
 * sends a packet. pinctrl_handle_icmp (`icmp4 {}`, `icmp6 {}`, and `reject
 * {}` of anything but TCP and SCTP) returns on a frame that is not IP ("ICMP
 * action on non-IP packet": a reject ACL matching ARP), where ovn-trace
 * goes on with an ICMPv6 seeded from the ARP flow (from `::` to `::`).
 * Checked with ovn-controller on a dummy datapath: the ARP is dropped and
 * nothing comes back.
 *
 * @example pinctrlSendsNothing(arpRequest({...}), 'icmp6') // 'pinctrl_handle_icmp sends nothing for a non-IP frame (eth.type 0x806)'
 */
export function pinctrlSendsNothing(p: Packet, kind: GeneratedKind): string | undefined {
  if ((kind === 'icmp4' || kind === 'icmp6') && !isIP(p))
    return `pinctrl_handle_icmp sends nothing for a non-IP frame (eth.type 0x${p['eth.type'].toString(16)})`;
  return undefined;
}

/**
 * The packet a generating action's nested actions start from.
 *
 * @example seedGenerated(udpProbe, { kind: 'icmp4', loopback: true, mode: 'pinctrl' }) // ICMP port unreachable back to the sender
 */
export function seedGenerated(p: Packet, spec: SeedSpec): Packet {
  const out = ((): Rec => {
    switch (spec.kind) {
      case 'arp':
        return arp(p);
      case 'nd_na':
        return ndNa(p, spec.mode);
      case 'nd_ns':
        return ndNs(p, spec.mode);
      case 'icmp4':
      case 'icmp6':
        return icmpError(p, spec);
      case 'tcp_reset':
        return transportReply(p, spec, IPPROTO_TCP);
      case 'sctp_abort':
        return transportReply(p, spec, IPPROTO_SCTP);
    }
  })();
  if (out['eth.type'] === undefined) out['eth.type'] = isIPv4(p) ? ETH_TYPE_IP : ETH_TYPE_IPV6;
  return out as unknown as Packet;
}

/**
 * A drawn {@link PacketSpec} → the packet and the port it enters by, aimed
 * at something the topology has: a pod (same or another switch), a router
 * address, a VIP (on its port and protocol), a NAT external IP, a host
 * outside, an address nobody owns, the internet. Sources are pods (their
 * own MAC/IP, or spoofed to exercise port security) or the outside (the
 * localnet port or the host of a gateway's external network). Ethernet
 * destinations are what a host would use: the owner's MAC on the same
 * segment, else the first-hop router's MAC; ARP and ND are broadcast.
 */
import { arpRequest, icmpEcho, ndNs, sctpPacket, tcpPacket, udpPacket } from '../../model/packet/build.ts';
import type { Packet } from '../../model/packet/packet.ts';
import { containsIP, parseCIDR, parseIP } from '../../model/addr/index.ts';
import { type Endpoint, type Inventory, STRANGER_MAC, type Target } from './layout.ts';
import { L4_PORTS } from './match-spec.ts';
import type { PacketSpec } from './spec.ts';

const KINDS: readonly Target['kind'][] = ['pod', 'router-ip', 'vip', 'nat-ext', 'outside-host', 'unknown', 'internet'];
const TTLS = [64, 1, 2] as const;
const SPOOF_IP = { 4: '10.250.0.9', 6: 'fd00:ff::9' } as const;

const familyOf = (ip: string): 4 | 6 => (ip.includes(':') ? 6 : 4);
const at = <T>(list: readonly T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);

function sourceOf(inv: Inventory, spec: PacketSpec): Endpoint {
  const list = spec.outside && inv.outside.length > 0 ? inv.outside : inv.pods.length > 0 ? inv.pods : inv.outside;
  const src = at(list, spec.src);
  if (src === undefined) throw new Error('difftest: a topology without pods or external networks has no packet source');
  return src;
}

/**
 * A destination of the family; the source's own address only when nothing else is left (hairpin is reached through
 * VIPs).
 */
function targetOf(inv: Inventory, spec: PacketSpec, family: 4 | 6, src: Endpoint): Target {
  const others = inv.targets.filter((t) => familyOf(t.ip) === family && t.ip !== src.ip4 && t.ip !== src.ip6);
  const ofFamily = others.length > 0 ? others : inv.targets.filter((t) => familyOf(t.ip) === family);
  const kind = KINDS[spec.dstKind % KINDS.length];
  const wanted = ofFamily.filter((t) => t.kind === kind);
  const pods = ofFamily.filter((t) => t.kind === 'pod');
  const t = at(wanted, spec.dst) ?? at(pods, spec.dst) ?? at(ofFamily, spec.dst);
  if (t === undefined) throw new Error(`difftest: no IPv${family} destination in the inventory`);
  return t;
}

function inSubnets(src: Endpoint, ip: string): boolean {
  const addr = parseIP(ip);
  return src.subnets.some((s) => {
    const c = parseCIDR(s);
    return c.family === addr.family && containsIP(c, addr);
  });
}

/** The MAC a host on `src`'s segment would send to for `t`. */
function ethDstFor(src: Endpoint, t: Target): string {
  const owner = t.macOn?.[src.switch];
  if (owner !== undefined) return owner;
  if (inSubnets(src, t.ip)) return STRANGER_MAC;
  return src.gatewayMac ?? STRANGER_MAC;
}

export interface ResolvedPacket {
  readonly inport: string;
  /** The logical switch the packet enters. */
  readonly datapath: string;
  readonly packet: Packet;
}

/**
 * @example resolvePacket(inventory, { src: 0, outside: false, dstKind: 0, dst: 1, proto: 0, ... })
 * // { inport: 'pod0.ls0', datapath: 'ls0', packet: <TCP SYN 10.16.0.10 → 10.16.0.11:80> }
 */
export function resolvePacket(inv: Inventory, spec: PacketSpec): ResolvedPacket {
  const src = sourceOf(inv, spec);
  const family: 4 | 6 = spec.v6 && src.ip6 !== undefined && inv.targets.some((t) => familyOf(t.ip) === 6) ? 6 : 4;
  const t = targetOf(inv, spec, family, src);
  const ownIp = (family === 4 ? src.ip4 : src.ip6) ?? SPOOF_IP[family];
  const ethSrc = spec.spoof % 3 === 1 ? STRANGER_MAC : src.mac;
  const ipSrc = spec.spoof % 3 === 2 ? SPOOF_IP[family] : ownIp;
  const ttl = TTLS[spec.ttl % 3]!;
  const ip = { ethSrc, ethDst: ethDstFor(src, t), src: ipSrc, dst: t.ip, ttl };
  const sport = 1024 + (spec.sport % 60000);
  const proto = spec.proto % 5;
  const l4 = t.proto ?? (['tcp', 'udp', 'sctp'] as const)[proto];
  const dport = t.port ?? L4_PORTS[spec.dport % L4_PORTS.length]!;
  let packet: Packet;
  if (proto === 4 && family === 4) packet = arpRequest({ sha: ethSrc, spa: ipSrc, tpa: t.ip });
  // An NS for a router port address makes ovn-trace 23.03 abort (normalize.ts nd-na-router-abort): ping it instead.
  else if (proto === 4 && !inv.routerIp6.has(t.ip)) packet = ndNs({ ethSrc, src: ipSrc, target: t.ip });
  else if (proto >= 3) packet = icmpEcho(ip);
  else {
    const l4spec = { ...ip, sport, dport };
    packet = l4 === 'udp' ? udpPacket(l4spec) : l4 === 'sctp' ? sctpPacket(l4spec) : tcpPacket(l4spec);
  }
  return { inport: src.port, datapath: src.switch, packet };
}

/**
 * Port security as ovn-controller 23.03 implements check_in_port_sec() and
 * check_out_port_sec() (controller/lflow.c, build_in_port_sec_* and
 * build_out_port_sec_*): per "MAC [IP...]" entry, the source MAC must match;
 * IPv4/IPv6 sources must be listed (an entry whose host bits are zero allows
 * its whole subnet); ARP must carry the port's MAC and a listed IPv4; IPv6
 * may also use the MAC's link-local address; neighbour advertisements must
 * advertise the port's own MAC and addresses. An entry without IPs allows any
 * IP traffic from its MAC.
 *
 * ovn-trace's emulation is simpler (exact addresses only, first entry with a
 * matching MAC decides); this follows the datapath.
 */
import {
  ETH_TYPE_ARP,
  ETH_TYPE_IP,
  ETH_TYPE_IPV6,
  IPPROTO_ICMPV6,
  IPPROTO_UDP,
  ND_NA,
  ND_NS,
} from '../../model/packet/fields.ts';
import { isEthMcast, type Packet } from '../../model/packet/packet.ts';
import { inPrefix, linkLocalOf, type PortSecurityEntry, type PsIP } from '../compile/addresses.ts';

function ipListed<T extends number | bigint>(list: readonly PsIP<T>[], ip: T | undefined): boolean {
  if (ip === undefined) return false;
  for (const e of list) {
    if (e.subnet ? inPrefix(e.ip, e.prefix, ip) : e.ip === ip) return true;
  }
  return false;
}

function arpAllowed(e: PortSecurityEntry, p: Packet): boolean {
  if (e.ip4.length === 0 && e.ip6.length > 0) return false;
  if (p['arp.sha'] !== e.mac) return false;
  return e.ip4.length === 0 || ipListed(e.ip4, p['arp.spa']);
}

function ip4Allowed(e: PortSecurityEntry, p: Packet): boolean {
  if (e.ip4.length === 0) return e.ip6.length === 0;
  if (ipListed(e.ip4, p['ip4.src'])) return true;
  // DHCP discover/request from an address-less client.
  return (
    p['ip.proto'] === IPPROTO_UDP &&
    p['ip4.src'] === 0 &&
    p['ip4.dst'] === 0xffffffff &&
    p['udp.src'] === 68 &&
    p['udp.dst'] === 67
  );
}

/** The neighbour-discovery checks (OFTABLE_CHK_IN_PORT_SEC_ND). */
function ndAllowed(e: PortSecurityEntry, p: Packet): boolean {
  if (p['ip.proto'] !== IPPROTO_ICMPV6 || p['icmp6.code'] !== 0 || p['ip.ttl'] !== 255) return true;
  const type = p['icmp6.type'];
  if (type === ND_NS) return true; // northd's "hack for now": every NS passes
  if (type !== ND_NA) return true;
  const tll = p['nd.tll'] ?? 0;
  if (tll !== 0 && tll !== e.mac) return false;
  if (e.ip6.length === 0) return true;
  return ipListed(e.ip6, p['nd.target']) || p['nd.target'] === linkLocalOf(e.mac);
}

function ip6Allowed(e: PortSecurityEntry, p: Packet): boolean {
  if (e.ip6.length === 0) return e.ip4.length === 0 && ndAllowed(e, p);
  const src = p['ip6.src'];
  if (ipListed(e.ip6, src) || src === linkLocalOf(e.mac)) return ndAllowed(e, p);
  if (src === 0n && p['ip.proto'] === IPPROTO_ICMPV6 && p['icmp6.code'] === 0) {
    const inFf02 = (p['ip6.dst'] ?? 0n) >> 112n === 0xff02n;
    const type = p['icmp6.type'];
    if (inFf02 && (type === 131 || type === 143)) return true; // MLD reports during DAD
    if (inFf02 && type === ND_NS) return true;
  }
  return false;
}

function entryAllowsIn(e: PortSecurityEntry, p: Packet): boolean {
  if (p['eth.src'] !== e.mac) return false;
  switch (p['eth.type']) {
    case ETH_TYPE_ARP:
      return arpAllowed(e, p);
    case ETH_TYPE_IP:
      return ip4Allowed(e, p);
    case ETH_TYPE_IPV6:
      return ip6Allowed(e, p);
    default:
      return e.ip4.length === 0 && e.ip6.length === 0;
  }
}

/** check_in_port_sec(): may this packet enter from a port with these entries? */
export function inPortSecurityAllows(entries: readonly PortSecurityEntry[], p: Packet): boolean {
  if (entries.length === 0) return true;
  return entries.some((e) => entryAllowsIn(e, p));
}

function out4(e: PortSecurityEntry, dst: number): boolean {
  if (dst === 0xffffffff || dst >>> 28 === 0xe) return true;
  for (const a of e.ip4) {
    if (a.subnet ? inPrefix(a.ip, a.prefix, dst) : a.ip === dst) return true;
    // A "10.0.0.4/24" entry also admits its subnet broadcast.
    if (!a.subnet && a.prefix < 32) {
      const bcast = (a.ip | (0xffffffff >>> a.prefix)) >>> 0;
      if (dst === bcast) return true;
    }
  }
  return false;
}

function out6(e: PortSecurityEntry, dst: bigint): boolean {
  if (dst >> 120n === 0xffn || dst === linkLocalOf(e.mac)) return true;
  return ipListed(e.ip6, dst);
}

function entryAllowsOut(e: PortSecurityEntry, p: Packet): boolean {
  if (p['eth.dst'] !== e.mac) return false;
  if (e.ip4.length === 0 && e.ip6.length === 0) return true;
  if (p['eth.type'] === ETH_TYPE_IP) return e.ip4.length > 0 && out4(e, p['ip4.dst'] ?? 0);
  if (p['eth.type'] === ETH_TYPE_IPV6) return e.ip6.length > 0 && out6(e, p['ip6.dst'] ?? 0n);
  return true;
}

/** check_out_port_sec() (multicast frames always pass, ls_out_check_port_sec priority 100). */
export function outPortSecurityAllows(entries: readonly PortSecurityEntry[], p: Packet): boolean {
  if (entries.length === 0 || isEthMcast(p)) return true;
  return entries.some((e) => entryAllowsOut(e, p));
}

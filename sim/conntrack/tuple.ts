/**
 * Connection tuples: what conntrack keys a packet on. TCP, UDP and SCTP key on
 * addresses and ports; ICMP echo on addresses, the echo id and the message
 * type (a request's reply tuple carries the reply type, as Linux's
 * nf_conntrack_proto_icmp inverts it). Other IP protocols key on addresses
 * only.
 */
import { formatIPv4, formatIPv6 } from '../../model/addr/index.ts';
import {
  ICMP4_ECHO_REPLY,
  ICMP4_ECHO_REQUEST,
  ICMP6_ECHO_REPLY,
  ICMP6_ECHO_REQUEST,
  IPPROTO_ICMP,
  IPPROTO_ICMPV6,
  type InnerTuple,
} from '../../model/packet/fields.ts';
import { dstPort, ipDst, ipSrc, isIPv4, srcPort, type Packet } from '../../model/packet/packet.ts';

export interface CtTuple {
  readonly family: 4 | 6;
  readonly proto: number;
  readonly src: number | bigint;
  readonly dst: number | bigint;
  /** L4 source port, or the ICMP echo id. */
  readonly sport: number;
  /** L4 destination port, or the ICMP type. */
  readonly dport: number;
}

const ECHO_INVERSE: Readonly<Record<number, number>> = {
  [ICMP4_ECHO_REQUEST]: ICMP4_ECHO_REPLY,
  [ICMP4_ECHO_REPLY]: ICMP4_ECHO_REQUEST,
  [ICMP6_ECHO_REQUEST]: ICMP6_ECHO_REPLY,
  [ICMP6_ECHO_REPLY]: ICMP6_ECHO_REQUEST,
};

export const isIcmpProto = (proto: number): boolean => proto === IPPROTO_ICMP || proto === IPPROTO_ICMPV6;

/** The tuple of an IP packet (undefined for non-IP). */
export function tupleOf(p: Packet): CtTuple | undefined {
  const src = ipSrc(p);
  const dst = ipDst(p);
  if (src === undefined || dst === undefined) return undefined;
  const proto = p['ip.proto'] ?? 0;
  const family = isIPv4(p) ? 4 : 6;
  if (isIcmpProto(proto)) {
    return { family, proto, src, dst, sport: p['icmp.id'] ?? 0, dport: p['icmp4.type'] ?? p['icmp6.type'] ?? 0 };
  }
  return { family, proto, src, dst, sport: srcPort(p) ?? 0, dport: dstPort(p) ?? 0 };
}

export function tupleFromInner(t: InnerTuple): CtTuple {
  return { family: t.family, proto: t.proto, src: t.src, dst: t.dst, sport: t.sport, dport: t.dport };
}

/** The tuple a reply to `t` carries (addresses and ports swapped). */
export function invertTuple(t: CtTuple): CtTuple {
  if (isIcmpProto(t.proto)) {
    return {
      family: t.family,
      proto: t.proto,
      src: t.dst,
      dst: t.src,
      sport: t.sport,
      dport: ECHO_INVERSE[t.dport] ?? t.dport,
    };
  }
  return { family: t.family, proto: t.proto, src: t.dst, dst: t.src, sport: t.dport, dport: t.sport };
}

/*
 * Keys start with the family: the decimal text of IPv4 10.0.0.1 and of IPv6
 * ::a00:1 is the same, and conntrack keeps the families apart.
 */

/** tupleKey(tupleOf(p)) without building the tuple (the lookup fast path). */
export function packetKey(p: Packet): string | undefined {
  const v4 = p['ip4.src'] !== undefined;
  const src = v4 ? p['ip4.src'] : p['ip6.src'];
  const dst = v4 ? p['ip4.dst'] : p['ip6.dst'];
  if (src === undefined || dst === undefined) return undefined;
  const fam = v4 ? 4 : 6;
  const proto = p['ip.proto'] ?? 0;
  if (proto === IPPROTO_ICMP || proto === IPPROTO_ICMPV6) {
    return `${fam}|${proto}|${src}|${dst}|${p['icmp.id'] ?? 0}|${p['icmp4.type'] ?? p['icmp6.type'] ?? 0}`;
  }
  return `${fam}|${proto}|${src}|${dst}|${srcPort(p) ?? 0}|${dstPort(p) ?? 0}`;
}

export function tupleKey(t: CtTuple): string {
  return `${t.family}|${t.proto}|${t.src}|${t.dst}|${t.sport}|${t.dport}`;
}

export function formatTupleAddr(v: number | bigint): string {
  return typeof v === 'bigint' ? formatIPv6(v) : formatIPv4(v);
}

/** `tcp 10.0.0.1:1234 > 10.0.0.2:80`, for traces and errors. */
export function formatTuple(t: CtTuple): string {
  const name =
    t.proto === 6
      ? 'tcp'
      : t.proto === 17
        ? 'udp'
        : t.proto === 132
          ? 'sctp'
          : isIcmpProto(t.proto)
            ? 'icmp'
            : `proto ${t.proto}`;
  const src = formatTupleAddr(t.src);
  const dst = formatTupleAddr(t.dst);
  if (isIcmpProto(t.proto)) return `${name} ${src} > ${dst} id ${t.sport} type ${t.dport}`;
  return `${name} ${src}:${t.sport} > ${dst}:${t.dport}`;
}

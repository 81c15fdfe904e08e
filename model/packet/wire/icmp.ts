/**
 * ICMPv4 (RFC 792) and ICMPv6 (RFC 4443) with neighbour discovery (RFC 4861):
 * echo request/reply (id, sequence 0), errors quoting the offending packet's
 * IP header and first 8 bytes, NS with the source link-layer option and NA
 * with the target link-layer option.
 */
import {
  ICMP4_DST_UNREACH,
  ICMP4_TIME_EXCEEDED,
  ICMP6_DST_UNREACH,
  ICMP6_PACKET_TOO_BIG,
  ICMP6_TIME_EXCEEDED,
  IPPROTO_ICMP,
  IPPROTO_ICMPV6,
  ND_NA,
  ND_NS,
  type InnerTuple,
} from '../fields.ts';
import type { FieldPatch, Packet } from '../packet.ts';
import { type ByteReader, ByteWriter, internetChecksum } from './buffer.ts';

const ERRORS4 = new Set([ICMP4_DST_UNREACH, ICMP4_TIME_EXCEEDED, 4, 5, 12]);
const ERRORS6 = new Set([ICMP6_DST_UNREACH, ICMP6_PACKET_TOO_BIG, ICMP6_TIME_EXCEEDED, 4]);

function emitInner(w: ByteWriter, t: InnerTuple): void {
  if (t.family === 4) {
    w.u8(0x45).u8(0).u16(28).u32(0).u8(64).u8(t.proto).u16(0).u32(Number(t.src)).u32(Number(t.dst));
  } else {
    w.u32(0x60000000).u16(8).u8(t.proto).u8(64).u128(BigInt(t.src)).u128(BigInt(t.dst));
  }
  if (t.proto === IPPROTO_ICMP || t.proto === IPPROTO_ICMPV6) w.u8(t.dport).u8(0).u16(0).u16(t.sport).u16(0);
  else w.u16(t.sport).u16(t.dport).u32(0);
}

function parseInner(r: ByteReader, family: 4 | 6): InnerTuple {
  let proto: number;
  let src: number | bigint;
  let dst: number | bigint;
  if (family === 4) {
    r.need(20, 'quoted IPv4 header');
    const ihl = (r.u8() & 0xf) * 4;
    r.skip(8);
    proto = r.u8();
    r.skip(2);
    src = r.u32();
    dst = r.u32();
    r.skip(Math.max(0, ihl - 20));
  } else {
    r.need(40, 'quoted IPv6 header');
    r.skip(6);
    proto = r.u8();
    r.skip(1);
    src = r.u128();
    dst = r.u128();
  }
  r.need(8, 'quoted transport header');
  if (proto === IPPROTO_ICMP || proto === IPPROTO_ICMPV6) {
    const type = r.u8();
    r.skip(3);
    return { family, proto, src, dst, sport: r.u16(), dport: type };
  }
  return { family, proto, src, dst, sport: r.u16(), dport: r.u16() };
}

function emitBody(w: ByteWriter, p: Packet, v6: boolean, type: number): void {
  if (p.inner !== undefined && (v6 ? ERRORS6 : ERRORS4).has(type)) {
    w.u32(0);
    emitInner(w, p.inner);
  } else if (v6 && type === ND_NS) {
    w.u32(0).u128(p['nd.target'] ?? 0n);
    if (p['nd.sll']) w.u8(1).u8(1).u48(p['nd.sll']);
  } else if (v6 && type === ND_NA) {
    w.u32(0x60000000).u128(p['nd.target'] ?? 0n);
    if (p['nd.tll']) w.u8(2).u8(1).u48(p['nd.tll']);
  } else {
    w.u16(p['icmp.id'] ?? 0).u16(0);
  }
}

/** The ICMP message; `pseudo` is the IPv6 pseudo-header builder (ICMPv4 has none). */
export function emitIcmp(p: Packet, pseudo?: (proto: number, length: number) => Uint8Array): Uint8Array {
  const v6 = pseudo !== undefined;
  const type = (v6 ? p['icmp6.type'] : p['icmp4.type']) ?? 0;
  const w = new ByteWriter()
    .u8(type)
    .u8((v6 ? p['icmp6.code'] : p['icmp4.code']) ?? 0)
    .u16(0);
  emitBody(w, p, v6, type);
  const sum = v6 ? internetChecksum(pseudo(IPPROTO_ICMPV6, w.length), w.view()) : internetChecksum(w.view());
  w.patch16(2, sum);
  return w.done();
}

function parseNdOptions(r: ByteReader): { sll: number; tll: number } {
  let sll = 0;
  let tll = 0;
  while (r.remaining >= 8) {
    const kind = r.u8();
    const len = r.u8() * 8;
    if (len === 0) break;
    if ((kind === 1 || kind === 2) && len >= 8) {
      const mac = r.u48();
      if (kind === 1) sll = mac;
      else tll = mac;
      r.skip(len - 8);
    } else {
      r.skip(Math.min(len - 2, r.remaining));
    }
  }
  return { sll, tll };
}

export function parseIcmp(r: ByteReader, v6: boolean): FieldPatch {
  r.need(8, v6 ? 'ICMPv6 header' : 'ICMP header');
  const type = r.u8();
  const code = r.u8();
  r.skip(2);
  const head: FieldPatch = v6 ? { 'icmp6.type': type, 'icmp6.code': code } : { 'icmp4.type': type, 'icmp4.code': code };
  if ((v6 ? ERRORS6 : ERRORS4).has(type)) {
    r.skip(4);
    return { ...head, inner: parseInner(r, v6 ? 6 : 4) };
  }
  if (v6 && (type === ND_NS || type === ND_NA)) {
    r.skip(4);
    r.need(16, 'ND target');
    const target = r.u128();
    const { sll, tll } = parseNdOptions(r);
    return { ...head, 'nd.target': target, 'nd.sll': sll, 'nd.tll': tll };
  }
  return { ...head, 'icmp.id': r.u16() };
}

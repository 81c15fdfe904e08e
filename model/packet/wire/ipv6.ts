/**
 * IPv6 fixed headers (RFC 8200), without extension headers: parse and emit.
 */
import type { Packet } from '../packet.ts';
import { PacketParseError, type ByteReader, type ByteWriter } from './buffer.ts';
import type { ParsedL3 } from './ipv4.ts';

export function emitIPv6(w: ByteWriter, p: Packet, payload: Uint8Array): void {
  const tc = ((p['ip.dscp'] ?? 0) << 2) | (p['ip.ecn'] ?? 0);
  const label = p['ip6.label'] ?? 0;
  w.u32(((6 << 28) | (tc << 20) | label) >>> 0);
  w.u16(payload.length)
    .u8(p['ip.proto'] ?? 0)
    .u8(p['ip.ttl'] ?? 64);
  w.u128(p['ip6.src'] ?? 0n).u128(p['ip6.dst'] ?? 0n);
  w.bytes(payload);
}

const EXTENSION_HEADERS = new Set([0, 43, 44, 50, 51, 60, 135]);

export function parseIPv6(r: ByteReader): ParsedL3 {
  const start = r.offset;
  r.need(40, 'IPv6 header');
  const first = r.u32();
  if (first >>> 28 !== 6) throw new PacketParseError('malformed', start, 'IPv6 version is not 6');
  const tc = (first >>> 20) & 0xff;
  const length = r.u16();
  const proto = r.u8();
  if (EXTENSION_HEADERS.has(proto))
    throw new PacketParseError('unsupported', start + 6, `IPv6 extension header ${proto}`);
  const ttl = r.u8();
  const src = r.u128();
  const dst = r.u128();
  return {
    fields: {
      'ip.proto': proto,
      'ip.ttl': ttl,
      'ip.dscp': tc >> 2,
      'ip.ecn': tc & 3,
      'ip.frag': 0,
      'ip6.label': first & 0xfffff,
      'ip6.src': src,
      'ip6.dst': dst,
    },
    proto,
    end: Math.min(start + 40 + length, r.end),
  };
}

/** The IPv6 pseudo-header for L4 checksums. */
export function pseudoHeader6(p: Packet, proto: number, length: number): Uint8Array {
  const b = new Uint8Array(40);
  let v = p['ip6.src'] ?? 0n;
  for (let i = 15; i >= 0; i--, v >>= 8n) b[i] = Number(v & 0xffn);
  v = p['ip6.dst'] ?? 0n;
  for (let i = 31; i >= 16; i--, v >>= 8n) b[i] = Number(v & 0xffn);
  const dv = new DataView(b.buffer);
  dv.setUint32(32, length);
  dv.setUint8(39, proto);
  return b;
}

/**
 * IPv4 headers without options (RFC 791): parse and emit. `ip.frag` maps to
 * the MF flag and fragment offset as OVS reads them: bit 0 "a fragment",
 * bit 1 "not the first fragment".
 */
import { FRAG_ANY, FRAG_LATER } from '../fields.ts';
import type { FieldPatch, Packet } from '../packet.ts';
import { PacketParseError, internetChecksum, type ByteReader, type ByteWriter } from './buffer.ts';

export function emitIPv4(w: ByteWriter, p: Packet, payload: Uint8Array): void {
  const start = w.length;
  const frag = p['ip.frag'] ?? 0;
  const flagsOffset = frag & FRAG_LATER ? 1 : frag & FRAG_ANY ? 0x2000 : 0;
  w.u8(0x45)
    .u8(((p['ip.dscp'] ?? 0) << 2) | (p['ip.ecn'] ?? 0))
    .u16(20 + payload.length);
  w.u16(0)
    .u16(flagsOffset)
    .u8(p['ip.ttl'] ?? 64)
    .u8(p['ip.proto'] ?? 0)
    .u16(0);
  w.u32(p['ip4.src'] ?? 0).u32(p['ip4.dst'] ?? 0);
  w.patch16(start + 10, internetChecksum(w.view(start, start + 20)));
  w.bytes(payload);
}

export interface ParsedL3 {
  readonly fields: FieldPatch;
  readonly proto: number;
  /** Where the L4 payload ends (total length). */
  readonly end: number;
}

export function parseIPv4(r: ByteReader): ParsedL3 {
  const start = r.offset;
  r.need(20, 'IPv4 header');
  const vihl = r.u8();
  if (vihl >> 4 !== 4) throw new PacketParseError('malformed', start, 'IPv4 version is not 4');
  const ihl = (vihl & 0xf) * 4;
  if (ihl < 20) throw new PacketParseError('malformed', start, 'IPv4 header shorter than 20 bytes');
  const tos = r.u8();
  const total = r.u16();
  r.skip(2);
  const flagsOffset = r.u16();
  const ttl = r.u8();
  const proto = r.u8();
  r.skip(2);
  const src = r.u32();
  const dst = r.u32();
  r.skip(ihl - 20);
  const offset = flagsOffset & 0x1fff;
  const frag = offset > 0 ? FRAG_ANY | FRAG_LATER : flagsOffset & 0x2000 ? FRAG_ANY : 0;
  const fields: FieldPatch = {
    'ip.proto': proto,
    'ip.ttl': ttl,
    'ip.dscp': tos >> 2,
    'ip.ecn': tos & 3,
    'ip.frag': frag,
    'ip4.src': src,
    'ip4.dst': dst,
  };
  return { fields, proto, end: Math.min(start + total, r.end) };
}

/** The IPv4 pseudo-header for L4 checksums. */
export function pseudoHeader4(p: Packet, proto: number, length: number): Uint8Array {
  const b = new Uint8Array(12);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, p['ip4.src'] ?? 0);
  dv.setUint32(4, p['ip4.dst'] ?? 0);
  dv.setUint8(9, proto);
  dv.setUint16(10, length);
  return b;
}

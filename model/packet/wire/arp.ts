/**
 * ARP for IPv4 over Ethernet (RFC 826): parse and emit. Parsing gives the
 * fields as OVS keys them: OVS matches only the low 8 bits of the opcode
 * and keys no opcode at all (0) for one above 0xff (lib/flow.c
 * miniflow_extract, "We only match on the lower 8 bits of the opcode").
 */
import { PacketParseError, type ByteReader, type ByteWriter } from './buffer.ts';
import type { FieldPatch, Packet } from '../packet.ts';

export function emitArp(w: ByteWriter, p: Packet): void {
  w.u16(1)
    .u16(0x0800)
    .u8(6)
    .u8(4)
    .u16(p['arp.op'] ?? 1);
  w.u48(p['arp.sha'] ?? 0)
    .u32(p['arp.spa'] ?? 0)
    .u48(p['arp.tha'] ?? 0)
    .u32(p['arp.tpa'] ?? 0);
}

export function parseArp(r: ByteReader): FieldPatch {
  r.need(28, 'ARP');
  const htype = r.u16();
  const ptype = r.u16();
  const hlen = r.u8();
  const plen = r.u8();
  if (htype !== 1 || ptype !== 0x0800 || hlen !== 6 || plen !== 4) {
    throw new PacketParseError('unsupported', r.offset - 6, 'ARP other than IPv4 over Ethernet');
  }
  const op = r.u16();
  return {
    'arp.op': op <= 0xff ? op : 0,
    'arp.sha': r.u48(),
    'arp.spa': r.u32(),
    'arp.tha': r.u48(),
    'arp.tpa': r.u32(),
  };
}

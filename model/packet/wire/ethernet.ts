/**
 * Ethernet II (with an optional 802.1Q tag): parse and emit.
 */
import { ETH_TYPE_VLAN } from '../fields.ts';
import type { FieldPatch, Packet } from '../packet.ts';
import type { ByteReader, ByteWriter } from './buffer.ts';

export function emitEthernet(w: ByteWriter, p: Packet): void {
  w.u48(p['eth.dst']).u48(p['eth.src']);
  const tci = p['vlan.tci'];
  if (tci !== undefined && (tci & 0x1000) !== 0) w.u16(ETH_TYPE_VLAN).u16(tci & ~0x1000);
  w.u16(p['eth.type']);
}

export function parseEthernet(r: ByteReader): FieldPatch & { 'eth.type': number } {
  r.need(14, 'Ethernet header');
  const dst = r.u48();
  const src = r.u48();
  let type = r.u16();
  const out: FieldPatch & { 'eth.type': number } = { 'eth.dst': dst, 'eth.src': src, 'eth.type': type };
  if (type === ETH_TYPE_VLAN) {
    // OVS keeps the TCI with the CFI bit (12) set to mean "a tag is present".
    out['vlan.tci'] = r.u16() | 0x1000;
    type = r.u16();
    out['eth.type'] = type;
  }
  return out;
}

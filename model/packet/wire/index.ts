/**
 * model/packet/wire: packets as bytes. `emitPacket` turns a packet value into
 * an Ethernet frame (checksums filled in); `parsePacket` reads one back.
 * One codec per protocol; `parsePacket(emitPacket(p))` gives `p` back for
 * every packet the builders make (see the round-trip property test).
 */
import { ETH_TYPE_ARP, ETH_TYPE_IP, ETH_TYPE_IPV6, IPPROTO_ICMP, IPPROTO_ICMPV6 } from '../fields.ts';
import type { FieldPatch, Packet } from '../packet.ts';
import { emitArp, parseArp } from './arp.ts';
import { ByteReader, ByteWriter } from './buffer.ts';
import { emitEthernet, parseEthernet } from './ethernet.ts';
import { emitIcmp, parseIcmp } from './icmp.ts';
import { emitIPv4, parseIPv4, pseudoHeader4 } from './ipv4.ts';
import { emitIPv6, parseIPv6, pseudoHeader6 } from './ipv6.ts';
import { emitTransport, parseTransport } from './transport.ts';

export { PacketParseError } from './buffer.ts';

function l4Payload(p: Packet, v6: boolean): Uint8Array {
  const pseudo = (proto: number, length: number) =>
    v6 ? pseudoHeader6(p, proto, length) : pseudoHeader4(p, proto, length);
  if (p['ip.proto'] === (v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP)) return emitIcmp(p, v6 ? pseudo : undefined);
  return emitTransport(p, pseudo) ?? new Uint8Array(0);
}

/**
 * @example emitPacket(tcpPacket({ ethSrc, ethDst, src: '10.0.0.1', dst: '10.0.0.2', sport: 1, dport: 80 })).length // 54
 */
export function emitPacket(p: Packet): Uint8Array {
  const w = new ByteWriter();
  emitEthernet(w, p);
  switch (p['eth.type']) {
    case ETH_TYPE_ARP:
      emitArp(w, p);
      break;
    case ETH_TYPE_IP:
      emitIPv4(w, p, l4Payload(p, false));
      break;
    case ETH_TYPE_IPV6:
      emitIPv6(w, p, l4Payload(p, true));
      break;
    default:
      break;
  }
  return w.done();
}

/** @throws PacketParseError on truncated or unsupported bytes. */
export function parsePacket(bytes: Uint8Array): Packet {
  const r = new ByteReader(bytes);
  const eth = parseEthernet(r);
  let fields: FieldPatch = eth;
  if (eth['eth.type'] === ETH_TYPE_ARP) fields = { ...fields, ...parseArp(r) };
  else if (eth['eth.type'] === ETH_TYPE_IP || eth['eth.type'] === ETH_TYPE_IPV6) {
    const v6 = eth['eth.type'] === ETH_TYPE_IPV6;
    const l3 = v6 ? parseIPv6(r) : parseIPv4(r);
    fields = { ...fields, ...l3.fields };
    const l4 = new ByteReader(bytes, r.offset, l3.end);
    const later = ((l3.fields['ip.frag'] ?? 0) & 2) !== 0;
    if (!later) {
      const isIcmp = l3.proto === (v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
      const l4fields = isIcmp ? parseIcmp(l4, v6) : parseTransport(l4, l3.proto);
      if (l4fields) fields = { ...fields, ...l4fields };
    }
  }
  return fields as unknown as Packet;
}

/**
 * TCP (RFC 9293, no options), UDP (RFC 768) and SCTP common headers
 * (RFC 9260, no chunks; the CRC32c is left zero): parse and emit. TCP and UDP
 * checksums cover the pseudo-header the caller passes.
 */
import { IPPROTO_SCTP, IPPROTO_TCP, IPPROTO_UDP } from '../fields.ts';
import type { FieldPatch, Packet } from '../packet.ts';
import { ByteWriter, internetChecksum, type ByteReader } from './buffer.ts';

export function emitTransport(
  p: Packet,
  pseudo: (proto: number, length: number) => Uint8Array,
): Uint8Array | undefined {
  const w = new ByteWriter();
  switch (p['ip.proto']) {
    case IPPROTO_TCP:
      w.u16(p['tcp.src'] ?? 0)
        .u16(p['tcp.dst'] ?? 0)
        .u32(0)
        .u32(0);
      w.u16((5 << 12) | ((p['tcp.flags'] ?? 0) & 0xfff))
        .u16(65535)
        .u16(0)
        .u16(0);
      w.patch16(16, internetChecksum(pseudo(IPPROTO_TCP, w.length), w.view()));
      return w.done();
    case IPPROTO_UDP:
      w.u16(p['udp.src'] ?? 0)
        .u16(p['udp.dst'] ?? 0)
        .u16(8)
        .u16(0);
      w.patch16(6, internetChecksum(pseudo(IPPROTO_UDP, w.length), w.view()) || 0xffff);
      return w.done();
    case IPPROTO_SCTP:
      return w
        .u16(p['sctp.src'] ?? 0)
        .u16(p['sctp.dst'] ?? 0)
        .u32(0)
        .u32(0)
        .done();
    default:
      return undefined;
  }
}

export function parseTransport(r: ByteReader, proto: number): FieldPatch | undefined {
  switch (proto) {
    case IPPROTO_TCP: {
      r.need(20, 'TCP header');
      const src = r.u16();
      const dst = r.u16();
      r.skip(8);
      const flags = r.u16() & 0xfff;
      return { 'tcp.src': src, 'tcp.dst': dst, 'tcp.flags': flags };
    }
    case IPPROTO_UDP:
      r.need(8, 'UDP header');
      return { 'udp.src': r.u16(), 'udp.dst': r.u16() };
    case IPPROTO_SCTP:
      r.need(12, 'SCTP common header');
      return { 'sctp.src': r.u16(), 'sctp.dst': r.u16() };
    default:
      return undefined;
  }
}

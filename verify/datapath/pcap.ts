/**
 * The pcap file format (libpcap 2.4), as netdev-dummy writes `tx_pcap`:
 * a 24-byte global header, then records of a 16-byte header (seconds,
 * micro- or nanoseconds, captured length, original length) and the frame.
 * Written in the writer's byte order; the magic says which, and whether the
 * fraction is micro- or nanoseconds.
 *
 * `parsePcapRecords` reads from an offset and stops before an incomplete
 * record, returning where it stopped, so a file that is still being written
 * can be read in pieces.
 */
import { DatapathError } from './errors.ts';

export const PCAP_HEADER_BYTES = 24;
const RECORD_HEADER_BYTES = 16;
const MAGIC_US = 0xa1b2c3d4;
const MAGIC_NS = 0xa1b23c4d;
/** LINKTYPE_ETHERNET. */
export const LINKTYPE_ETHERNET = 1;

export interface PcapHeader {
  readonly littleEndian: boolean;
  readonly nanoseconds: boolean;
  readonly snaplen: number;
  readonly linktype: number;
}

export interface PcapRecord {
  readonly seconds: number;
  /** Micro- or nanoseconds, as the header says. */
  readonly fraction: number;
  /** The frame as captured. */
  readonly data: Uint8Array;
  /** Its length on the wire (more than `data.length` when cut at snaplen). */
  readonly originalLength: number;
}

/** @throws DatapathError pcap-invalid when the bytes do not start with a pcap header. */
export function parsePcapHeader(bytes: Uint8Array): PcapHeader {
  if (bytes.length < PCAP_HEADER_BYTES)
    throw new DatapathError('pcap-invalid', `pcap: header is ${bytes.length} bytes, needs ${PCAP_HEADER_BYTES}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const littleEndian of [true, false]) {
    const magic = view.getUint32(0, littleEndian);
    if (magic !== MAGIC_US && magic !== MAGIC_NS) continue;
    return {
      littleEndian,
      nanoseconds: magic === MAGIC_NS,
      snaplen: view.getUint32(16, littleEndian),
      linktype: view.getUint32(20, littleEndian),
    };
  }
  throw new DatapathError('pcap-invalid', `pcap: bad magic 0x${view.getUint32(0, false).toString(16)}`);
}

/**
 * Records from `offset` (default: just past the header) up to the last
 * complete one; `end` is where the next read should start.
 *
 * @example
 * const { records, end } = parsePcapRecords(readFileSync(file), { from: lastEnd });
 */
export function parsePcapRecords(
  bytes: Uint8Array,
  opts: { from?: number } = {},
): { header: PcapHeader; records: PcapRecord[]; end: number } {
  const header = parsePcapHeader(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: PcapRecord[] = [];
  let at = Math.max(opts.from ?? PCAP_HEADER_BYTES, PCAP_HEADER_BYTES);
  while (at + RECORD_HEADER_BYTES <= bytes.length) {
    const le = header.littleEndian;
    const captured = view.getUint32(at + 8, le);
    if (at + RECORD_HEADER_BYTES + captured > bytes.length) break;
    const start = at + RECORD_HEADER_BYTES;
    records.push({
      seconds: view.getUint32(at, le),
      fraction: view.getUint32(at + 4, le),
      data: bytes.slice(start, start + captured),
      originalLength: view.getUint32(at + 12, le),
    });
    at = start + captured;
  }
  return { header, records, end: at };
}

/**
 * A whole pcap file (tests, fixtures): the inverse of parsePcapRecords.
 *
 * @example emitPcap({ littleEndian: true, nanoseconds: false, snaplen: 65535, linktype: 1 }, [rec]).length // 24 + 16 + n
 */
export function emitPcap(header: PcapHeader, records: readonly PcapRecord[]): Uint8Array {
  const size = PCAP_HEADER_BYTES + records.reduce((n, r) => n + RECORD_HEADER_BYTES + r.data.length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  const le = header.littleEndian;
  view.setUint32(0, header.nanoseconds ? MAGIC_NS : MAGIC_US, le);
  view.setUint16(4, 2, le);
  view.setUint16(6, 4, le);
  view.setUint32(16, header.snaplen, le);
  view.setUint32(20, header.linktype, le);
  let at = PCAP_HEADER_BYTES;
  for (const r of records) {
    view.setUint32(at, r.seconds, le);
    view.setUint32(at + 4, r.fraction, le);
    view.setUint32(at + 8, r.data.length, le);
    view.setUint32(at + 12, r.originalLength, le);
    out.set(r.data, at + RECORD_HEADER_BYTES);
    at += RECORD_HEADER_BYTES + r.data.length;
  }
  return out;
}

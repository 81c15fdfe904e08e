/**
 * Byte-level helpers for the wire codecs: a growable big-endian writer, a
 * bounds-checked reader, and the Internet checksum (RFC 1071).
 */

/** Thrown by the parsers for bytes that are not a packet they understand. */
export class PacketParseError extends Error {
  override readonly name = 'PacketParseError';
  constructor(
    readonly code: 'truncated' | 'unsupported' | 'malformed',
    readonly offset: number,
    detail: string,
  ) {
    super(`packet bytes at offset ${offset}: ${detail}`);
  }
}

export class ByteWriter {
  private buf = new Uint8Array(128);
  length = 0;

  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.length++] = v & 0xff;
    return this;
  }

  u16(v: number): this {
    return this.u8(v >>> 8).u8(v);
  }

  u32(v: number): this {
    return this.u16(v >>> 16).u16(v & 0xffff);
  }

  /** A 48-bit MAC held as a number. */
  u48(v: number): this {
    return this.u16(Math.floor(v / 0x100000000)).u32(v % 0x100000000);
  }

  u128(v: bigint): this {
    for (let shift = 120n; shift >= 0n; shift -= 8n) this.u8(Number((v >> shift) & 0xffn));
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
    return this;
  }

  /** Overwrite a 16-bit value already written (checksums, lengths). */
  patch16(at: number, v: number): void {
    this.buf[at] = (v >>> 8) & 0xff;
    this.buf[at + 1] = v & 0xff;
  }

  view(from = 0, to = this.length): Uint8Array {
    return this.buf.subarray(from, to);
  }

  done(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

export class ByteReader {
  constructor(
    readonly bytes: Uint8Array,
    public offset = 0,
    readonly end = bytes.length,
  ) {}

  need(n: number, what: string): void {
    if (this.offset + n > this.end)
      throw new PacketParseError('truncated', this.offset, `${what}: need ${n} bytes, have ${this.end - this.offset}`);
  }

  u8(): number {
    this.need(1, 'byte');
    return this.bytes[this.offset++]!;
  }

  u16(): number {
    return (this.u8() << 8) | this.u8();
  }

  u32(): number {
    return ((this.u16() << 16) >>> 0) + this.u16();
  }

  u48(): number {
    return this.u16() * 0x100000000 + this.u32();
  }

  u128(): bigint {
    let v = 0n;
    for (let i = 0; i < 16; i++) v = (v << 8n) | BigInt(this.u8());
    return v;
  }

  skip(n: number): void {
    this.need(n, 'skip');
    this.offset += n;
  }

  get remaining(): number {
    return this.end - this.offset;
  }
}

/** The Internet checksum of some byte ranges (odd lengths padded). */
export function internetChecksum(...parts: readonly Uint8Array[]): number {
  let sum = 0;
  for (const part of parts) {
    for (let i = 0; i < part.length; i += 2) sum += (part[i]! << 8) | (part[i + 1] ?? 0);
  }
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

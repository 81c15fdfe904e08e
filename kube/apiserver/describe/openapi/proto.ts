/**
 * A small proto3 codec driven by message descriptors: enough of the
 * protobuf wire format (varints, 64-bit doubles, length-delimited strings
 * and messages, repeated fields unpacked) for the OpenAPI v2 document
 * kubectl downloads (gnostic.ts). Values are plain objects keyed by field
 * name; fields at their default (empty string, false, 0, empty list) are
 * not written, as proto3 does, except members of a `oneof`.
 */

/** A field's wire type: a scalar or another message (by descriptor). */
export type FieldType = 'string' | 'bool' | 'double' | 'int64' | MessageDescriptor;

export interface FieldDescriptor {
  readonly no: number;
  readonly name: string;
  readonly type: FieldType | (() => MessageDescriptor);
  readonly repeated?: boolean;
  /** A member of a `oneof`: written whenever set, its default value too (`boolean: false`). */
  readonly oneof?: boolean;
}

export interface MessageDescriptor {
  readonly name: string;
  readonly fields: readonly FieldDescriptor[];
}

/** A message as a plain object: scalars, nested messages, arrays for repeated fields. */
export type Message = { readonly [field: string]: unknown };

/** Bytes that are not a message of the descriptor given. */
export class ProtoError extends Error {
  override readonly name = 'ProtoError';
  readonly code = 'ProtoMalformed';
}

const typeOf = (f: FieldDescriptor): FieldType => (typeof f.type === 'function' ? f.type() : f.type);

class Writer {
  private chunks: Uint8Array[] = [];
  private size = 0;
  push(b: Uint8Array): void {
    this.chunks.push(b);
    this.size += b.length;
  }
  varint(n: bigint | number): void {
    let v = BigInt.asUintN(64, BigInt(n));
    const out: number[] = [];
    do {
      const byte = Number(v & 0x7fn);
      v >>= 7n;
      out.push(v > 0n ? byte | 0x80 : byte);
    } while (v > 0n);
    this.push(Uint8Array.from(out));
  }
  bytes(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

const utf8 = new TextEncoder();

function writeField(w: Writer, f: FieldDescriptor, v: unknown): void {
  const t = typeOf(f);
  if (t === 'string') {
    const b = utf8.encode(String(v));
    w.varint((f.no << 3) | 2);
    w.varint(b.length);
    w.push(b);
  } else if (t === 'bool' || t === 'int64') {
    w.varint(f.no << 3);
    w.varint(t === 'bool' ? (v ? 1 : 0) : BigInt(Math.trunc(Number(v))));
  } else if (t === 'double') {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, Number(v), true);
    w.varint((f.no << 3) | 1);
    w.push(b);
  } else {
    const b = encodeMessage(t, v as Message);
    w.varint((f.no << 3) | 2);
    w.varint(b.length);
    w.push(b);
  }
}

const isDefault = (v: unknown): boolean =>
  v === undefined || v === null || v === '' || v === false || v === 0 || (Array.isArray(v) && v.length === 0);

/**
 * A message's bytes.
 *
 * @example encodeMessage({ name: 'Info', fields: [{ no: 1, name: 'title', type: 'string' }] }, { title: 'x' }) // 0a 01 78
 */
export function encodeMessage(d: MessageDescriptor, m: Message): Uint8Array {
  const w = new Writer();
  for (const f of d.fields) {
    const v = m[f.name];
    if (!f.oneof && isDefault(v) && typeof typeOf(f) === 'string') continue;
    if (v === undefined || v === null) continue;
    for (const item of f.repeated ? (v as unknown[]) : [v]) writeField(w, f, item);
  }
  return w.bytes();
}

class Reader {
  at = 0;
  constructor(
    readonly b: Uint8Array,
    readonly what: string,
  ) {}
  varint(): bigint {
    let v = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.at >= this.b.length) throw new ProtoError(`${this.what}: truncated varint`);
      const byte = this.b[this.at++]!;
      v |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return v;
    }
    throw new ProtoError(`${this.what}: varint too long`);
  }
  take(n: number): Uint8Array {
    if (this.at + n > this.b.length) throw new ProtoError(`${this.what}: truncated field`);
    const out = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
}

const utf8d = new TextDecoder();

function readValue(r: Reader, f: FieldDescriptor, wire: number): unknown {
  const t = typeOf(f);
  if (t === 'bool' || t === 'int64') {
    const v = r.varint();
    return t === 'bool' ? v !== 0n : Number(BigInt.asIntN(64, v));
  }
  if (t === 'double') return new DataView(r.take(8).slice().buffer).getFloat64(0, true);
  if (wire !== 2) throw new ProtoError(`${r.what}.${f.name}: wire type ${wire}, expected 2`);
  const b = r.take(Number(r.varint()));
  return t === 'string' ? utf8d.decode(b) : decodeMessage(t, b);
}

function skip(r: Reader, wire: number): void {
  if (wire === 0) r.varint();
  else if (wire === 1) r.take(8);
  else if (wire === 2) r.take(Number(r.varint()));
  else if (wire === 5) r.take(4);
  else throw new ProtoError(`${r.what}: wire type ${wire} not supported`);
}

/**
 * A message read back from its bytes (fields the descriptor does not know are skipped).
 *
 * @example decodeMessage(INFO, encodeMessage(INFO, { title: 'x' })) // { title: 'x' }
 */
export function decodeMessage(d: MessageDescriptor, b: Uint8Array): Message {
  const r = new Reader(b, d.name);
  const out: Record<string, unknown> = {};
  while (r.at < b.length) {
    const key = Number(r.varint());
    const f = d.fields.find((x) => x.no === key >> 3);
    if (!f) {
      skip(r, key & 7);
      continue;
    }
    const v = readValue(r, f, key & 7);
    if (f.repeated) out[f.name] = [...((out[f.name] as unknown[] | undefined) ?? []), v];
    else out[f.name] = v;
  }
  return out;
}

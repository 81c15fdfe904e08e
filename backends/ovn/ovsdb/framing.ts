/**
 * Streaming JSON splitter for OVSDB's JSON-RPC stream (RFC 7047 §4: messages
 * are concatenated JSON texts with no delimiter).
 *
 * Works on bytes: the characters that matter (`{ } [ ] " \`) are ASCII, and
 * UTF-8 never uses bytes below 0x80 inside a multi-byte sequence, so scanning
 * bytes is exact even when a read ends in the middle of a character. Bytes are
 * kept as Buffers until a whole top-level value has arrived; only then are
 * they decoded and parsed. The scan state survives across reads, so each byte
 * is looked at once however a large message is chunked.
 *
 * Top-level values must be objects or arrays (JSON-RPC messages are objects);
 * anything else between values except whitespace is a protocol error.
 */
import { OvsdbProtocolError } from './wire/errors.ts';
import { MAX_JSON_DEPTH } from './wire/json.ts';

const OPEN_OBJ = 0x7b;
const CLOSE_OBJ = 0x7d;
const OPEN_ARR = 0x5b;
const CLOSE_ARR = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export interface JsonSplitterOptions {
  /** Largest accepted message in bytes; a larger one is a protocol error. Default 256 MiB. */
  readonly maxMessageBytes?: number;
}

/**
 * Feed it reads with {@link push}; it returns the complete values they finish.
 *
 * @example
 * const s = new JsonSplitter();
 * s.push(Buffer.from('{"id":1,"res'))   // []
 * s.push(Buffer.from('ult":[]}{"id":2')) // [{id: 1, result: []}]
 */
export class JsonSplitter {
  private readonly maxBytes: number;
  /** Bytes of the value being accumulated, before the current chunk. */
  private parts: Buffer[] = [];
  private partsBytes = 0;
  /** Open brackets of the current value; checking them rejects `[}`, which would otherwise never complete. */
  private readonly stack: number[] = [];
  private inString = false;
  private escaped = false;

  constructor(opts: JsonSplitterOptions = {}) {
    this.maxBytes = opts.maxMessageBytes ?? 256 * 1024 * 1024;
  }

  /** Whether a value has started but not finished (bytes are buffered). */
  get pending(): boolean {
    return this.stack.length > 0;
  }

  /** Consumes one read and returns every value it completes, in order. */
  push(chunk: Buffer): unknown[] {
    const out: unknown[] = [];
    const stack = this.stack;
    const n = chunk.length;
    let start = stack.length > 0 ? 0 : -1; // start of the current value within `chunk`
    let i = this.inString ? this.skipString(chunk, 0) : 0;
    for (; i < n; i++) {
      const b = chunk[i] as number;
      if (b === OPEN_OBJ || b === OPEN_ARR) {
        if (stack.length === 0) start = i;
        // Refused while scanning, before anything parses or walks it (the bracket stack is kept anyway).
        if (stack.length >= MAX_JSON_DEPTH) this.fail(`message nested deeper than ${MAX_JSON_DEPTH} levels`);
        stack.push(b);
      } else if (stack.length === 0) {
        if (!isJsonSpace(b)) this.fail(`unexpected byte 0x${b.toString(16)} between messages`);
      } else if (b === QUOTE) {
        i = this.skipString(chunk, i + 1) - 1;
      } else if (b === CLOSE_OBJ || b === CLOSE_ARR) {
        if (stack.pop() !== (b === CLOSE_OBJ ? OPEN_OBJ : OPEN_ARR))
          this.fail(`mismatched '${String.fromCharCode(b)}'`);
        if (stack.length === 0) {
          out.push(this.finish(chunk.subarray(start, i + 1)));
          start = -1;
        }
      }
    }
    if (stack.length > 0 && start >= 0) this.keep(chunk.subarray(start));
    return out;
  }

  /**
   * Inside a string from `from`: the index just past its closing quote, or
   * the chunk's length if it does not close here (the state says so). A tight
   * loop of its own: most bytes of an OVSDB message are inside strings.
   */
  private skipString(chunk: Buffer, from: number): number {
    let escaped = this.escaped;
    for (let i = from; i < chunk.length; i++) {
      const b = chunk[i] as number;
      if (escaped) escaped = false;
      else if (b === BACKSLASH) escaped = true;
      else if (b === QUOTE) {
        this.inString = false;
        this.escaped = false;
        return i + 1;
      }
    }
    this.inString = true;
    this.escaped = escaped;
    return chunk.length;
  }

  /** Drops any partial value (after a reconnect). */
  reset(): void {
    this.parts = [];
    this.partsBytes = 0;
    this.stack.length = 0;
    this.inString = false;
    this.escaped = false;
  }

  private fail(message: string): never {
    this.reset();
    throw new OvsdbProtocolError(`framing: ${message}`);
  }

  private keep(bytes: Buffer): void {
    this.partsBytes += bytes.length;
    if (this.partsBytes > this.maxBytes) this.fail(`message larger than ${this.maxBytes} bytes`);
    // Copy: the caller may reuse the read buffer.
    this.parts.push(Buffer.from(bytes));
  }

  private finish(tail: Buffer): unknown {
    const whole = this.parts.length === 0 ? tail : Buffer.concat([...this.parts, tail]);
    this.parts = [];
    this.partsBytes = 0;
    const text = whole.toString('utf8');
    try {
      return JSON.parse(text);
    } catch (cause) {
      throw new OvsdbProtocolError(`framing: invalid JSON: ${text.length > 80 ? `${text.slice(0, 77)}...` : text}`, {
        cause,
      });
    }
  }
}

function isJsonSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

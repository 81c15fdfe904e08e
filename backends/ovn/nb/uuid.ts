/**
 * The uuids kovn gives the rows it inserts: random version-4 uuids, as
 * `crypto.randomUUID` makes them (same source of randomness), but made 256
 * at a time into one buffer and handed out as flat one-byte strings.
 *
 * Why not randomUUID itself: its strings are concatenations of twenty
 * pieces, which V8 flattens (copies) the first time one is hashed or
 * serialized, and every uuid made here is both a Map key (batch.ts) and
 * sent on the wire: on a 10,000-port apply that flattening measured about a
 * sixth of building the operations.
 */
import { randomFillSync } from 'node:crypto';

const POOL = 256;
const TEXT = 36;
const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** Where the two hex digits of byte i go in the 36-character text. */
const POSITION = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const DASHES = [8, 13, 18, 23];

let text = Buffer.alloc(0);
let next = POOL;

/**
 * @example randomRowUuid() // '1b4e28ba-2fa1-4d2e-883f-0016d3cca427'
 */
export function randomRowUuid(): string {
  if (next === POOL) refill();
  const at = next++ * TEXT;
  return text.toString('latin1', at, at + TEXT);
}

function refill(): void {
  const random = randomFillSync(Buffer.allocUnsafe(16 * POOL));
  const out = Buffer.allocUnsafe(TEXT * POOL);
  for (let u = 0; u < POOL; u++) {
    const base = u * TEXT;
    for (const d of DASHES) out[base + d] = 0x2d;
    for (let i = 0; i < 16; i++) {
      let b = random[u * 16 + i] as number;
      if (i === 6)
        b = (b & 0x0f) | 0x40; // version 4
      else if (i === 8) b = (b & 0x3f) | 0x80; // variant 10xx (RFC 4122)
      const p = base + (POSITION[i] as number);
      out[p] = HEX[b >> 4] as number;
      out[p + 1] = HEX[b & 0x0f] as number;
    }
  }
  text = out;
  next = 0;
}

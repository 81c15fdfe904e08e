/**
 * Randomness for MAC addresses, always injected: the model never reads a
 * random source of its own, so the same seed gives the same MACs.
 */

/**
 * Fills `out` with random bytes. `crypto.getRandomValues.bind(crypto)` fits;
 * tests and the simulator pass {@link seededRandomBytes}.
 */
export type RandomBytes = (out: Uint8Array) => unknown;

/**
 * A deterministic byte source (splitmix32). Not cryptographic: MACs only
 * need to be spread out, and reproducible runs need the same sequence.
 *
 * @example
 * const random = seededRandomBytes(42);
 * const buf = new Uint8Array(6); random(buf); // same bytes for seed 42, every run
 */
export function seededRandomBytes(seed: number): RandomBytes {
  const next = splitmix32(seed);
  return (out: Uint8Array) => {
    for (let i = 0; i < out.length; i += 4) {
      let word = next();
      for (let k = i; k < i + 4 && k < out.length; k++) {
        out[k] = word & 0xff;
        word >>>= 8;
      }
    }
  };
}

/**
 * splitmix32: a deterministic sequence of 32-bit words, uniform in [0, 2^32).
 * The one seeded generator below `cli/` (MACs, the benches' and tests' own
 * choices): the same seed gives the same sequence on every run.
 *
 * @example
 * const next = splitmix32(18); next(); // a word; next() / 2 ** 32 is in [0, 1)
 */
export function splitmix32(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/**
 * Six random bytes to a MAC as Kube-OVN makes one: locally administered bit
 * set, multicast bit cleared (so never the broadcast address either).
 *
 * @example formatMAC(macFromBytes(Uint8Array.of(0, 0x58, 10, 16, 0, 5))) // '02:58:0a:10:00:05'
 */
export function macFromBytes(b: Uint8Array): number {
  const hi = (((b[0]! | 0x02) & 0xfe) << 8) | b[1]!;
  const lo = ((b[2]! << 24) | (b[3]! << 16) | (b[4]! << 8) | b[5]!) >>> 0;
  return hi * 4294967296 + lo;
}

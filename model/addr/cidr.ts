/**
 * CIDRs: an address plus a prefix length. The address keeps its host bits, as
 * a router port's `networks` entry does ("10.0.0.1/24" is the port's address
 * and its subnet); {@link networkOf} clears them.
 */
import { AddressParseError } from './errors.ts';
import { type Family, type IP, IPV6_MAX, formatIP, tryParseIPv4, tryParseIPv6, v4, v6 } from './ip.ts';

export type CIDR4 = { readonly family: 4; readonly ip: number; readonly prefix: number };
export type CIDR6 = { readonly family: 6; readonly ip: bigint; readonly prefix: number };
export type CIDR = CIDR4 | CIDR6;

export const maxPrefix = (family: Family): number => (family === 4 ? 32 : 128);

/** IPv4 netmask for a prefix length, as uint32. */
export function maskV4(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

export function maskV6(prefix: number): bigint {
  return prefix === 0 ? 0n : (IPV6_MAX << BigInt(128 - prefix)) & IPV6_MAX;
}

export type ParseCIDROptions = {
  /** Reject host bits ("10.0.0.1/24"), as Kubernetes and Kube-OVN do for a Subnet's cidrBlock. */
  readonly strict?: boolean;
  /** Accept a bare address as a /32 or /128 (OVN match constants, excludeIps). */
  readonly allowBare?: boolean;
};

export function tryParseCIDR(text: string, opts: ParseCIDROptions = {}): CIDR | undefined {
  try {
    return parseCIDR(text, opts);
  } catch {
    return undefined;
  }
}

/**
 * @example parseCIDR('10.16.0.0/16') // { family: 4, ip: 0x0a100000, prefix: 16 }
 * @example parseCIDR('10.16.0.1/16', { strict: true }) // throws AddressParseError 'host-bits-set'
 */
export function parseCIDR(text: string, opts: ParseCIDROptions = {}): CIDR {
  const slash = text.indexOf('/');
  const addrText = slash === -1 ? text : text.slice(0, slash);
  const family: Family = addrText.includes(':') ? 6 : 4;
  let prefix = maxPrefix(family);
  if (slash === -1) {
    if (!opts.allowBare) throw new AddressParseError('invalid-cidr', text, 'missing "/prefix"');
  } else {
    const p = text.slice(slash + 1);
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > maxPrefix(family)) {
      throw new AddressParseError('invalid-prefix', text);
    }
    prefix = Number(p);
  }
  let cidr: CIDR;
  if (family === 4) {
    const ip = tryParseIPv4(addrText);
    if (ip === undefined) throw new AddressParseError('invalid-cidr', text, `bad address ${JSON.stringify(addrText)}`);
    cidr = { family, ip, prefix };
  } else {
    const ip = tryParseIPv6(addrText);
    if (ip === undefined) throw new AddressParseError('invalid-cidr', text, `bad address ${JSON.stringify(addrText)}`);
    cidr = { family, ip, prefix };
  }
  if (opts.strict && !isNetwork(cidr)) {
    throw new AddressParseError('host-bits-set', text, `did you mean ${formatCIDR(networkOf(cidr))}?`);
  }
  return cidr;
}

export function formatCIDR(c: CIDR): string {
  return `${formatIP(addressOf(c))}/${c.prefix}`;
}

export function makeCIDR(ip: IP, prefix: number): CIDR {
  return ip.family === 4 ? { family: 4, ip: ip.value, prefix } : { family: 6, ip: ip.value, prefix };
}

/** The address part, host bits included. */
export function addressOf(c: CIDR): IP {
  return c.family === 4 ? v4(c.ip) : v6(c.ip);
}

export function networkOf(c: CIDR): CIDR {
  return c.family === 4
    ? { family: 4, ip: (c.ip & maskV4(c.prefix)) >>> 0, prefix: c.prefix }
    : { family: 6, ip: c.ip & maskV6(c.prefix), prefix: c.prefix };
}

export function isNetwork(c: CIDR): boolean {
  return c.family === 4 ? (c.ip & maskV4(c.prefix)) >>> 0 === c.ip : (c.ip & maskV6(c.prefix)) === c.ip;
}

/** First address of the block (the network address). */
export function firstIP(c: CIDR): IP {
  return addressOf(networkOf(c));
}

/** Last address of the block (the IPv4 broadcast address). */
export function lastIP(c: CIDR): IP {
  return c.family === 4 ? v4((c.ip | ~maskV4(c.prefix)) >>> 0) : v6(c.ip | (~maskV6(c.prefix) & IPV6_MAX));
}

/** Number of addresses in the block. */
export function sizeOf(c: CIDR): bigint {
  return 1n << BigInt(maxPrefix(c.family) - c.prefix);
}

export function containsIP(c: CIDR, ip: IP): boolean {
  if (c.family === 4) return ip.family === 4 && containsV4(c.ip, c.prefix, ip.value);
  return ip.family === 6 && containsV6(c.ip, c.prefix, ip.value);
}

export function containsV4(net: number, prefix: number, ip: number): boolean {
  const m = maskV4(prefix);
  return (net & m) >>> 0 === (ip & m) >>> 0;
}

export function containsV6(net: bigint, prefix: number, ip: bigint): boolean {
  const m = maskV6(prefix);
  return (net & m) === (ip & m);
}

/** `outer` contains every address of `inner`. */
export function containsCIDR(outer: CIDR, inner: CIDR): boolean {
  return outer.family === inner.family && outer.prefix <= inner.prefix && containsIP(outer, addressOf(inner));
}

export function overlaps(a: CIDR, b: CIDR): boolean {
  return containsCIDR(a, b) || containsCIDR(b, a);
}

export function cidrEquals(a: CIDR, b: CIDR): boolean {
  return a.family === b.family && a.prefix === b.prefix && a.ip === b.ip;
}

/**
 * The address at `offset` from the network address (negative: from the last
 * address). Undefined when outside the block.
 *
 * @example formatIP(nthIP(parseCIDR('10.16.0.0/16'), 1)!) // '10.16.0.1'
 */
export function nthIP(c: CIDR, offset: number | bigint): IP | undefined {
  const off = BigInt(offset);
  const size = sizeOf(c);
  const idx = off < 0n ? size + off : off;
  if (idx < 0n || idx >= size) return undefined;
  return c.family === 4
    ? v4(Number(BigInt((c.ip & maskV4(c.prefix)) >>> 0) + idx))
    : v6((c.ip & maskV6(c.prefix)) + idx);
}

/**
 * The smallest set of CIDRs covering exactly [first, last] (inclusive),
 * in ascending order. Used to print address ranges as OVN match sets.
 */
export function rangeToCIDRs(first: IP, last: IP): CIDR[] {
  if (first.family !== last.family) throw new RangeError('rangeToCIDRs: mixed families');
  const bits = first.family === 4 ? 32 : 128;
  let lo = BigInt(first.value);
  const hi = BigInt(last.value);
  const out: CIDR[] = [];
  while (lo <= hi) {
    let size = 0;
    while (size < bits) {
      const block = 1n << BigInt(size + 1);
      if (lo % block !== 0n || lo + block - 1n > hi) break;
      size++;
    }
    const prefix = bits - size;
    out.push(first.family === 4 ? { family: 4, ip: Number(lo), prefix } : { family: 6, ip: lo, prefix });
    lo += 1n << BigInt(size);
  }
  return out;
}

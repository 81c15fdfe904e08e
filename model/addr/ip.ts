/**
 * IPv4 and IPv6 addresses as plain numbers: IPv4 is an unsigned 32-bit
 * `number`, IPv6 a `bigint` in [0, 2^128). Hot paths (IPAM, the simulator)
 * work on these directly; {@link IP} tags them with their family where both
 * can appear.
 */
import { AddressParseError } from './errors.ts';

export type Family = 4 | 6;
export type IPv4 = { readonly family: 4; readonly value: number };
export type IPv6 = { readonly family: 6; readonly value: bigint };
/** A tagged address; compare with {@link ipEquals}, never `===`. */
export type IP = IPv4 | IPv6;

export const IPV4_MAX = 0xffffffff;
export const IPV6_MAX = (1n << 128n) - 1n;

export const v4 = (value: number): IPv4 => ({ family: 4, value: value >>> 0 });
export const v6 = (value: bigint): IPv6 => ({ family: 6, value: BigInt.asUintN(128, value) });

/**
 * Dotted quad to uint32, strict: four decimal octets, no leading zeros
 * (OVN and Kubernetes both reject "010.0.0.1" as ambiguous octal).
 *
 * @example tryParseIPv4('10.16.0.1') // 0x0a100001
 */
export function tryParseIPv4(text: string): number | undefined {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits > 0 && octet === 0) return undefined; // leading zero
      octet = octet * 10 + (c - 48);
      if (++digits > 3 || octet > 255) return undefined;
    } else if (c === 46) {
      if (digits === 0 || ++dots > 3) return undefined;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
    } else {
      return undefined;
    }
  }
  if (dots !== 3 || digits === 0) return undefined;
  return value * 256 + octet;
}

export function parseIPv4(text: string): number {
  const v = tryParseIPv4(text);
  if (v === undefined) throw new AddressParseError('invalid-ipv4', text);
  return v;
}

export function formatIPv4(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

/**
 * IPv6 text (RFC 4291 section 2.2, including "::" and a trailing dotted quad)
 * to a bigint. Zone ids ("%eth0") are not addresses and are rejected.
 */
export function tryParseIPv6(text: string): bigint | undefined {
  if (text.length < 2 || text.length > 45) return undefined;
  const dbl = text.indexOf('::');
  if (dbl !== -1 && text.indexOf('::', dbl + 1) !== -1) return undefined;
  const head = dbl === -1 ? text : text.slice(0, dbl);
  const tail = dbl === -1 ? '' : text.slice(dbl + 2);
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups: number[] = [];
  const last = dbl === -1 ? left : right;
  // A trailing IPv4 part stands for two groups.
  const lastPart = last[last.length - 1];
  let v4tail: number | undefined;
  if (lastPart?.includes('.')) {
    v4tail = tryParseIPv4(lastPart);
    if (v4tail === undefined) return undefined;
    last.pop();
  }
  const parseGroups = (parts: string[]): number[] | undefined => {
    const out: number[] = [];
    for (const p of parts) {
      if (p.length === 0 || p.length > 4 || !/^[0-9a-fA-F]+$/.test(p)) return undefined;
      out.push(parseInt(p, 16));
    }
    return out;
  };
  const l = parseGroups(left);
  const r = parseGroups(right);
  if (!l || !r) return undefined;
  const tailGroups = v4tail === undefined ? [] : [v4tail >>> 16, v4tail & 0xffff];
  const explicit = l.length + r.length + tailGroups.length;
  if (dbl === -1) {
    if (explicit !== 8) return undefined;
    groups.push(...l, ...tailGroups);
  } else {
    if (explicit > 7) return undefined;
    groups.push(...l, ...new Array<number>(8 - explicit).fill(0), ...r, ...tailGroups);
  }
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(g);
  return value;
}

export function parseIPv6(text: string): bigint {
  const v = tryParseIPv6(text);
  if (v === undefined) throw new AddressParseError('invalid-ipv6', text);
  return v;
}

/** RFC 5952 canonical text: lower case, no leading zeros, longest zero run (≥ 2 groups, first on tie) as "::". */
export function formatIPv6(value: bigint): string {
  const g: number[] = [];
  for (let i = 7; i >= 0; i--) g.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  // IPv4-mapped addresses are written with a dotted quad (RFC 5952 section 5).
  if (value >> 32n === 0xffffn) return `::ffff:${formatIPv4(Number(value & 0xffffffffn))}`;
  const hex = (xs: number[]) => xs.map((x) => x.toString(16)).join(':');
  if (bestStart === -1) return hex(g);
  return `${hex(g.slice(0, bestStart))}::${hex(g.slice(bestStart + bestLen))}`;
}

export function tryParseIP(text: string): IP | undefined {
  if (text.includes(':')) {
    const v = tryParseIPv6(text);
    return v === undefined ? undefined : { family: 6, value: v };
  }
  const v = tryParseIPv4(text);
  return v === undefined ? undefined : { family: 4, value: v };
}

/** @example parseIP('fd00::1') // { family: 6, value: 0xfd00...01n } */
export function parseIP(text: string): IP {
  const ip = tryParseIP(text);
  if (!ip) throw new AddressParseError('invalid-ip', text);
  return ip;
}

export function formatIP(ip: IP): string {
  return ip.family === 4 ? formatIPv4(ip.value) : formatIPv6(ip.value);
}

export function ipEquals(a: IP, b: IP): boolean {
  return a.family === b.family && a.value === b.value;
}

/** Total order: every IPv4 address before every IPv6 address. */
export function compareIP(a: IP, b: IP): number {
  if (a.family !== b.family) return a.family - b.family;
  return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
}

/** The next address, or undefined past the end of the family's space. */
export function nextIP(ip: IP): IP | undefined {
  if (ip.family === 4) return ip.value === IPV4_MAX ? undefined : v4(ip.value + 1);
  return ip.value === IPV6_MAX ? undefined : v6(ip.value + 1n);
}

export function prevIP(ip: IP): IP | undefined {
  if (ip.family === 4) return ip.value === 0 ? undefined : v4(ip.value - 1);
  return ip.value === 0n ? undefined : v6(ip.value - 1n);
}

/** Family of an address text without fully parsing it (":" means IPv6). */
export function familyOf(text: string): Family {
  return text.includes(':') ? 6 : 4;
}

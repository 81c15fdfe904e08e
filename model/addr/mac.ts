/**
 * MAC addresses as 48-bit numbers (exact in a double). Text form is
 * lower-case colon-separated, as OVN writes it.
 */
import { AddressParseError } from './errors.ts';

export const MAC_BROADCAST = 0xffffffffffff;

/** @example tryParseMAC('0a:58:0a:10:00:05') // 0x0a580a100005 */
export function tryParseMAC(text: string): number | undefined {
  if (text.length !== 17) return undefined;
  let value = 0;
  for (let i = 0; i < 17; i += 3) {
    if (i > 0 && text.charCodeAt(i - 1) !== 58 /* ':' */) return undefined;
    const hi = hexDigit(text.charCodeAt(i));
    const lo = hexDigit(text.charCodeAt(i + 1));
    if (hi < 0 || lo < 0) return undefined;
    value = value * 256 + hi * 16 + lo;
  }
  return value;
}

/** Value of one hex digit's char code, or -1. */
function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

export function parseMAC(text: string): number {
  const v = tryParseMAC(text);
  if (v === undefined) throw new AddressParseError('invalid-mac', text);
  return v;
}

export function formatMAC(value: number): string {
  let s = '';
  for (let i = 5; i >= 0; i--) {
    const byte = Math.floor(value / 2 ** (i * 8)) % 256;
    s += (i === 5 ? '' : ':') + byte.toString(16).padStart(2, '0');
  }
  return s;
}

/** First octet's least significant bit: group (multicast or broadcast) address. */
export function isMulticastMAC(value: number): boolean {
  return Math.floor(value / 2 ** 40) % 2 === 1;
}

/** First octet's second bit: locally administered. */
export function isLocalMAC(value: number): boolean {
  return (Math.floor(value / 2 ** 40) & 2) === 2;
}

/**
 * Fuzz targets of the address parsers: any text ⇒ a value or an
 * AddressParseError; an accepted value prints to text that parses back to it.
 */
import fc from 'fast-check';
import { mutatedText } from '../../test/fuzz/mutate.ts';
import type { FuzzTarget } from '../../test/fuzz/target.ts';
import { formatCIDR, parseCIDR } from './cidr.ts';
import { AddressParseError } from './errors.ts';
import { formatIP, formatIPv4, formatIPv6, parseIP } from './ip.ts';
import { formatMAC, parseMAC } from './mac.ts';

const v4Text = fc.integer({ min: 0, max: 0xffffffff }).map(formatIPv4);
const v6Text = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map(formatIPv6);
const v6Sparse = fc
  .array(fc.constantFrom('0', '1', 'ffff', 'a', ''), { minLength: 2, maxLength: 9 })
  .map((g) => g.join(':'));
const ipText = fc.oneof(
  v4Text,
  v6Text,
  v6Sparse,
  v4Text.map((v) => `::ffff:${v}`),
);

function check<T>(text: string, parse: (s: string) => T, format: (v: T) => string, same: (a: T, b: T) => boolean) {
  let v: T;
  try {
    v = parse(text);
  } catch (e) {
    if (e instanceof AddressParseError) return 'rejected' as const;
    throw e;
  }
  const printed = format(v);
  const again = parse(printed);
  if (!same(v, again)) throw new Error(`${JSON.stringify(text)} → ${printed} → a different value`);
  return 'accepted' as const;
}

export const targets: FuzzTarget<string>[] = [
  {
    name: 'addr/ip',
    arbitrary: mutatedText(ipText),
    run: (text) => check(text, parseIP, formatIP, (a, b) => a.family === b.family && a.value === b.value),
  },
  {
    name: 'addr/cidr',
    arbitrary: mutatedText(fc.tuple(ipText, fc.nat({ max: 130 })).map(([ip, p]) => `${ip}/${p}`)),
    run: (text) =>
      check(
        text,
        (s) => parseCIDR(s),
        formatCIDR,
        (a, b) => a.family === b.family && a.ip === b.ip && a.prefix === b.prefix,
      ),
  },
  {
    name: 'addr/mac',
    arbitrary: mutatedText(fc.integer({ min: 0, max: 0xffffffffffff }).map(formatMAC)),
    run: (text) => check(text, parseMAC, formatMAC, (a, b) => a === b),
  },
];

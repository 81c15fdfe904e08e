import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  AddressParseError,
  containsIP,
  formatCIDR,
  formatIPv4,
  formatIPv6,
  formatMAC,
  isLocalMAC,
  isMulticastMAC,
  lastIP,
  networkOf,
  nextIP,
  nthIP,
  overlaps,
  parseCIDR,
  parseIP,
  parseIPv4,
  parseIPv6,
  parseMAC,
  prevIP,
  rangeToCIDRs,
  sizeOf,
  tryParseIPv4,
  tryParseIPv6,
  formatIP,
} from './index.ts';
import { fcParams } from '../../test/fc.ts';

describe('IPv4', () => {
  it('parses and formats', () => {
    expect(parseIPv4('10.16.0.1')).toBe(0x0a100001);
    expect(parseIPv4('255.255.255.255')).toBe(0xffffffff);
    expect(formatIPv4(0xc0a80001)).toBe('192.168.0.1');
  });
  it.each(['', '1.2.3', '1.2.3.4.5', '256.0.0.1', '01.2.3.4', '1..2.3', 'a.b.c.d', '1.2.3.4 ', '-1.2.3.4'])(
    'rejects %j with a typed error naming the text',
    (text) => {
      expect(tryParseIPv4(text)).toBeUndefined();
      expect(() => parseIPv4(text)).toThrowError(AddressParseError);
      try {
        parseIPv4(text);
      } catch (e) {
        expect((e as AddressParseError).code).toBe('invalid-ipv4');
        expect((e as Error).message).toContain(JSON.stringify(text));
      }
    },
  );
  it('round-trips every uint32', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (n) => parseIPv4(formatIPv4(n)) === n),
      fcParams(),
    );
  });
});

describe('IPv6', () => {
  it('formats per RFC 5952', () => {
    expect(formatIPv6(parseIPv6('2001:0db8:0000:0000:0000:0000:0000:0001'))).toBe('2001:db8::1');
    expect(formatIPv6(parseIPv6('2001:db8:0:0:1:0:0:1'))).toBe('2001:db8::1:0:0:1');
    expect(formatIPv6(parseIPv6('2001:db8:0:1:1:1:1:1'))).toBe('2001:db8:0:1:1:1:1:1');
    expect(formatIPv6(0n)).toBe('::');
    expect(formatIPv6(1n)).toBe('::1');
    expect(formatIPv6(parseIPv6('fd00:10:16::'))).toBe('fd00:10:16::');
    expect(formatIPv6(parseIPv6('::ffff:10.0.0.1'))).toBe('::ffff:10.0.0.1');
    expect(formatIPv6(parseIPv6('2001:DB8::A'))).toBe('2001:db8::a');
  });
  it.each([':', ':::', '1::2::3', '12345::', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', 'g::1', '::1.2.3', 'fe80::1%eth0'])(
    'rejects %j',
    (text) => {
      expect(tryParseIPv6(text)).toBeUndefined();
      expect(() => parseIPv6(text)).toThrowError(/not an IPv6 address/);
    },
  );
  it('round-trips every 128-bit value', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (n) => parseIPv6(formatIPv6(n)) === n),
      fcParams(),
    );
  });
});

describe('MAC', () => {
  it('parses, formats, classifies', () => {
    const m = parseMAC('0A:58:0a:10:00:05');
    expect(formatMAC(m)).toBe('0a:58:0a:10:00:05');
    expect(isLocalMAC(m)).toBe(true);
    expect(isMulticastMAC(m)).toBe(false);
    expect(isMulticastMAC(parseMAC('ff:ff:ff:ff:ff:ff'))).toBe(true);
    expect(isMulticastMAC(parseMAC('01:00:5e:00:00:01'))).toBe(true);
    expect(() => parseMAC('0a:58:0a:10:00')).toThrowError(/not a MAC address: "0a:58:0a:10:00"/);
  });
  it('round-trips every 48-bit value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 1 }), (n) => parseMAC(formatMAC(n)) === n),
      fcParams(),
    );
  });
});

describe('CIDR', () => {
  it('parses, keeps host bits, computes network and size', () => {
    const c = parseCIDR('10.16.0.1/16');
    expect(formatCIDR(c)).toBe('10.16.0.1/16');
    expect(formatCIDR(networkOf(c))).toBe('10.16.0.0/16');
    expect(formatIP(lastIP(c))).toBe('10.16.255.255');
    expect(sizeOf(c)).toBe(65536n);
    expect(formatIP(nthIP(c, 1)!)).toBe('10.16.0.1');
    expect(formatIP(nthIP(c, -2)!)).toBe('10.16.255.254');
    expect(nthIP(c, 65536)).toBeUndefined();
    expect(sizeOf(parseCIDR('fd00::/64'))).toBe(1n << 64n);
  });
  it('rejects malformed and host-bit CIDRs with typed errors', () => {
    expect(() => parseCIDR('10.16.0.0')).toThrowError(/missing "\/prefix"/);
    expect(() => parseCIDR('10.16.0.0/33')).toThrowError(/bad prefix length/);
    expect(() => parseCIDR('10.16.0.0/016')).toThrowError(AddressParseError);
    expect(() => parseCIDR('10.16.0.300/16')).toThrowError(/not a CIDR/);
    expect(() => parseCIDR('10.16.0.1/16', { strict: true })).toThrowError(/did you mean 10.16.0.0\/16/);
    expect(formatCIDR(parseCIDR('fd00::1', { allowBare: true }))).toBe('fd00::1/128');
  });
  it('containment and overlap', () => {
    const a = parseCIDR('10.16.0.0/16');
    expect(containsIP(a, parseIP('10.16.255.1'))).toBe(true);
    expect(containsIP(a, parseIP('10.17.0.1'))).toBe(false);
    expect(containsIP(a, parseIP('::1'))).toBe(false);
    expect(overlaps(a, parseCIDR('10.16.8.0/24'))).toBe(true);
    expect(overlaps(a, parseCIDR('10.0.0.0/8'))).toBe(true);
    expect(overlaps(a, parseCIDR('10.17.0.0/16'))).toBe(false);
    expect(overlaps(parseCIDR('0.0.0.0/0'), parseCIDR('fd00::/8'))).toBe(false);
  });
  it('next/prev stop at the ends of the space', () => {
    expect(nextIP(parseIP('255.255.255.255'))).toBeUndefined();
    expect(prevIP(parseIP('0.0.0.0'))).toBeUndefined();
    expect(formatIP(nextIP(parseIP('10.0.0.255'))!)).toBe('10.0.1.0');
    expect(formatIP(prevIP(parseIP('fd00::'))!)).toBe('fcff:ffff:ffff:ffff:ffff:ffff:ffff:ffff');
  });
  it('rangeToCIDRs covers exactly the range', () => {
    expect(rangeToCIDRs(parseIP('10.0.0.1'), parseIP('10.0.0.6')).map(formatCIDR)).toEqual([
      '10.0.0.1/32',
      '10.0.0.2/31',
      '10.0.0.4/31',
      '10.0.0.6/32',
    ]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 5000 }), (lo, span) => {
        const hi = Math.min(0xffffffff, lo + span);
        const cidrs = rangeToCIDRs({ family: 4, value: lo }, { family: 4, value: hi });
        let total = 0n;
        let expectNext = BigInt(lo);
        for (const c of cidrs) {
          if (BigInt(c.ip) !== expectNext) return false;
          total += sizeOf(c);
          expectNext += sizeOf(c);
        }
        return total === BigInt(hi - lo + 1);
      }),
      fcParams(),
    );
  });
});

// Cross-check against an independent implementation (ip-num, which kovn uses only for
// validation off the hot path): every address our formatter writes, ip-num reads as the same
// value, and every address ip-num writes (uncompressed IPv6, CIDR ranges), we read as the same.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { IPv4, IPv4CidrRange, IPv6, IPv6CidrRange } from 'ip-num';
import { fcParams } from '../../test/fc.ts';
import {
  firstIP,
  formatCIDR,
  formatIPv4,
  formatIPv6,
  lastIP,
  networkOf,
  parseCIDR,
  parseIPv4,
  parseIPv6,
} from './index.ts';

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const u128 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });

describe('addresses agree with ip-num', () => {
  it('IPv4 both ways', () => {
    fc.assert(
      fc.property(u32, (n) => {
        expect(IPv4.fromString(formatIPv4(n)).value).toBe(BigInt(n));
        expect(parseIPv4(IPv4.fromNumber(BigInt(n)).toString())).toBe(n);
      }),
      fcParams(),
    );
  });

  it('IPv6 both ways (our RFC 5952 text, ip-num expanded text)', () => {
    fc.assert(
      fc.property(u128, (n) => {
        expect(IPv6.fromString(formatIPv6(n)).value).toBe(n);
        expect(parseIPv6(IPv6.fromBigInt(n).toString())).toBe(n);
      }),
      fcParams(),
    );
  });

  it('CIDR network and last address', () => {
    fc.assert(
      fc.property(u32, fc.integer({ min: 0, max: 32 }), (n, prefix) => {
        const ours = networkOf(parseCIDR(`${formatIPv4(n)}/${prefix}`));
        const theirs = IPv4CidrRange.fromCidr(formatCIDR(ours));
        expect(theirs.getFirst().value).toBe(BigInt(firstIP(ours).value as number));
        expect(theirs.getLast().value).toBe(BigInt(lastIP(ours).value as number));
      }),
      fcParams(),
    );
    fc.assert(
      fc.property(u128, fc.integer({ min: 1, max: 128 }), (n, prefix) => {
        const ours = networkOf(parseCIDR(`${formatIPv6(n)}/${prefix}`));
        const theirs = IPv6CidrRange.fromCidr(formatCIDR(ours));
        expect(theirs.getFirst().value).toBe(firstIP(ours).value);
        expect(theirs.getLast().value).toBe(lastIP(ours).value);
      }),
      fcParams(),
    );
  });
});

/**
 * Address parse errors. Parsing untrusted text (a manifest's CIDR, an OVSDB
 * column) either throws {@link AddressParseError} (`parseX`) or returns
 * `undefined` (`tryParseX`); validators turn the latter into issues as data.
 */

export type AddressErrorCode =
  | 'invalid-ipv4'
  | 'invalid-ipv6'
  | 'invalid-ip'
  | 'invalid-mac'
  | 'invalid-cidr'
  | 'invalid-prefix'
  | 'host-bits-set';

/**
 * Thrown by `parseX` helpers. `text` is the offending input, quoted in the message.
 *
 * @example
 * try { parseIPv4('10.0.0.256') } catch (e) { (e as AddressParseError).code } // 'invalid-ipv4'
 */
export class AddressParseError extends Error {
  override readonly name = 'AddressParseError';
  constructor(
    readonly code: AddressErrorCode,
    readonly text: string,
    detail?: string,
  ) {
    super(`${describe(code)} ${JSON.stringify(text)}${detail ? `: ${detail}` : ''}`);
  }
}

function describe(code: AddressErrorCode): string {
  switch (code) {
    case 'invalid-ipv4':
      return 'not an IPv4 address:';
    case 'invalid-ipv6':
      return 'not an IPv6 address:';
    case 'invalid-ip':
      return 'not an IP address:';
    case 'invalid-mac':
      return 'not a MAC address:';
    case 'invalid-cidr':
      return 'not a CIDR:';
    case 'invalid-prefix':
      return 'bad prefix length in';
    case 'host-bits-set':
      return 'host bits set in CIDR';
  }
}

/**
 * Parsing of the address-bearing NB columns the pipelines depend on:
 * Logical_Switch_Port `addresses` and `port_security`, Logical_Router_Port
 * `mac` and `networks`. Malformed entries are skipped (northd logs and
 * ignores them too); the caller reports them as issues.
 */
import { type CIDR, maskV4, maskV6, tryParseCIDR, tryParseMAC } from '../../model/addr/index.ts';

/** One "MAC [IP...]" entry of `addresses` (IPs without their prefix). */
export interface LspAddress {
  readonly mac: number;
  readonly ip4: readonly number[];
  readonly ip6: readonly bigint[];
}

/** A port_security IP entry: an exact address, or a whole subnet when its host bits are zero. */
export interface PsIP<T extends number | bigint> {
  readonly ip: T;
  readonly prefix: number;
  /** True when the entry allows the whole subnet (host bits zero and prefix < full). */
  readonly subnet: boolean;
}

/** One "MAC [IP or CIDR...]" entry of `port_security`. */
export interface PortSecurityEntry {
  readonly mac: number;
  readonly ip4: readonly PsIP<number>[];
  readonly ip6: readonly PsIP<bigint>[];
}

/**
 * A Map/Set key for an address of either family: the address itself. An
 * IPv4 address is a number and an IPv6 one a bigint, and a Map tells `1`
 * from `1n`, so `10.0.0.1` and `::a00:1` are different keys (a key made
 * with `String(ip)` would merge them) and the hot path converts nothing.
 */
export type IpKey = number | bigint;
export const ipKey = (ip: number | bigint): IpKey => ip;

/** A router port network: the port's own address and its subnet. */
export interface RouterNetwork {
  readonly family: 4 | 6;
  readonly ip: number | bigint;
  readonly prefix: number;
  /** The subnet address (host bits cleared). */
  readonly network: number | bigint;
}

function splitWords(entry: string): string[] {
  return entry
    .trim()
    .split(/\s+/)
    .filter((w) => w.length > 0);
}

/** "MAC IP..." → address; "unknown"/"router"/"dynamic" forms → undefined. */
export function parseLspAddress(entry: string): LspAddress | undefined {
  const [first, ...rest] = splitWords(entry);
  const mac = first === undefined ? undefined : tryParseMAC(first);
  if (mac === undefined) return undefined;
  const ip4: number[] = [];
  const ip6: bigint[] = [];
  for (const w of rest) {
    const c = tryParseCIDR(w, { allowBare: true });
    if (c === undefined) return undefined;
    if (c.family === 4) ip4.push(c.ip);
    else ip6.push(c.ip);
  }
  return { mac, ip4, ip6 };
}

function psIP(c: CIDR): PsIP<number> | PsIP<bigint> {
  if (c.family === 4) {
    const hostZero = (c.ip & ~maskV4(c.prefix)) >>> 0 === 0;
    return { ip: c.ip, prefix: c.prefix, subnet: c.prefix < 32 && hostZero };
  }
  const hostZero = (c.ip & ~maskV6(c.prefix) & ((1n << 128n) - 1n)) === 0n;
  return { ip: c.ip, prefix: c.prefix, subnet: c.prefix < 128 && hostZero };
}

export function parsePortSecurity(entry: string): PortSecurityEntry | undefined {
  const [first, ...rest] = splitWords(entry);
  const mac = first === undefined ? undefined : tryParseMAC(first);
  if (mac === undefined) return undefined;
  const ip4: PsIP<number>[] = [];
  const ip6: PsIP<bigint>[] = [];
  for (const w of rest) {
    const c = tryParseCIDR(w, { allowBare: true });
    if (c === undefined) return undefined;
    if (c.family === 4) ip4.push(psIP(c) as PsIP<number>);
    else ip6.push(psIP(c) as PsIP<bigint>);
  }
  return { mac, ip4, ip6 };
}

export function parseRouterNetwork(text: string): RouterNetwork | undefined {
  const c = tryParseCIDR(text);
  if (c === undefined) return undefined;
  if (c.family === 4) return { family: 4, ip: c.ip, prefix: c.prefix, network: (c.ip & maskV4(c.prefix)) >>> 0 };
  return { family: 6, ip: c.ip, prefix: c.prefix, network: c.ip & maskV6(c.prefix) };
}

/** The EUI-64 link-local address OVN derives from a MAC (in6_generate_lla). */
export function linkLocalOf(mac: number): bigint {
  const hi = Math.floor(mac / 0x1000000);
  const lo = mac % 0x1000000;
  const eui = (BigInt(hi ^ 0x020000) << 40n) | (0xfffen << 24n) | BigInt(lo);
  return (0xfe80n << 112n) | eui;
}

/** Whether an address is inside a router network's subnet. */
export function inNetwork(n: RouterNetwork, ip: number | bigint): boolean {
  if (n.family === 4) return typeof ip === 'number' && (ip & maskV4(n.prefix)) >>> 0 === n.network;
  return typeof ip === 'bigint' && (ip & maskV6(n.prefix)) === n.network;
}

/** Whether `ip` is in a CIDR given as address + prefix of the same family. */
export function inPrefix(net: number | bigint, prefix: number, ip: number | bigint): boolean {
  if (typeof net === 'number') return typeof ip === 'number' && ((ip ^ net) & maskV4(prefix)) >>> 0 === 0;
  return typeof ip === 'bigint' && ((ip ^ net) & maskV6(prefix)) === 0n;
}

/** The broadcast address of an IPv4 router network. */
export function broadcastOf(n: RouterNetwork): number | undefined {
  if (n.family !== 4) return undefined;
  return (Number(n.network) | (~maskV4(n.prefix) >>> 0)) >>> 0;
}

/**
 * A Subnet's IPAM fields (Kube-OVN `spec.cidrBlock`, `spec.gateway`,
 * `spec.excludeIps`, `spec.vpc`) validated into numbers. Every problem is
 * reported, each naming the subnet and the field; nothing is clipped or
 * fixed up silently (Kube-OVN drops out-of-CIDR excludes without a word).
 */
import { type CIDR, AddressParseError, firstIP, lastIP, maxPrefix, parseCIDR, tryParseIP } from '../addr/index.ts';
import { type IpamIssue, type IssuePath, issue, q } from './errors.ts';
import { type Addr, ARITH4, ARITH6, normalize } from './range-list.ts';

export type SubnetSpec = {
  readonly name: string;
  /** "10.16.0.0/16", "fd00:10:16::/64" or dual stack "10.16.0.0/16,fd00:10:16::/64". */
  readonly cidrBlock: string;
  /** One address per family ("v4,v6" when dual stack); default: the first address after the network's. */
  readonly gateway?: string;
  /** Single addresses and "a..b" ranges, of either family. */
  readonly excludeIps?: readonly string[];
  /** Subnets of one VPC must not overlap; default "ovn-cluster". */
  readonly vpc?: string;
};

/** One family of a subnet, as numbers (IPv4) or bigints (IPv6). */
export type FamilyConfig<T extends Addr> = {
  readonly cidr: CIDR;
  readonly network: T;
  readonly last: T;
  readonly gateway: T;
  /** Network, gateway and IPv4 broadcast, sorted: never handed out, not even on request. */
  readonly fixed: readonly T[];
  /** excludeIps of this family, normalized flat `[s0, e0, ...]`: skipped by dynamic allocation only. */
  readonly excludes: readonly T[];
};

export type SubnetConfig = {
  readonly name: string;
  readonly vpc: string;
  readonly v4?: FamilyConfig<number>;
  readonly v6?: FamilyConfig<bigint>;
  readonly spec: SubnetSpec;
};

export const DEFAULT_VPC = 'ovn-cluster';

const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export type ParseResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly IpamIssue[] };

/**
 * @example
 * parseSubnetSpec({ name: 'ovn-default', cidrBlock: '10.16.0.0/16', excludeIps: ['10.16.0.2..10.16.0.9'] })
 * // { ok: true, value: { v4: { gateway: 0x0a100001, ... } } }
 */
export function parseSubnetSpec(spec: SubnetSpec): ParseResult<SubnetConfig> {
  const issues: IpamIssue[] = [];
  const base: IssuePath = ['subnets', spec.name];
  const at = (field: string, i?: number): IssuePath => (i === undefined ? [...base, field] : [...base, field, i]);
  const who = `subnet ${q(spec.name)}`;
  if (spec.name.length === 0 || spec.name.length > 253 || !DNS1123.test(spec.name)) {
    issues.push(
      issue('invalid-name', [...base, 'name'], `${who}: name must be a DNS-1123 subdomain`, { subnet: spec.name }),
    );
  }
  const cidrs = parseCidrBlock(spec, at('cidrBlock'), who, issues);
  const gateways = parseGateway(spec, cidrs, at('gateway'), who, issues);
  const pairs4: [number, number][] = [];
  const pairs6: [bigint, bigint][] = [];
  (spec.excludeIps ?? []).forEach((entry, i) => {
    const r = parseRangeEntry(entry);
    const path = at('excludeIps', i);
    if (typeof r === 'string') {
      issues.push(issue('invalid-exclude', path, `${who}: excludeIps[${i}] ${q(entry)}: ${r}`, { subnet: spec.name }));
      return;
    }
    const c = r.family === 4 ? cidrs.v4 : cidrs.v6;
    if (!c || !inCidr(c, r.start) || !inCidr(c, r.end)) {
      issues.push(
        issue(
          'exclude-outside-cidr',
          path,
          `${who}: excludeIps[${i}] ${q(entry)} is not inside cidrBlock ${q(spec.cidrBlock)}`,
          { subnet: spec.name },
        ),
      );
      return;
    }
    if (r.family === 4) pairs4.push([r.start as number, r.end as number]);
    else pairs6.push([r.start as bigint, r.end as bigint]);
  });
  if (issues.length > 0) return { ok: false, issues };
  const config: SubnetConfig = {
    name: spec.name,
    vpc: spec.vpc ?? DEFAULT_VPC,
    spec,
    ...(cidrs.v4 ? { v4: familyConfig(cidrs.v4, gateways.v4 as number, normalize(ARITH4, pairs4)) } : {}),
    ...(cidrs.v6 ? { v6: familyConfig(cidrs.v6, gateways.v6 as bigint, normalize(ARITH6, pairs6)) } : {}),
  };
  return { ok: true, value: config };
}

type Cidrs = { v4?: CIDR; v6?: CIDR };

function parseCidrBlock(spec: SubnetSpec, path: IssuePath, who: string, issues: IpamIssue[]): Cidrs {
  const out: Cidrs = {};
  const parts = spec.cidrBlock.split(',');
  const bad = (message: string) =>
    issues.push(
      issue('invalid-cidr', path, `${who}: cidrBlock ${q(spec.cidrBlock)}: ${message}`, { subnet: spec.name }),
    );
  if (parts.length > 2) {
    bad('at most two CIDRs (one IPv4, one IPv6)');
    return out;
  }
  for (const part of parts) {
    let c: CIDR;
    try {
      c = parseCIDR(part, { strict: true });
    } catch (e) {
      bad(e instanceof AddressParseError ? e.message : String(e));
      continue;
    }
    if (c.prefix >= maxPrefix(c.family)) {
      bad(`/${c.prefix} leaves no address besides the gateway`);
      continue;
    }
    const key = c.family === 4 ? 'v4' : 'v6';
    if (out[key]) bad(`two IPv${c.family} CIDRs`);
    else out[key] = c;
  }
  return out;
}

function parseGateway(
  spec: SubnetSpec,
  cidrs: Cidrs,
  path: IssuePath,
  who: string,
  issues: IpamIssue[],
): { v4?: Addr; v6?: Addr } {
  const out: { v4?: Addr; v6?: Addr } = {};
  if (spec.gateway !== undefined && spec.gateway !== '') {
    for (const text of spec.gateway.split(',')) {
      const ip = tryParseIP(text);
      const key = ip?.family === 4 ? 'v4' : 'v6';
      if (!ip || out[key] !== undefined) {
        issues.push(
          issue(
            'invalid-gateway',
            path,
            `${who}: gateway ${q(spec.gateway)}: ${ip ? `two IPv${ip.family} addresses` : `${q(text)} is not an IP address`}`,
            { subnet: spec.name },
          ),
        );
        continue;
      }
      const c = cidrs[key];
      if (!c || !inCidr(c, ip.value) || isNetworkOrBroadcast(c, ip.value)) {
        const why = c && inCidr(c, ip.value) ? 'is the network or broadcast address of' : 'is not inside';
        issues.push(
          issue('gateway-outside-cidr', path, `${who}: gateway ${q(text)} ${why} cidrBlock ${q(spec.cidrBlock)}`, {
            subnet: spec.name,
          }),
        );
        continue;
      }
      out[key] = ip.value;
    }
  }
  // Kube-OVN's default (GetGwByCidr / AppendGwByCidr): the first usable address.
  if (cidrs.v4 && out.v4 === undefined) out.v4 = firstUsable(cidrs.v4);
  if (cidrs.v6 && out.v6 === undefined) out.v6 = firstUsable(cidrs.v6);
  return out;
}

/** A single address or an "a..b" range of one family, or why not. */
export function parseRangeEntry(entry: string): { family: 4 | 6; start: Addr; end: Addr } | string {
  const parts = entry.split('..');
  if (parts.length > 2) return 'expected an address or "a..b"';
  const a = tryParseIP(parts[0]!);
  const b = parts.length === 2 ? tryParseIP(parts[1]!) : a;
  if (!a || !b) return `${q(!a ? parts[0] : parts[1])} is not an IP address`;
  if (a.family !== b.family) return 'mixes IPv4 and IPv6';
  if (a.value > b.value) return 'start is after end';
  return { family: a.family, start: a.value, end: b.value };
}

export function inCidr(c: CIDR, v: Addr): boolean {
  return firstIP(c).value <= v && v <= lastIP(c).value;
}

/** Network and IPv4 broadcast; /31 and /127 are point-to-point links where both ends are usable (RFC 3021). */
function isNetworkOrBroadcast(c: CIDR, v: Addr): boolean {
  if (c.prefix >= maxPrefix(c.family) - 1) return false;
  return v === firstIP(c).value || (c.family === 4 && v === lastIP(c).value);
}

function firstUsable(c: CIDR): Addr {
  const net = firstIP(c).value;
  if (c.prefix >= maxPrefix(c.family) - 1) return net;
  return typeof net === 'bigint' ? net + 1n : net + 1;
}

function familyConfig<T extends Addr>(cidr: CIDR, gateway: T, excludes: T[]): FamilyConfig<T> {
  const network = firstIP(cidr).value as T;
  const last = lastIP(cidr).value as T;
  const fixed = new Set<T>([gateway]);
  if (cidr.prefix < maxPrefix(cidr.family) - 1) {
    fixed.add(network);
    if (cidr.family === 4) fixed.add(last);
  }
  return { cidr, network, last, gateway, fixed: [...fixed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), excludes };
}

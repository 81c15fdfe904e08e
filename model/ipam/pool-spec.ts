/**
 * Kube-OVN IPPools (`kubeovn.io/v1` IPPool `spec.subnet`, `spec.ips`,
 * `spec.namespaces`): a subset of one subnet's addresses, handed out only to
 * pods that ask for the pool or live in one of its namespaces.
 */
import { AddressParseError, firstIP, lastIP, parseCIDR } from '../addr/index.ts';
import { type IpamIssue, type IssuePath, issue, q } from './errors.ts';
import { ARITH4, ARITH6, intersect, normalize } from './range-list.ts';
import { type ParseResult, type SubnetConfig, inCidr, parseRangeEntry } from './subnet-spec.ts';

export type IPPoolSpec = {
  readonly name: string;
  readonly subnet: string;
  /** Single addresses, "a..b" ranges and CIDRs, of either family. */
  readonly ips: readonly string[];
  readonly namespaces?: readonly string[];
};

export type PoolConfig = {
  readonly name: string;
  readonly namespaces: readonly string[];
  /** The pool's addresses, normalized flat lists per family. */
  readonly v4: readonly number[];
  readonly v6: readonly bigint[];
  readonly spec: IPPoolSpec;
};

/**
 * @example
 * parsePoolSpec({ name: 'p1', subnet: 'ovn-default', ips: ['10.16.0.0/24'] }, subnetConfig)
 */
export function parsePoolSpec(spec: IPPoolSpec, subnet: SubnetConfig): ParseResult<PoolConfig> {
  const issues: IpamIssue[] = [];
  const who = `ippool ${q(spec.name)}`;
  const pairs4: [number, number][] = [];
  const pairs6: [bigint, bigint][] = [];
  if (spec.name.length === 0)
    issues.push(issue('invalid-name', ['ippools', spec.name, 'name'], `${who}: name is empty`));
  spec.ips.forEach((entry, i) => {
    const path: IssuePath = ['ippools', spec.name, 'ips', i];
    const r = parsePoolEntry(entry);
    if (typeof r === 'string') {
      issues.push(issue('invalid-pool-ip', path, `${who}: ips[${i}] ${q(entry)}: ${r}`, { subnet: spec.subnet }));
      return;
    }
    const fam = r.family === 4 ? subnet.v4 : subnet.v6;
    if (!fam || !inCidr(fam.cidr, r.start) || !inCidr(fam.cidr, r.end)) {
      issues.push(
        issue(
          'pool-ip-outside-cidr',
          path,
          `${who}: ips[${i}] ${q(entry)} is not inside subnet ${q(subnet.name)} cidrBlock ${q(subnet.spec.cidrBlock)}`,
          { subnet: spec.subnet },
        ),
      );
      return;
    }
    if (r.family === 4) pairs4.push([r.start as number, r.end as number]);
    else pairs6.push([r.start as bigint, r.end as bigint]);
  });
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    value: {
      name: spec.name,
      namespaces: [...(spec.namespaces ?? [])],
      v4: normalize(ARITH4, pairs4),
      v6: normalize(ARITH6, pairs6),
      spec,
    },
  };
}

/**
 * IPPool `spec.ips` entry: an address, "a..b", or a CIDR (all its addresses).
 * A CIDR with host bits set is its network, as Go's net.ParseCIDR reads it
 * and Kube-OVN with it (the controller reports such an entry).
 */
function parsePoolEntry(entry: string): { family: 4 | 6; start: number | bigint; end: number | bigint } | string {
  if (!entry.includes('/')) return parseRangeEntry(entry);
  try {
    const c = parseCIDR(entry);
    return { family: c.family, start: firstIP(c).value, end: lastIP(c).value };
  } catch (e) {
    return e instanceof AddressParseError ? e.message : String(e);
  }
}

/** Issues for addresses two pools of one subnet share (Kube-OVN refuses those too). */
export function poolOverlaps(pool: PoolConfig, others: readonly PoolConfig[]): IpamIssue[] {
  const out: IpamIssue[] = [];
  for (const o of others) {
    if (o.name === pool.name) continue;
    if (intersect(pool.v4, o.v4).length > 0 || intersect(pool.v6, o.v6).length > 0) {
      out.push(
        issue(
          'pool-overlap',
          ['ippools', pool.name, 'ips'],
          `ippool ${q(pool.name)}: ips overlap ippool ${q(o.name)} in subnet ${q(pool.spec.subnet)}`,
          { subnet: pool.spec.subnet },
        ),
      );
    }
  }
  return out;
}

/**
 * IPPool `enableAddressSet` → the address set Kube-OVN keeps for the pool
 * (pkg/controller/ippool.go reconcileIPPoolAddressSet, pkg/util/ippool.go):
 * named after the pool with `-` → `.` (IPPoolAddressSetName, no prefix),
 * `external_ids:ippool=<name>`, its entries each `ips` entry as OVN takes
 * them: a range `a..b` as the fewest CIDRs covering it, a CIDR as its
 * network, a single address without `/32` or `/128`; deduplicated and sorted
 * as Go's sort.Strings sorts. Subnet `acls` and Vpc `policyRoutes` matches
 * name it as `$<set>`. A pool mixing families has no set (an OVN address set
 * holds one family): Kube-OVN refuses the whole pool then.
 */
import { formatCIDR, formatIP, networkOf, rangeToCIDRs, tryParseCIDR, tryParseIP } from '../../model/addr/index.ts';
import type { AddressSet } from '../../model/topology/index.ts';
import type { TranslateIssue, Translation } from './issues.ts';
import { dotted } from './names.ts';

/**
 * @example ippoolAddressSetName('ops-pool') // 'ops.pool'
 */
export const ippoolAddressSetName = (pool: string): string => dotted(pool);

/** `/32` and `/128` dropped, as simplifyOVNAddress does. */
const simplify = (cidr: string): string => cidr.replace(/\/(32|128)$/, '');

/** One entry as OVN address set members, or a message saying why not. */
function expand(entry: string): string[] | string {
  const v = entry.trim();
  if (v === '') return [];
  if (v.includes('..')) {
    const [a, b, ...rest] = v.split('..');
    const first = tryParseIP(a ?? '');
    const last = tryParseIP(b ?? '');
    if (rest.length > 0 || first === undefined || last === undefined || first.family !== last.family)
      return `invalid IP range ${JSON.stringify(v)}`;
    if (first.value > last.value) return `range ${JSON.stringify(v)} start is greater than end`;
    return rangeToCIDRs(first, last).map(formatCIDR);
  }
  if (v.includes('/')) {
    const c = tryParseCIDR(v);
    return c === undefined ? `invalid CIDR ${JSON.stringify(v)}` : [formatCIDR(networkOf(c))];
  }
  const ip = tryParseIP(v);
  return ip === undefined
    ? `invalid IP address ${JSON.stringify(v)}`
    : [`${formatIP(ip)}/${ip.family === 4 ? 32 : 128}`];
}

/**
 * The pool's address set, or none (with an issue) when its entries do not expand or mix families.
 *
 * @example ippoolAddressSet('ops', ['10.16.0.200..10.16.0.203', '10.16.0.9']).value?.addresses
 * // ['10.16.0.200/30', '10.16.0.9']
 */
export function ippoolAddressSet(pool: string, ips: readonly string[]): Translation<AddressSet | undefined> {
  const issues: TranslateIssue[] = [];
  const seen = new Set<string>();
  ips.forEach((entry, i) => {
    const r = expand(entry);
    if (typeof r === 'string')
      issues.push({ code: 'invalid-address', object: `IPPool/${pool}`, field: `spec.ips[${i}]`, message: r });
    else for (const c of r) seen.add(c);
  });
  const all = [...seen];
  if (all.some((c) => c.includes(':')) && all.some((c) => !c.includes(':')))
    issues.push({
      code: 'invalid-value',
      object: `IPPool/${pool}`,
      field: 'spec.ips',
      message: 'mixed IPv4 and IPv6 addresses are not supported in an OVN address set (spec.enableAddressSet)',
    });
  if (issues.length > 0) return { value: undefined, issues };
  // Go's sort.Strings: byte order, which is JavaScript's default sort for these ASCII strings.
  const addresses = all.sort().map(simplify);
  return { value: { name: ippoolAddressSetName(pool), addresses, externalIds: { ippool: pool } }, issues };
}

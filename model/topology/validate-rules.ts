/**
 * Value checks for rule-like rows: ACL, QoS, NAT, static routes and router
 * policies (priorities, names, addresses, families), as ovn-nb(5) and
 * ovn-northd 23.03 (lrouter_check_nat_entry, parsed_routes_add) define them.
 */
import { tryParseIP, tryParseMAC } from '../addr/index.ts';
import type { ACL, NAT, QoS, RouterPolicy, StaticRoute } from './types.ts';
import {
  type IssueSink,
  PRIORITY,
  UINT32_MAX,
  checkIntRange,
  q,
  rowReport,
  tryParseHostIP,
  tryParseIPOrCIDR,
} from './validate-common.ts';

/** NB `ACL.name` maxLength. */
export const ACL_NAME_MAX = 63;

export function checkAcl(sink: IssueSink, key: string, a: ACL): void {
  const report = rowReport(sink, 'acl', key);
  checkIntRange(report, ['priority'], a.priority, PRIORITY);
  checkIntRange(report, ['label'], a.label, { code: 'out-of-range', min: 0, max: UINT32_MAX });
  if (a.name !== undefined && a.name.length > ACL_NAME_MAX) {
    report('name-too-long', ['name'], `has ${a.name.length} characters; NB allows at most ${ACL_NAME_MAX}`);
  }
}

export function checkQos(sink: IssueSink, key: string, qos: QoS): void {
  const report = rowReport(sink, 'qos', key);
  checkIntRange(report, ['priority'], qos.priority, PRIORITY);
  checkIntRange(report, ['action', 'dscp'], qos.action.dscp, { code: 'out-of-range', min: 0, max: 63 });
  for (const f of ['rate', 'burst'] as const) {
    checkIntRange(report, ['bandwidth', f], qos.bandwidth[f], { code: 'out-of-range', min: 1, max: UINT32_MAX });
  }
}

/**
 * External IP: one address. Logical IP: one address, or a CIDR for snat.
 * Both of one family. External MAC (distributed FIP) a MAC; port range
 * "port" or "low-high".
 */
export function checkNat(sink: IssueSink, key: string, n: NAT): void {
  const report = rowReport(sink, 'nat', key);
  const ext = tryParseIP(n.externalIp);
  if (!ext) report('invalid-address', ['externalIp'], `${q(n.externalIp)} is not an IP address`);
  const logical = n.type === 'snat' ? tryParseIPOrCIDR(n.logicalIp) : tryParseHostIP(n.logicalIp);
  if (!logical) {
    const want =
      n.type === 'snat'
        ? 'an IP address or CIDR'
        : `an IP address (a CIDR is allowed only for snat, this is ${n.type})`;
    report('invalid-address', ['logicalIp'], `${q(n.logicalIp)} is not ${want}`);
  }
  if (ext && logical && ext.family !== logical.family) {
    report('family-mismatch', ['logicalIp'], `${q(n.logicalIp)} is not of the external IP's family (IPv${ext.family})`);
  }
  if (n.externalMac !== undefined && tryParseMAC(n.externalMac) === undefined) {
    report('invalid-mac', ['externalMac'], `${q(n.externalMac)} is not a MAC address`);
  }
  if (n.externalPortRange && !validPortRange(n.externalPortRange)) {
    report(
      'invalid-port-range',
      ['externalPortRange'],
      `${q(n.externalPortRange)} is not "port" or "low-high" within 1..65535`,
    );
  }
}

function validPortRange(text: string): boolean {
  const m = /^([0-9]{1,5})(?:-([0-9]{1,5}))?$/.exec(text);
  if (!m) return false;
  const lo = Number(m[1]);
  const hi = m[2] === undefined ? lo : Number(m[2]);
  return lo >= 1 && hi <= 65535 && lo <= hi;
}

/**
 * Prefix: an address or CIDR. Next hop: "discard", an address of the
 * prefix's family, or "" when an output port says where to send.
 */
export function checkStaticRoute(sink: IssueSink, key: string, r: StaticRoute): void {
  const report = rowReport(sink, 'staticRoute', key);
  const prefix = tryParseIPOrCIDR(r.ipPrefix);
  if (!prefix) report('invalid-cidr', ['ipPrefix'], `${q(r.ipPrefix)} is not an IP prefix`);
  if (r.nexthop === 'discard') return;
  if (r.nexthop === '') {
    if (r.outputPort === undefined) report('missing-nexthop', ['nexthop'], 'is empty and no outputPort is set');
    return;
  }
  const hop = tryParseHostIP(r.nexthop);
  if (!hop) report('invalid-address', ['nexthop'], `${q(r.nexthop)} is not an IP address or "discard"`);
  else if (prefix && hop.family !== prefix.family) {
    report('family-mismatch', ['nexthop'], `${q(r.nexthop)} is not of the prefix's family (IPv${prefix.family})`);
  }
}

/** Reroute needs next hops (addresses of one family); allow and drop take none. */
export function checkRouterPolicy(sink: IssueSink, key: string, p: RouterPolicy): void {
  const report = rowReport(sink, 'routerPolicy', key);
  checkIntRange(report, ['priority'], p.priority, PRIORITY);
  if (p.action !== 'reroute') {
    if (p.nexthops.length === 0) return;
    report('unexpected-nexthop', ['nexthops'], `is set but the action is ${p.action}; only reroute uses next hops`);
    return;
  }
  if (p.nexthops.length === 0) report('missing-nexthop', ['nexthops'], 'is empty; a reroute policy needs at least one');
  let family: number | undefined;
  p.nexthops.forEach((h, i) => {
    const ip = tryParseIP(h);
    if (!ip) return report('invalid-address', ['nexthops', i], `${q(h)} is not an IP address`);
    family ??= ip.family;
    if (ip.family !== family)
      report('family-mismatch', ['nexthops', i], `${q(h)} is not of the first next hop's family (IPv${family})`);
  });
}

/**
 * Value checks for ports and address-bearing rows: switch port addresses and
 * port security, router port MAC and networks, address set entries, load
 * balancer VIPs and backends, DHCP CIDRs. Address forms follow what
 * ovn-northd 23.03 accepts (lib/ovn-util.c extract_lsp_addresses,
 * extract_lrp_networks; lib/lb.c ovn_lb_vip_init).
 */
import { tryParseCIDR, tryParseIP, tryParseMAC } from '../addr/index.ts';
import type { DHCPOptions, LoadBalancer, LogicalRouterPort, LogicalSwitchPort } from './types.ts';
import {
  type Endpoint,
  type IssueSink,
  PRIORITY,
  checkIntRange,
  q,
  rowReport,
  tryParseEndpoint,
  tryParseIPOrCIDR,
} from './validate-common.ts';

/**
 * Why an LSP `addresses` entry is malformed, or undefined when it is fine.
 * Forms: "MAC [IP...]", "unknown", "router" (type router only), "dynamic",
 * "dynamic IPv4", "dynamic IPv6", "dynamic IPv4 IPv6", "MAC dynamic".
 */
export function lspAddressProblem(entry: string, type: LogicalSwitchPort['type']): string | undefined {
  const words = entry.trim().split(/\s+/);
  const [first = '', ...rest] = words;
  if (entry === 'unknown') return undefined;
  if (entry === 'router') return type === 'router' ? undefined : 'is accepted only on a port of type router';
  if (first === 'dynamic') {
    const fams = rest.map((w) => tryParseIP(w)?.family);
    const ok =
      rest.length === 0 ||
      (rest.length === 1 && fams[0] !== undefined) ||
      (rest.length === 2 && fams[0] === 4 && fams[1] === 6);
    return ok ? undefined : 'must be "dynamic", "dynamic IPv4", "dynamic IPv6" or "dynamic IPv4 IPv6"';
  }
  if (tryParseMAC(first) === undefined) return `must start with a MAC address (or be "unknown", "router", "dynamic")`;
  if (rest.length === 1 && rest[0] === 'dynamic') return undefined;
  const bad = rest.find((w) => tryParseIPOrCIDR(w) === undefined);
  return bad === undefined ? undefined : `${JSON.stringify(bad)} is not an IP address`;
}

/** Why a `port_security` entry is malformed ("MAC [IP or CIDR...]"), or undefined. */
export function portSecurityProblem(entry: string): string | undefined {
  const [mac = '', ...rest] = entry.trim().split(/\s+/);
  if (tryParseMAC(mac) === undefined) return 'must start with a MAC address';
  const bad = rest.find((w) => tryParseIPOrCIDR(w) === undefined);
  return bad === undefined ? undefined : `${JSON.stringify(bad)} is not an IP address or CIDR`;
}

export function checkSwitchPort(sink: IssueSink, key: string, p: LogicalSwitchPort): void {
  const report = rowReport(sink, 'switchPort', key);
  let dynamics = 0;
  p.addresses.forEach((entry, i) => {
    const problem = lspAddressProblem(entry, p.type);
    if (problem) report('invalid-address', ['addresses', i], `${q(entry)} ${problem}`);
    if (/(^|\s)dynamic(\s|$)/.test(entry) && ++dynamics === 2) {
      report('invalid-address', ['addresses', i], `${q(entry)}: only one "dynamic" entry is allowed`);
    }
  });
  p.portSecurity.forEach((entry, i) => {
    const problem = portSecurityProblem(entry);
    if (problem) report('invalid-address', ['portSecurity', i], `${q(entry)} ${problem}`);
  });
  checkIntRange(report, ['tagRequest'], p.tagRequest, { code: 'out-of-range', min: 0, max: 4095 });
  checkIntRange(report, ['tag'], p.tag, { code: 'out-of-range', min: 1, max: 4095 });
  if (p.type === 'router' && !p.options['router-port']) {
    report('missing-router-port', ['options', 'router-port'], 'is required on a port of type router');
  }
}

export function checkRouterPort(sink: IssueSink, key: string, p: LogicalRouterPort): void {
  const report = rowReport(sink, 'routerPort', key);
  if (tryParseMAC(p.mac) === undefined) report('invalid-mac', ['mac'], `${q(p.mac)} is not a MAC address`);
  if (p.networks.length === 0)
    report('missing-network', ['networks'], 'is empty; a router port needs at least one "IP/prefix"');
  p.networks.forEach((n, i) => {
    if (tryParseCIDR(n) === undefined) report('invalid-cidr', ['networks', i], `${q(n)} is not "IP/prefix"`);
  });
  p.gatewayChassis.forEach((g, i) => checkIntRange(report, ['gatewayChassis', i, 'priority'], g.priority, PRIORITY));
}

export function checkAddressSetEntries(sink: IssueSink, key: string, addresses: readonly string[]): void {
  const report = rowReport(sink, 'addressSet', key);
  addresses.forEach((a, i) => {
    if (tryParseIPOrCIDR(a) === undefined)
      report('invalid-address', ['addresses', i], `${q(a)} is not an IP address or CIDR`);
  });
}

/**
 * Each VIP is "IP[:port]" (IPv6 in brackets with a port); its backends are
 * comma-separated endpoints of the VIP's family, with a port iff the VIP has
 * one. An empty backend list is allowed (the `reject` option answers it).
 */
export function checkLoadBalancer(sink: IssueSink, key: string, lb: LoadBalancer): void {
  const report = rowReport(sink, 'loadBalancer', key);
  for (const [vipText, backends] of Object.entries(lb.vips)) {
    const vip = tryParseEndpoint(vipText);
    if (!vip) {
      report('invalid-vip', ['vips', vipText], 'is not a VIP ("IP", "IP:port" or "[IPv6]:port")');
      continue;
    }
    for (const b of backends.split(',').filter((x) => x !== '')) {
      const problem = backendProblem(vip, tryParseEndpoint(b));
      if (problem) report('invalid-backend', ['vips', vipText], `has backend ${q(b)}, which ${problem}`);
    }
  }
}

function backendProblem(vip: Endpoint, be: Endpoint | undefined): string | undefined {
  if (!be) return 'is not an IP address (with ":port" when the VIP has one)';
  if (be.ip.family !== vip.ip.family) return `is not of the VIP's family (IPv${vip.ip.family})`;
  if (be.port !== undefined && vip.port === undefined) return 'has a port but the VIP has none';
  if (be.port === undefined && vip.port !== undefined) return 'has no port but the VIP has one';
  return undefined;
}

export function checkDhcpOptions(sink: IssueSink, key: string, d: DHCPOptions): void {
  if (tryParseCIDR(d.cidr) === undefined)
    rowReport(sink, 'dhcpOptions', key)('invalid-cidr', ['cidr'], `${q(d.cidr)} is not a CIDR`);
}

/**
 * Validation of a whole topology: every problem as an issue (code, path,
 * message naming the object and field), never stopping at the first.
 *
 * Codes: `key-mismatch`, `invalid-name`, `duplicate-name`,
 * `dangling-reference`, `asymmetric-peer`, `invalid-peer`, `wrong-router`,
 * `missing-router-port`, `family-mismatch`, `bad-priority`, `out-of-range`,
 * `name-too-long`, `invalid-mac`, `invalid-address`, `invalid-cidr`,
 * `missing-network`, `overlapping-networks`, `invalid-vip`,
 * `invalid-backend`, `invalid-port-range`, `missing-nexthop`,
 * `unexpected-nexthop`, `invalid-match`.
 */
import { type CIDR, overlaps, tryParseCIDR } from '../addr/index.ts';
import type { Issue } from '../issues.ts';
import { keyOf } from './keys.ts';
import { validateReferences } from './refs.ts';
import { TABLE_ORDER } from './tables.ts';
import type { TableName, Tables, Topology } from './types.ts';
import { IssueSink, q, rowReport } from './validate-common.ts';
import { checkMatches } from './validate-matches.ts';
import {
  checkAddressSetEntries,
  checkDhcpOptions,
  checkLoadBalancer,
  checkRouterPort,
  checkSwitchPort,
} from './validate-ports.ts';
import { checkAcl, checkNat, checkQos, checkRouterPolicy, checkStaticRoute } from './validate-rules.ts';
import { appendAll } from '../append.ts';

export { validateReferences } from './refs.ts';

/**
 * Every issue of `t`; an empty list means OVN accepts it as kovn means it.
 *
 * @example
 * validateTopology(t)
 * // [{ code: 'dangling-reference', path: ['switchPort', 'web-0.default', 'switch'],
 * //    message: 'switchPort "web-0.default": switch names switch "ovn-default", which does not exist' }]
 */
export function validateTopology(t: Topology): Issue[] {
  const sink = new IssueSink();
  checkKeys(sink, t);
  checkNames(sink, t);
  appendAll(sink.issues, validateReferences(t));
  checkLinks(sink, t);
  checkValues(sink, t);
  checkRouterNetworks(sink, t);
  checkMatches(sink, t);
  return sink.issues;
}

/** A map key must be the row's own key: otherwise the diff would compare the wrong rows. */
function checkKeys(sink: IssueSink, t: Topology): void {
  for (const table of TABLE_ORDER) {
    for (const [key, row] of t[table] as ReadonlyMap<string, Tables[typeof table]>) {
      const own = keyOf(table, row);
      if (own !== key) sink.add('key-mismatch', [table, key], `${table} ${q(key)} holds a row whose key is ${q(own)}`);
    }
  }
}

const NAMED: readonly TableName[] = [
  'switch',
  'switchPort',
  'router',
  'routerPort',
  'addressSet',
  'portGroup',
  'loadBalancer',
  'dhcpOptions',
];
/** ovn-nb(5): address set and port group names (they appear in matches as `$name`, `@name`). */
const SET_NAME = /^[a-zA-Z_.][a-zA-Z_.0-9]*$/;

function checkNames(sink: IssueSink, t: Topology): void {
  for (const table of NAMED) {
    for (const key of t[table].keys())
      if (key === '') rowReport(sink, table, key)('invalid-name', ['name'], 'is empty');
  }
  for (const table of ['addressSet', 'portGroup'] as const) {
    for (const key of t[table].keys()) {
      if (key === '' || SET_NAME.test(key)) continue;
      rowReport(sink, table, key)(
        'invalid-name',
        ['name'],
        'must match [a-zA-Z_.][a-zA-Z_.0-9]* (it is used in matches)',
      );
    }
  }
  // Switch and router ports share the SB Port_Binding namespace.
  for (const key of t.routerPort.keys()) {
    if (!t.switchPort.has(key)) continue;
    rowReport(sink, 'routerPort', key)(
      'duplicate-name',
      ['name'],
      'is also the name of a switch port; ports share one namespace',
    );
  }
  // A port group defines the address sets $<pg>_ip4 and $<pg>_ip6.
  for (const pg of t.portGroup.keys()) {
    for (const derived of [`${pg}_ip4`, `${pg}_ip6`]) {
      if (!t.addressSet.has(derived)) continue;
      rowReport(sink, 'addressSet', derived)(
        'duplicate-name',
        ['name'],
        `clashes with the address set port group ${q(pg)} defines`,
      );
    }
  }
}

/** Cross-row consistency beyond plain existence. */
function checkLinks(sink: IssueSink, t: Topology): void {
  for (const [key, p] of t.routerPort) {
    if (p.peer === undefined) continue;
    const report = rowReport(sink, 'routerPort', key);
    const peer = t.routerPort.get(p.peer);
    if (p.peer === key) report('invalid-peer', ['peer'], 'names the port itself');
    else if (!peer) report('dangling-reference', ['peer'], `names routerPort ${q(p.peer)}, which does not exist`);
    else if (peer.peer !== key)
      report('asymmetric-peer', ['peer'], `is ${q(p.peer)} but that port's peer is ${q(peer.peer ?? '')}`);
  }
  const onRouter = (table: 'nat' | 'staticRoute', key: string, field: string, router: string, port?: string) => {
    const owner = port === undefined ? undefined : t.routerPort.get(port)?.router;
    if (owner === undefined || owner === router) return;
    rowReport(sink, table, key)(
      'wrong-router',
      [field],
      `${q(port ?? '')} belongs to router ${q(owner)}, not ${q(router)}`,
    );
  };
  for (const [key, n] of t.nat) onRouter('nat', key, 'gatewayPort', n.router, n.gatewayPort);
  for (const [key, r] of t.staticRoute) onRouter('staticRoute', key, 'outputPort', r.router, r.outputPort);
  for (const [key, p] of t.switchPort) {
    for (const [field, family] of [
      ['dhcpv4Options', 4],
      ['dhcpv6Options', 6],
    ] as const) {
      const name = p[field];
      const cidr = name === undefined ? undefined : t.dhcpOptions.get(name)?.cidr;
      const parsed = cidr === undefined ? undefined : tryParseCIDR(cidr);
      if (!parsed || parsed.family === family) continue;
      const problem = `names DHCP options ${q(name ?? '')} for ${cidr}, not an IPv${family} CIDR`;
      rowReport(sink, 'switchPort', key)('family-mismatch', [field], problem);
    }
  }
}

function checkValues(sink: IssueSink, t: Topology): void {
  for (const [k, r] of t.switchPort) checkSwitchPort(sink, k, r);
  for (const [k, r] of t.routerPort) checkRouterPort(sink, k, r);
  for (const [k, r] of t.addressSet) checkAddressSetEntries(sink, k, r.addresses);
  for (const [k, r] of t.loadBalancer) checkLoadBalancer(sink, k, r);
  for (const [k, r] of t.dhcpOptions) checkDhcpOptions(sink, k, r);
  for (const [k, r] of t.acl) checkAcl(sink, k, r);
  for (const [k, r] of t.qos) checkQos(sink, k, r);
  for (const [k, r] of t.nat) checkNat(sink, k, r);
  for (const [k, r] of t.staticRoute) checkStaticRoute(sink, k, r);
  for (const [k, r] of t.routerPolicy) checkRouterPolicy(sink, k, r);
}

interface Network {
  readonly port: string;
  readonly index: number;
  readonly text: string;
  readonly cidr: CIDR;
}

/**
 * Two ports of one router must not have overlapping networks: the router
 * could not tell which port a destination in the overlap lives behind.
 * Entries of the same port may overlap (secondary addresses). Pairwise per
 * router: routers have tens to hundreds of ports.
 */
function checkRouterNetworks(sink: IssueSink, t: Topology): void {
  const byRouter = new Map<string, Network[]>();
  for (const [port, p] of t.routerPort) {
    let list = byRouter.get(p.router);
    if (!list) byRouter.set(p.router, (list = []));
    p.networks.forEach((text, index) => {
      const cidr = tryParseCIDR(text);
      if (cidr) list.push({ port, index, text, cidr });
    });
  }
  for (const [router, nets] of byRouter) {
    nets.forEach((a, i) => {
      for (const b of nets.slice(i + 1)) {
        if (a.port === b.port || !overlaps(a.cidr, b.cidr)) continue;
        const problem = `${b.text} overlaps ${a.text} of port ${q(a.port)} on router ${q(router)}`;
        rowReport(sink, 'routerPort', b.port)('overlapping-networks', ['networks', b.index], problem);
      }
    });
  }
}

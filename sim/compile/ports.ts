/**
 * Ports of the compiled network: switch ports with parsed addresses and port
 * security, router ports with parsed networks, and the links between them
 * (a switch port of type router names its router port in
 * options:router-port; router ports may peer directly).
 */
import { tryParseMAC } from '../../model/addr/index.ts';
import type { Issue } from '../../model/issues.ts';
import {
  learnsFdb,
  type LogicalRouterPort,
  type LogicalSwitchPort,
  type Topology,
} from '../../model/topology/index.ts';
import {
  type LspAddress,
  parseLspAddress,
  parsePortSecurity,
  parseRouterNetwork,
  type RouterNetwork,
} from './addresses.ts';
import type { PortInfo, RouterPortInfo, SwitchPortInfo } from './types.ts';

/** Conntrack zone names: one per switch port, two per router. */
export const lspZone = (port: string): string => `lsp:${port}`;
export const dnatZone = (router: string): string => `lr:${router}:dnat`;
export const snatZone = (router: string): string => `lr:${router}:snat`;

function routerPortInfo(p: LogicalRouterPort, issues: Issue[]): RouterPortInfo | undefined {
  const mac = tryParseMAC(p.mac);
  if (mac === undefined) {
    issues.push({
      code: 'sim-bad-mac',
      path: ['routerPort', p.name, 'mac'],
      message: `router port ${p.name}: bad MAC ${JSON.stringify(p.mac)}; port ignored`,
    });
    return undefined;
  }
  const networks: RouterNetwork[] = [];
  p.networks.forEach((n, i) => {
    const parsed = parseRouterNetwork(n);
    if (parsed) networks.push(parsed);
    else
      issues.push({
        code: 'sim-bad-network',
        path: ['routerPort', p.name, 'networks', i],
        message: `router port ${p.name}: bad network ${JSON.stringify(n)}; ignored`,
      });
  });
  const isDgp = p.gatewayChassis.length > 0 || p.options['ha_chassis_group'] !== undefined;
  return {
    kind: 'lrp',
    name: p.name,
    router: p.router,
    mac,
    networks,
    enabled: p.enabled !== false,
    // Optional fields are always present (undefined when unset): one object shape for every port.
    switchPort: undefined,
    peer: p.peer ? p.peer : undefined,
    isDgp,
    crName: isDgp ? `cr-${p.name}` : undefined,
    routeTable: p.options['route_table'] ?? '',
  };
}

function routerAddress(rp: RouterPortInfo): LspAddress {
  return {
    mac: rp.mac,
    ip4: rp.networks.filter((n) => n.family === 4).map((n) => n.ip as number),
    ip6: rp.networks.filter((n) => n.family === 6).map((n) => n.ip as bigint),
  };
}

function switchPortInfo(
  p: LogicalSwitchPort,
  routerPorts: ReadonlyMap<string, RouterPortInfo>,
  issues: Issue[],
): SwitchPortInfo {
  const addresses: LspAddress[] = [];
  let hasUnknown = false;
  const routerPort = p.type === 'router' ? p.options['router-port'] : undefined;
  p.addresses.forEach((entry, i) => {
    if (entry === 'unknown') {
      hasUnknown = true;
      return;
    }
    if (entry === 'router') {
      const rp = routerPort === undefined ? undefined : routerPorts.get(routerPort);
      if (rp) addresses.push(routerAddress(rp));
      return;
    }
    if (/^dynamic\b/.test(entry) || /\sdynamic$/.test(entry)) return; // needs northd's dynamic_addresses
    const parsed = parseLspAddress(entry);
    if (parsed) addresses.push(parsed);
    else
      issues.push({
        code: 'sim-bad-address',
        path: ['switchPort', p.name, 'addresses', i],
        message: `switch port ${p.name}: bad address ${JSON.stringify(entry)}; ignored`,
      });
  });
  const portSecurity = p.portSecurity.flatMap((entry, i) => {
    const ps = parsePortSecurity(entry);
    if (ps) return [ps];
    issues.push({
      code: 'sim-bad-port-security',
      path: ['switchPort', p.name, 'portSecurity', i],
      message: `switch port ${p.name}: bad port_security ${JSON.stringify(entry)}; ignored`,
    });
    return [];
  });
  return {
    kind: 'lsp',
    name: p.name,
    switch: p.switch,
    type: p.type,
    enabled: p.enabled !== false,
    addresses,
    hasUnknown,
    learnsFdb: learnsFdb(p),
    portSecurity,
    routerPort: routerPort !== undefined && routerPorts.has(routerPort) ? routerPort : undefined,
    zone: lspZone(p.name),
  };
}

export interface CompiledPorts {
  readonly ports: Map<string, PortInfo>;
  readonly switchPorts: Map<string, SwitchPortInfo>;
  readonly routerPorts: Map<string, RouterPortInfo>;
}

/** Parse every port and link router ports to the switch ports that attach them. */
export function compilePorts(t: Topology, issues: Issue[]): CompiledPorts {
  const routerPorts = new Map<string, RouterPortInfo>();
  for (const p of t.routerPort.values()) {
    if (!t.router.has(p.router)) continue;
    const info = routerPortInfo(p, issues);
    if (info) routerPorts.set(p.name, info);
  }
  const switchPorts = new Map<string, SwitchPortInfo>();
  for (const p of t.switchPort.values()) {
    if (!t.switch.has(p.switch)) continue;
    switchPorts.set(p.name, switchPortInfo(p, routerPorts, issues));
  }
  for (const sp of switchPorts.values()) {
    if (sp.routerPort === undefined) continue;
    const rp = routerPorts.get(sp.routerPort)!;
    routerPorts.set(rp.name, { ...rp, switchPort: sp.name });
  }
  const ports = new Map<string, PortInfo>();
  for (const [n, p] of routerPorts) ports.set(n, p);
  for (const [n, p] of switchPorts) {
    if (ports.has(n)) {
      issues.push({
        code: 'sim-duplicate-port-name',
        path: ['switchPort', n],
        message: `port name ${n} is used by a router port and a switch port; the switch port is ignored`,
      });
      continue;
    }
    ports.set(n, p);
  }
  return { ports, switchPorts, routerPorts };
}

/** The router port on the other side of a router port, if any (router-to-router). */
export function routerPeer(ports: ReadonlyMap<string, PortInfo>, rp: RouterPortInfo): RouterPortInfo | undefined {
  if (rp.peer === undefined) return undefined;
  const peer = ports.get(rp.peer);
  return peer?.kind === 'lrp' && peer.peer === rp.name ? peer : undefined;
}

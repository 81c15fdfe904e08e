/**
 * compileNetwork: the topology, once, into the indexed structures the
 * pipelines read. Rows northd would ignore (bad addresses, unreachable next
 * hops, NAT on a router without a gateway) are left out and reported in
 * `issues`; compiling never throws on a bad row.
 */
import { tryParseIP, tryParseMAC } from '../../model/addr/index.ts';
import type { Issue } from '../../model/issues.ts';
import type { Topology } from '../../model/topology/index.ts';
import { inNetwork, type IpKey, ipKey } from './addresses.ts';
import { buildArpResolve } from './arp-resolve.ts';
import { buildLinks } from './links.ts';
import { buildMatchEnv } from './match.ts';
import { compilePorts } from './ports.ts';
import { compileRouter } from './router.ts';
import { compileSwitch, portGroupSwitches } from './switch.ts';
import { type CompileStats, groupByDatapath } from './by-datapath.ts';
import type { CompileOptions, PortInfo, RouterDp, RouterPortInfo, SimNetwork, SwitchDp } from './types.ts';

function compileNeighbors(opts: CompileOptions, issues: Issue[]): Map<string, Map<IpKey, number>> {
  const out = new Map<string, Map<IpKey, number>>();
  for (const [port, entries] of Object.entries(opts.neighbors ?? {})) {
    const m = new Map<IpKey, number>();
    for (const [ipText, macText] of Object.entries(entries)) {
      const ip = tryParseIP(ipText);
      const mac = tryParseMAC(macText);
      if (ip === undefined || mac === undefined) {
        issues.push({
          code: 'sim-bad-neighbor',
          path: ['options', 'neighbors', port, ipText],
          message: `neighbor ${ipText} → ${macText} on ${port}: bad IP or MAC; ignored`,
        });
        continue;
      }
      m.set(ipKey(ip.value), mac);
    }
    out.set(port, m);
  }
  return out;
}

/** IPs a router port owns beyond its networks: non-snat NAT external IPs and its reachable LB VIPs. */
function extraIpsFn(routers: ReadonlyMap<string, RouterDp>) {
  return (router: string, port: RouterPortInfo): (number | bigint)[] => {
    const r = routers.get(router);
    if (r === undefined) return [];
    const out: (number | bigint)[] = [];
    for (const n of r.nats) if (n.nat.type !== 'snat') out.push(n.externalIp);
    for (const list of r.vips.values()) {
      for (const v of list) if (port.networks.some((n) => inNetwork(n, v.ip))) out.push(v.ip);
    }
    return out;
  };
}

/**
 * The `is_chassis_resident` predicate the network is simulated with. Given
 * `isChassisResident`, that. Otherwise, as ovn-trace answers
 * (ovntrace_is_chassis_resident: "assume any port that exists is
 * resident"; an unknown port is not, nor for ovn-controller): true for ""
 * and every port that exists, `cr-<port>` of gateway ports included; with
 * `chassis`, a `cr-<port>` with gateway chassis only where the
 * highest-priority one is that chassis.
 */
function residency(t: Topology, options: CompileOptions, ports: ReadonlyMap<string, PortInfo>): CompileOptions {
  if (options.isChassisResident !== undefined) return options;
  const exists = new Set<string>(['']);
  const active = new Map<string, string>();
  for (const p of ports.values()) {
    exists.add(p.name);
    if (p.kind !== 'lrp' || p.crName === undefined) continue;
    exists.add(p.crName);
    // (A gateway port bound by ha_chassis_group names no chassis here: resident, as before.)
    const best = [...(t.routerPort.get(p.name)?.gatewayChassis ?? [])].sort((a, b) => b.priority - a.priority)[0];
    if (best) active.set(p.crName, best.chassisName);
  }
  const here = options.chassis;
  if (here === undefined) return { ...options, isChassisResident: (port) => exists.has(port) };
  return { ...options, isChassisResident: (port) => (active.has(port) ? active.get(port) === here : exists.has(port)) };
}

/**
 * @example
 * const net = compileNetwork(topology);
 * const r = simulate(net, { inport: 'web-0.default', packet: tcpPacket({...}) });
 */
export function compileNetwork(topology: Topology, opts: CompileOptions = {}): SimNetwork {
  const issues: Issue[] = [];
  const { ports, switchPorts, routerPorts } = compilePorts(topology, issues);
  const options = residency(topology, opts, ports);
  const envs = buildMatchEnv(topology, switchPorts, options);
  const pgSwitches = portGroupSwitches(topology, switchPorts);
  const rows = groupByDatapath(topology, switchPorts, routerPorts, pgSwitches);
  const stats: CompileStats = { portsScanned: 0, rulesScanned: 0 };
  const routers = new Map<string, RouterDp>();
  for (const r of topology.router.values()) {
    const rports = rows.routerPorts.get(r.name) ?? [];
    stats.portsScanned += rports.length;
    routers.set(r.name, compileRouter({ t: topology, router: r, ports: rports, env: envs.base, issues, rows, stats }));
  }
  const switches = new Map<string, SwitchDp>();
  const ctx = {
    t: topology,
    envs,
    switchPorts,
    routerPorts,
    pgSwitches,
    rows,
    stats,
    aclCache: { byKey: new Map(), refusals: new Map() },
    lbCache: new Map(),
    routerExtraIps: extraIpsFn(routers),
    distributedNats: (router: string) =>
      (routers.get(router)?.nats ?? []).flatMap((n) =>
        n.distributed ? [{ mac: n.externalMac!, logicalPort: n.nat.logicalPort! }] : [],
      ),
    issues,
  };
  for (const sw of topology.switch.values()) switches.set(sw.name, compileSwitch(ctx, sw));
  buildArpResolve(topology, routers, switches, ports);
  return {
    topology,
    options,
    ports,
    switches,
    routers,
    ...buildLinks(ports, switches, routers),
    neighbors: compileNeighbors(options, issues),
    issues,
    stats,
  };
}

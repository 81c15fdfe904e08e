/**
 * compileNetwork: the topology, once, into the indexed structures the
 * pipelines read. Rows northd would ignore (bad addresses, unreachable next
 * hops, NAT on a router without a gateway) are left out and reported in
 * `issues`; compiling never throws on a bad row.
 */
import { tryParseIP, tryParseMAC } from '../../model/addr/index.ts';
import type { Issue } from '../../model/issues.ts';
import type { Topology } from '../../model/topology/index.ts';
import { inNetwork } from './addresses.ts';
import { buildArpResolve } from './arp-resolve.ts';
import { buildMatchEnv } from './match.ts';
import { compilePorts } from './ports.ts';
import { compileRouter } from './router.ts';
import { compileSwitch, portGroupSwitches } from './switch.ts';
import type { CompileOptions, RouterDp, RouterPortInfo, SimNetwork, SwitchDp } from './types.ts';

function compileNeighbors(opts: CompileOptions, issues: Issue[]): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const [port, entries] of Object.entries(opts.neighbors ?? {})) {
    const m = new Map<string, number>();
    for (const [ipText, macText] of Object.entries(entries)) {
      const ip = tryParseIP(ipText);
      const mac = tryParseMAC(macText);
      if (ip === undefined || mac === undefined) {
        issues.push({ code: 'sim-bad-neighbor', path: ['options', 'neighbors', port, ipText], message: `neighbor ${ipText} → ${macText} on ${port}: bad IP or MAC; ignored` });
        continue;
      }
      m.set(String(ip.value), mac);
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
 * @example
 * const net = compileNetwork(topology);
 * const r = simulate(net, { inport: 'web-0.default', packet: tcpPacket({...}) });
 */
/** `chassis` → an is_chassis_resident predicate over the gateway chassis of each gateway port. */
function residency(t: Topology, options: CompileOptions): CompileOptions {
  if (options.isChassisResident !== undefined || options.chassis === undefined) return options;
  const active = new Map<string, string>();
  for (const p of t.routerPort.values()) {
    const best = [...p.gatewayChassis].sort((a, b) => b.priority - a.priority)[0];
    if (best) active.set(`cr-${p.name}`, best.chassisName);
  }
  const here = options.chassis;
  return { ...options, isChassisResident: (port) => (active.has(port) ? active.get(port) === here : true) };
}

export function compileNetwork(topology: Topology, opts: CompileOptions = {}): SimNetwork {
  const options = residency(topology, opts);
  const issues: Issue[] = [];
  const { ports, switchPorts, routerPorts } = compilePorts(topology, issues);
  const { env, portGroups } = buildMatchEnv(topology, switchPorts, options);
  const routers = new Map<string, RouterDp>();
  for (const r of topology.router.values()) {
    const rports = [...routerPorts.values()].filter((p) => p.router === r.name);
    routers.set(r.name, compileRouter({ t: topology, router: r, ports: rports, env, issues }));
  }
  const switches = new Map<string, SwitchDp>();
  const ctx = {
    t: topology,
    env,
    portGroups,
    switchPorts,
    routerPorts,
    pgSwitches: portGroupSwitches(topology, switchPorts),
    aclCache: { byKey: new Map() },
    routerExtraIps: extraIpsFn(routers),
    distributedNats: (router: string) =>
      (routers.get(router)?.nats ?? []).flatMap((n) => (n.distributed ? [{ mac: n.externalMac!, logicalPort: n.nat.logicalPort! }] : [])),
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
    neighbors: compileNeighbors(options, issues),
    issues,
  };
}

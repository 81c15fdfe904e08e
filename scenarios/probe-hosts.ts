/**
 * Probes from and to a scenario's physical hosts (docs/architecture.md,
 * "Scenario files", Physical hosts; scenarios/hosts.ts): a host is wired to
 * its provider network on its VLAN, which OVN joins through the localnet
 * ports whose `network_name` is the provider and whose `tag` is the VLAN
 * (none for untagged). Pure, as resolveProbe is: where the host's packet
 * enters, with which MACs, and which localnet ports count as reaching a host.
 *
 * ARP is resolved as that network would answer it: on the switches joined to
 * the host's network, a pod's VIF, a router port, or another host holding the
 * address. The router's own ARP for a host (the MAC binding ovn-controller
 * learns when the host answers) is `hostNeighbors`.
 */
import { containsIP, tryParseCIDR, tryParseIP } from '../model/addr/index.ts';
import type { LogicalSwitchPort, Topology } from '../model/topology/index.ts';
import { hostAddress, type ScenarioHost } from './hosts.ts';
import { natArpMac } from './probe-nat.ts';

/** The localnet ports a host's frames reach: on its provider, with its VLAN's tag (none for 0). */
export function hostPorts(t: Topology, h: ScenarioHost): LogicalSwitchPort[] {
  const out: LogicalSwitchPort[] = [];
  for (const p of t.switchPort.values())
    if (p.type === 'localnet' && p.options.network_name === h.provider && (p.tag ?? 0) === h.vlan) out.push(p);
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** Whether `ip` is on-link to the host (inside one of its addresses' prefixes). */
export function onLink(h: ScenarioHost, ip: string): boolean {
  const a = tryParseIP(ip);
  if (a === undefined) return false;
  return h.ips.some((c) => {
    const p = tryParseCIDR(c);
    return p !== undefined && p.family === a.family && containsIP(p, a);
  });
}

/** The host's next hop towards `ip`: the address itself on-link, else its gateway of that family. */
export function nextHop(h: ScenarioHost, ip: string): string | undefined {
  if (onLink(h, ip)) return ip;
  return h.gateways.find((g) => g.includes(':') === ip.includes(':'));
}

/** The host's own address of `ip`'s family (its first). */
export const hostSource = (h: ScenarioHost, ip: string): string | undefined =>
  h.ips.map(hostAddress).find((a) => a.includes(':') === ip.includes(':'));

/** Who answers ARP (ND) for `ip` on a switch: a VIF's or a router port's MAC, or another host's. */
export type ArpAnswer =
  | { readonly kind: 'port'; readonly mac: string; readonly port: string }
  | { readonly kind: 'host'; readonly host: ScenarioHost };

/**
 * @example arpOwner(t, hosts, 'vlan-sub', net1Vlan100Host, '172.17.0.5') // { kind: 'port', mac: '00:00:00:…', port: 'web.underlay' }
 */
export function arpOwner(
  t: Topology,
  hosts: readonly ScenarioHost[],
  sw: string,
  wire: { readonly provider: string; readonly vlan: number },
  ip: string,
): ArpAnswer | undefined {
  for (const p of t.switchPort.values()) {
    if (p.switch !== sw) continue;
    if (p.type === 'router') {
      const rp = t.routerPort.get(p.options['router-port'] ?? '');
      if (rp?.networks.some((n) => n.split('/')[0] === ip)) return { kind: 'port', mac: rp.mac, port: rp.name };
      // A gateway port also answers for its router's NAT addresses (EIPs: probe-nat.ts).
      const nat = rp === undefined ? undefined : natArpMac(t, rp, ip);
      if (rp !== undefined && nat !== undefined) return { kind: 'port', mac: nat, port: rp.name };
      continue;
    }
    if (p.type !== '') continue;
    for (const a of p.addresses) {
      const [mac, ...ips] = a.split(/\s+/);
      if (mac !== undefined && ips.includes(ip)) return { kind: 'port', mac, port: p.name };
    }
  }
  const host = hosts.find(
    (h) => h.provider === wire.provider && h.vlan === wire.vlan && h.ips.some((c) => hostAddress(c) === ip),
  );
  return host === undefined ? undefined : { kind: 'host', host };
}

/**
 * The MAC bindings routers learn for hosts (SB MAC_Binding, what
 * ovn-controller writes when a host answers the router's ARP): per router
 * port on a switch joined to a host's network, each host address inside
 * that port's networks. `compileNetwork`'s `neighbors` option takes them.
 *
 * @example hostNeighbors(t, hosts) // { 'ovn-cluster-vlan-sub': { '172.17.0.200': '02:…' } }
 */
export function hostNeighbors(t: Topology, hosts: readonly ScenarioHost[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const h of hosts) {
    for (const ln of hostPorts(t, h)) {
      for (const p of t.switchPort.values()) {
        if (p.switch !== ln.switch || p.type !== 'router') continue;
        const rp = t.routerPort.get(p.options['router-port'] ?? '');
        if (rp === undefined) continue;
        for (const c of h.ips) {
          const ip = hostAddress(c);
          const a = tryParseIP(ip);
          const inside = rp.networks.some((n) => {
            const net = tryParseCIDR(n);
            return a !== undefined && net !== undefined && net.family === a.family && containsIP(net, a);
          });
          if (inside) (out[rp.name] ??= {})[ip] = h.mac;
        }
      }
    }
  }
  return out;
}

/** One leg of a host probe: where the packet enters, its addresses, and where it counts as arriving. */
export type HostLeg =
  | {
      readonly kind: 'leg';
      readonly inport: string;
      readonly ethSrc: string;
      readonly ethDst: string;
      readonly src: string;
      readonly dst: string;
      readonly targets: readonly string[];
      /** Arrival at a host: the packet must carry the host's MAC. */
      readonly targetMac?: string;
      /** The host's name. */
      readonly host: string;
    }
  | { readonly kind: 'denied'; readonly reason: string };

const wireOf = (h: ScenarioHost) => `${h.provider}${h.vlan === 0 ? ' untagged' : ` VLAN ${h.vlan}`}`;

/** The subnets (switch name → CIDRs) probes resolve against. */
type Subnets = ReadonlyMap<string, { readonly cidrs: readonly string[] }>;

const inCidrs = (cidrs: readonly string[], ip: string): boolean => {
  const a = tryParseIP(ip);
  return cidrs.some((c) => {
    const p = tryParseCIDR(c.trim());
    return a !== undefined && p !== undefined && p.family === a.family && containsIP(p, a);
  });
};

/**
 * A host's packet to `dst`: it leaves the host for its next hop and enters
 * OVN at the localnet port of the switch (on the host's network) whose subnet
 * holds that next hop, addressed to the MAC that answers ARP for it there.
 *
 * @example fromHost(t, hosts, subnets, server, '172.17.0.5', ['web.underlay'])
 *   // { kind: 'leg', inport: 'localnet.vlan-sub', ethDst: <web's MAC>, src: '172.17.0.200', ... }
 */
export function fromHost(
  t: Topology,
  hosts: readonly ScenarioHost[],
  subnets: Subnets,
  h: ScenarioHost,
  dst: string,
  targets: readonly string[],
): HostLeg {
  const src = hostSource(h, dst);
  if (src === undefined) return { kind: 'denied', reason: `host ${h.name} has no address of ${dst}'s family` };
  const hop = nextHop(h, dst);
  if (hop === undefined)
    return { kind: 'denied', reason: `host ${h.name} has no route to ${dst} (off-link, and no gateway)` };
  const ports = hostPorts(t, h);
  if (ports.length === 0) return { kind: 'denied', reason: `no switch joins host ${h.name}'s network (${wireOf(h)})` };
  const ln = ports.find((p) => inCidrs(subnets.get(p.switch)?.cidrs ?? [], hop));
  if (ln === undefined)
    return { kind: 'denied', reason: `no subnet on ${wireOf(h)} holds ${hop}, host ${h.name}'s next hop to ${dst}` };
  const owner = arpOwner(t, hosts, ln.switch, h, hop);
  if (owner === undefined)
    return { kind: 'denied', reason: `nothing answers ARP for ${hop} on ${ln.switch} (${wireOf(h)})` };
  if (owner.kind === 'host')
    return { kind: 'denied', reason: `${hop} is host ${owner.host.name}'s: a host does not forward` };
  return { kind: 'leg', inport: ln.name, ethSrc: h.mac, ethDst: owner.mac, src, dst, targets, host: h.name };
}

/**
 * A pod's packet to a host: straight to the host's MAC when the pod's switch
 * is on the host's network and the host's address in the pod's subnet, else
 * to the pod's gateway (`gwMac`, '' when its subnet has no router port). It
 * arrives when it leaves a localnet port of the host's network with the
 * host's MAC; the host must have a route back to the pod's address.
 */
export function podToHost(
  t: Topology,
  subnets: Subnets,
  pod: { readonly key: string; readonly subnet: string; readonly mac: string; readonly ips: readonly string[] },
  gwMac: string,
  h: ScenarioHost,
  ip?: string,
): HostLeg {
  const addrs = ip !== undefined ? [ip] : h.ips.map(hostAddress);
  let pair: { s: string; d: string } | undefined;
  for (const s of pod.ips) {
    const d = addrs.find((a) => a.includes(':') === s.includes(':'));
    if (d !== undefined) {
      pair = { s, d };
      break;
    }
  }
  if (pair === undefined) return { kind: 'denied', reason: `${pod.key} and host ${h.name} share no address family` };
  if (nextHop(h, pair.s) === undefined)
    return { kind: 'denied', reason: `host ${h.name} has no route back to ${pair.s} (off-link, and no gateway)` };
  const ports = hostPorts(t, h);
  if (ports.length === 0) return { kind: 'denied', reason: `no switch joins host ${h.name}'s network (${wireOf(h)})` };
  const direct = ports.some((p) => p.switch === pod.subnet) && inCidrs(subnets.get(pod.subnet)?.cidrs ?? [], pair.d);
  if (!direct && gwMac === '')
    return { kind: 'denied', reason: `${pod.key}'s subnet ${pod.subnet} has no router port to reach ${pair.d}` };
  return {
    kind: 'leg',
    inport: '',
    ethSrc: pod.mac,
    ethDst: direct ? h.mac : gwMac,
    src: pair.s,
    dst: pair.d,
    targets: ports.map((p) => p.name),
    targetMac: h.mac,
    host: h.name,
  };
}

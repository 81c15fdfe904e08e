/**
 * Probes as docs/architecture.md defines them ("Scenario files", Probes),
 * resolved against what the controller built: pods by the annotations it
 * wrote, Services by their cluster IPs and EndpointSlices, nodes by their
 * join port, routers' MACs from the topology. `resolveProbe` is pure: it
 * turns one expectation into the first packet, the port it enters at and
 * the ports that count as arriving; the answer comes from a world (the
 * simulator here, ovn-trace in scenarios/ovn-world.ts).
 */
import { containsCIDR, containsIP, tryParseCIDR, tryParseIP } from '../model/addr/index.ts';
import type { Packet } from '../model/packet/index.ts';
import type { Topology } from '../model/topology/index.ts';
import { egressGatewayRoute, nodeMasquerades } from '../controller/translate/subnet-gateway.ts';
import type { NatAppliance } from '../sim/appliance/nat-gateway.ts';
import type { TraceStage } from '../sim/trace.ts';
import { intoGateway } from './natgw.ts';
import type { ScenarioHost, ScenarioProbe } from './load.ts';
import { spoofed } from './probe-spoof.ts';
import { closeNames, packetFor, reachableVpcs } from './probe-util.ts';
import { arpOwner, fromHost, type HostLeg, podToHost } from './probe-hosts.ts';
import { natTargets } from './probe-nat.ts';

import type { ProbeIndex, ProbePod, ServiceInfo } from './probe-index.ts';

export { attachmentEnd, buildIndex, type ProbeIndex, type ProbePod } from './probe-index.ts';

/** One probe, resolved: the first packet, where it enters, which ports count as arriving. */
export type ResolvedProbe =
  | {
      readonly kind: 'packet';
      readonly inport: string;
      readonly packet: Packet;
      /** Arrival at any of these (non-generated) counts. */
      readonly targets: readonly string[];
      /** An ICMP echo to a router's own address: the echo reply must come back to `inport`. */
      readonly routerAnswers?: boolean;
      /**
       * Sent as someone else (the probe's `spoof`): the source address and/or
       * MAC it carries instead of its own; the verdict is the first packet
       * delivered (the reply goes to the address's owner).
       */
      readonly spoofed?: { readonly ip?: string; readonly mac?: string };
      /** A Service probe: each target (an endpoint's port) with the port it serves on (its target port). */
      readonly endpoints?: readonly { readonly port: string; readonly targetPort: number }[];
      /**
       * Through a VPC NAT gateway (scenarios/natgw.ts): `egress`, the targets are
       * gateway pods' ports and the appliance continues from where the packet
       * arrived; `ingress`, the appliance already took the outside packet to
       * `packet` at the gateway's port (its stages come first in a trace).
       */
      readonly natGateway?:
        | { readonly direction: 'egress'; readonly appliances: readonly NatAppliance[] }
        | {
            readonly direction: 'ingress';
            readonly appliance: NatAppliance;
            readonly stages: readonly TraceStage[];
            /** The packet as the outside host sent it (to the EIP), before the appliance. */
            readonly outside: Packet;
          };
      /** To a physical host: arrival at a target (a localnet port) counts only with this destination MAC. */
      readonly targetMac?: string;
      /** The physical host (`spec.hosts`) the probe goes from or to. */
      readonly physicalHost?: string;
    }
  | { readonly kind: 'denied'; readonly reason: string };

export class ProbeError extends Error {
  override readonly name = 'ProbeError';
}

const isV6 = (ip: string) => ip.includes(':');

function routerPortMac(t: Topology, router: string, subnet: string): string {
  return t.routerPort.get(`${router}-${subnet}`)?.mac ?? '';
}

type End =
  | { readonly kind: 'pending'; readonly key: string; readonly why: string }
  | { readonly kind: 'pod'; readonly pod: ProbePod; readonly ip?: string }
  | { readonly kind: 'service'; readonly svc: ServiceInfo; readonly ip?: string }
  | { readonly kind: 'cluster-ip'; readonly ip: string }
  | { readonly kind: 'outside'; readonly ip: string }
  | { readonly kind: 'host'; readonly host: ScenarioHost; readonly ip?: string };

function resolveEnd(ix: ProbeIndex, text: string, vpc: string | undefined): End {
  if (text.startsWith('svc/')) {
    const key = text.slice(4);
    const svc = ix.services.get(key);
    if (svc === undefined) {
      const near = closeNames(key, ix.services.keys());
      throw new ProbeError(
        `no Service ${key}${near.length ? ` (did you mean ${near.map((n) => `svc/${n}`).join(', ')}?)` : ''}`,
      );
    }
    return { kind: 'service', svc };
  }
  if (text.startsWith('host/')) {
    const host = ix.hosts.find((h) => h.name === text.slice(5));
    if (host === undefined) throw new ProbeError(`no host ${text.slice(5)} in spec.hosts`);
    return { kind: 'host', host };
  }
  if (tryParseIP(text) !== undefined) {
    // The source's own VPC first, then the VPCs it peers with (nearest first): where the address is routed.
    for (const v of vpc === undefined ? [undefined] : reachableVpcs(ix.topology, vpc))
      for (const pod of ix.pods.values())
        if (pod.ips.includes(text) && (v === undefined || pod.router === v)) return { kind: 'pod', pod, ip: text };
    const host = ix.hosts.find((h) => h.ips.some((c) => c.split('/')[0] === text));
    if (host !== undefined) return { kind: 'host', host, ip: text };
    for (const svc of ix.services.values())
      if (svc.clusterIPs.includes(text)) return { kind: 'service', svc, ip: text };
    // An EIP a router translates to a pod (OvnFip, OvnDnatRule): the probe must reach that pod.
    for (const t of natTargets(ix.topology, text))
      for (const pod of ix.pods.values())
        if (pod.router === t.router && pod.ips.includes(t.ip)) return { kind: 'pod', pod, ip: text };
    return inCluster(ix, text, vpc) ? { kind: 'cluster-ip', ip: text } : { kind: 'outside', ip: text };
  }
  if (ix.pending.has(text)) return { kind: 'pending', key: text, why: 'is pending (no node fits it)' };
  if (ix.unaddressed.has(text))
    return { kind: 'pending', key: text, why: 'has no address (the controller gave it none: see the warnings)' };
  const pod = ix.pods.get(text);
  if (pod === undefined) {
    const near = closeNames(text, ix.pods.keys());
    throw new ProbeError(`no pod ${text}${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}`);
  }
  return { kind: 'pod', pod };
}

function inCluster(ix: ProbeIndex, ip: string, vpc: string | undefined): boolean {
  const a = tryParseCIDR(ip, { allowBare: true });
  if (a === undefined) return false;
  const cidrs = [
    ...[...ix.subnets.values()].filter((s) => vpc === undefined || s.router === vpc).flatMap((s) => s.cidrs),
    ...ix.settings.serviceClusterIPRange.split(','),
    ...ix.settings.nodeSwitchCIDR.split(','),
  ];
  return cidrs.some((c) => {
    const p = tryParseCIDR(c.trim());
    return p !== undefined && p.family === a.family && containsCIDR(p, a);
  });
}

/**
 * @example resolveProbe(ix, { from: 'default/a', to: 'default/b', protocol: 'TCP', port: 80, allowed: true }, 0)
 *   // { kind: 'packet', inport: 'a.default', targets: ['b.default'], packet: {...} }
 */
export function resolveProbe(ix: ProbeIndex, e: ScenarioProbe, n: number): ResolvedProbe {
  const from = resolveEnd(ix, e.from, undefined);
  if (from.kind === 'pending') return { kind: 'denied', reason: `${e.from} ${from.why}: it has no interface` };
  if (from.kind === 'service') throw new ProbeError(`a probe cannot start at a Service (${e.from})`);
  if (from.kind === 'cluster-ip') throw new ProbeError(`${e.from} is a cluster address no pod holds`);
  const to = resolveEnd(ix, e.to, from.kind === 'pod' ? from.pod.router : undefined);
  if (to.kind === 'pending') return { kind: 'denied', reason: `${e.to} ${to.why}: it has no interface` };
  if (e.spoof !== undefined && from.kind !== 'pod') throw new ProbeError(`only a pod spoofs (${e.from})`);
  if ((e.via !== undefined || e.snat !== undefined) && (from.kind !== 'pod' || to.kind !== 'outside'))
    throw new ProbeError(`via and snat are for probes from a pod to an outside host (${e.from} → ${e.to})`);
  const r =
    from.kind === 'outside'
      ? fromOutside(ix, e, from, to, n)
      : from.kind === 'host'
        ? fromHostProbe(ix, e, from.host, to, n)
        : fromPod(ix, e, from.pod, to, n);
  return e.spoof === undefined || r.kind !== 'packet' ? r : spoofed(ix, r, e.spoof);
}

type Ended<K extends End['kind']> = Extract<End, { readonly kind: K }>;

/** A probe from an outside host: into the cluster through a node's join port, to a pod of the default VPC. */
function fromOutside(
  ix: ProbeIndex,
  e: ScenarioProbe,
  from: Ended<'outside'>,
  to: Exclude<End, Ended<'pending'>>,
  n: number,
): ResolvedProbe {
  const viaGateway = toEip(ix, e, from, to, n);
  if (viaGateway !== undefined) return viaGateway;
  if (to.kind === 'outside' || to.kind === 'host')
    throw new ProbeError(`${e.from} → ${e.to}: a probe between two machines outside the cluster network`);
  if (to.kind !== 'pod') return { kind: 'denied', reason: `${e.to} is not reachable from outside the cluster` };
  if (to.pod.router !== ix.settings.clusterRouter)
    return { kind: 'denied', reason: `${e.to} is in VPC ${to.pod.router}, unreachable from outside` };
  const node = ix.nodes.get(to.pod.node);
  if (node === undefined) return { kind: 'denied', reason: `${e.to} has no node with a join port` };
  const dst = to.pod.ips.find((ip) => isV6(ip) === isV6(from.ip));
  if (dst === undefined) return { kind: 'denied', reason: `${e.to} has no address of ${from.ip}'s family` };
  const joinMac = routerPortMac(ix.topology, ix.settings.clusterRouter, ix.settings.nodeSwitch);
  return {
    kind: 'packet',
    inport: node.port,
    packet: packetFor(e, { ethSrc: node.mac, ethDst: joinMac, src: from.ip, dst }, n),
    targets: [to.pod.port],
  };
}

/** The first pair (source address, one of `ips`) of one family, the source's addresses in order. */
function pickPair(src: ProbePod, ips: readonly string[]): { s: string; d: string } | undefined {
  for (const s of src.ips) {
    const d = ips.find((ip) => isV6(ip) === isV6(s));
    if (d) return { s, d };
  }
  return undefined;
}

/** A probe from a pod: to a pod, a Service, a cluster address (a router's own) or an outside host. */
function fromPod(
  ix: ProbeIndex,
  e: ScenarioProbe,
  src: ProbePod,
  to: Exclude<End, Ended<'pending'>>,
  n: number,
): ResolvedProbe {
  const gwMac = routerPortMac(ix.topology, src.router, src.subnet);
  // A pod reaches a host on its own network without a router (an underlay subnet's physical gateway).
  if (gwMac === '' && to.kind !== 'host' && !(to.kind === 'pod' && to.pod.subnet === src.subnet))
    return { kind: 'denied', reason: `${e.from}'s subnet ${src.subnet} has no router port` };
  const pick = (ips: readonly string[]) => pickPair(src, ips);
  switch (to.kind) {
    case 'pod': {
      // A probe to an address goes to that address: never to the pod's address of another family.
      const p = pick(to.ip !== undefined ? [to.ip] : to.pod.ips);
      if (p === undefined) return { kind: 'denied', reason: `${e.from} and ${e.to} share no address family` };
      // On-link only to the pod's own address: an EIP in front of it is routed (probe-nat.ts).
      const onLink = to.pod.subnet === src.subnet && (to.ip === undefined || to.pod.ips.includes(to.ip));
      const ethDst = onLink ? to.pod.mac : gwMac;
      return {
        kind: 'packet',
        inport: src.port,
        packet: packetFor(e, { ethSrc: src.mac, ethDst, src: p.s, dst: p.d }, n),
        targets: [to.pod.port],
      };
    }
    case 'service':
      return toService(ix, e, src, to, gwMac, n);
    case 'host':
      return legProbe(e, podToHost(ix.topology, ix.subnets, src, gwMac, to.host, to.ip), n, src.port);
    case 'cluster-ip': {
      const p = pick([to.ip]);
      if (p === undefined) return { kind: 'denied', reason: `${e.to} is not of ${e.from}'s family` };
      const gateway = [...ix.topology.routerPort.values()].some(
        (rp) => rp.router === src.router && rp.networks.some((n) => n.split('/')[0] === to.ip),
      );
      if (e.protocol === 'ICMP' && gateway) {
        return {
          kind: 'packet',
          inport: src.port,
          packet: packetFor(e, { ethSrc: src.mac, ethDst: gwMac, src: p.s, dst: p.d }, n),
          targets: [],
          routerAnswers: true,
        };
      }
      return { kind: 'denied', reason: `no pod holds ${to.ip} and no Service serves it` };
    }
    case 'outside': {
      // A custom VPC leaves the cluster network only through its own gateway (enableExternal, a VPC NAT
      // gateway): kovn does not model those (a VPC or object with one is reported, its probes unsure).
      const gateways = ix.natGateways.filter((g) => vpcOfGateway(ix, g) === src.router);
      if (src.router !== ix.settings.clusterRouter && gateways.length > 0) {
        const p = pick([to.ip]);
        if (p === undefined) return { kind: 'denied', reason: `${e.to} is not of ${e.from}'s family` };
        return {
          kind: 'packet',
          inport: src.port,
          packet: packetFor(e, { ethSrc: src.mac, ethDst: gwMac, src: p.s, dst: p.d }, n),
          targets: gateways.map((g) => g.port),
          natGateway: { direction: 'egress', appliances: gateways },
        };
      }
      if (src.router !== ix.settings.clusterRouter)
        return {
          kind: 'denied',
          reason: `${e.from} is in VPC ${src.router}, which has no gateway out of the cluster network`,
        };
      const p = pick([to.ip]);
      if (p === undefined) return { kind: 'denied', reason: `${e.to} is not of ${e.from}'s family` };
      const other = masqueradeMismatch(ix, e, src, p);
      if (other !== undefined) return { kind: 'denied', reason: other };
      return {
        kind: 'packet',
        inport: src.port,
        packet: packetFor(e, { ethSrc: src.mac, ethDst: gwMac, src: p.s, dst: p.d }, n),
        targets: exitPorts(ix, e),
      };
    }
  }
}

/**
 * For a probe from a pod to an outside host that left the cluster network at
 * `outport` (a node's join port): what that node does with it, as Kube-OVN's
 * node agent would (kovn's model of its iptables, not OVN's), for a trace.
 *
 * @example egressNote(ix, { from: 'edge/app', to: '192.0.2.9', protocol: 'ICMP', allowed: true }, 'node-node-1')
 *   // 'left the cluster network at node-node-1, whose node agent does not masquerade 10.97.0.2 → 192.0.2.9 (...)'
 */
export function egressNote(ix: ProbeIndex, e: ScenarioProbe, outport: string | undefined): string | undefined {
  const src = ix.pods.get(e.from);
  if (src === undefined || tryParseIP(e.to) === undefined || resolveEnd(ix, e.to, src.router).kind !== 'outside')
    return undefined;
  const node = [...ix.nodes.entries()].find(([, n]) => n.port === outport);
  if (node === undefined) return undefined;
  const p = pickPair(src, [e.to]);
  if (p === undefined) return undefined;
  const subnet = ix.subnets.get(src.subnet) ?? { natOutgoing: false, natOutgoingPolicyRules: [] };
  const d = nodeMasquerades(subnet, p.s, p.d);
  const egw = 'externalEgressGateway' in subnet ? egressGatewayRoute(subnet, isV6(p.d) ? 6 : 4) : undefined;
  const what = d.snat
    ? `masquerades ${p.s} → ${p.d} to the node's address`
    : `does not masquerade ${p.s} → ${p.d}${egw ? ` and routes it to ${egw}` : ''}`;
  return `left the cluster network at ${outport} (node ${node[0]}), whose node agent ${what} (Subnet ${src.subnet} ${d.by}; Kube-OVN's node agent, its iptables and ip rules, modelled by kovn, not part of OVN's trace)`;
}

/** The join ports a probe to an outside host may leave by: its `via` node's, else every node's. */
function exitPorts(ix: ProbeIndex, e: ScenarioProbe): string[] {
  if (e.via === undefined) return [...ix.nodes.values()].map((x) => x.port);
  const node = ix.nodes.get(e.via);
  if (node === undefined) {
    const near = closeNames(e.via, ix.nodes.keys());
    throw new ProbeError(`via: no node ${e.via}${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}`);
  }
  return [node.port];
}

/**
 * A probe's `snat` against what the gateway node's iptables do with the
 * packet (controller/translate/subnet-gateway.ts nodeMasquerades, Kube-OVN's
 * node agent): the reason it does not arrive as asked, or undefined. It
 * depends on the subnet and the addresses only, so it is decided here, the
 * same for every world; the worlds decide whether the packet gets there.
 */
function masqueradeMismatch(
  ix: ProbeIndex,
  e: ScenarioProbe,
  src: ProbePod,
  p: { s: string; d: string },
): string | undefined {
  if (e.snat === undefined) return undefined;
  const subnet = ix.subnets.get(src.subnet) ?? { natOutgoing: false, natOutgoingPolicyRules: [] };
  const d = nodeMasquerades(subnet, p.s, p.d);
  if (d.snat === e.snat) return undefined;
  return d.snat
    ? `the gateway node masquerades ${p.s} → ${p.d} (Subnet ${src.subnet} ${d.by})`
    : `the gateway node does not masquerade ${p.s} → ${p.d} (Subnet ${src.subnet} ${d.by})`;
}

/** A probe to a Service's cluster IP: to any of its ready endpoints of that port. */
function toService(
  ix: ProbeIndex,
  e: ScenarioProbe,
  src: ProbePod,
  to: Ended<'service'>,
  gwMac: string,
  n: number,
): ResolvedProbe {
  if (e.protocol === 'ICMP') throw new ProbeError(`ICMP is not a Service probe (${e.to})`);
  const sp = to.svc.ports.find((p) => p.port === e.port && p.protocol === e.protocol);
  if (sp === undefined) return { kind: 'denied', reason: `Service ${to.svc.key} has no ${e.protocol} port ${e.port}` };
  const p = pickPair(src, to.ip ? [to.ip] : to.svc.clusterIPs);
  if (p === undefined)
    return { kind: 'denied', reason: `Service ${to.svc.key} has no cluster IP of ${e.from}'s family` };
  const eps = to.svc.endpoints.get(sp.name ?? '') ?? [];
  if (eps.length === 0) return { kind: 'denied', reason: `no endpoint: Service ${to.svc.key} has no ready endpoint` };
  const unanswered = unansweredOnLink(ix, src, p.d);
  if (unanswered !== undefined) return { kind: 'denied', reason: `${e.from} ${unanswered}` };
  return {
    kind: 'packet',
    inport: src.port,
    packet: packetFor(e, { ethSrc: src.mac, ethDst: gwMac, src: p.s, dst: p.d }, n),
    targets: [...new Set(eps.map((x) => x.port))],
    endpoints: eps,
  };
}

/**
 * A VIP inside the source's own subnet (a SwitchLBRule's) is on-link for the pod: it ARPs for it
 * rather than sending to its gateway, and OVN 23.03 installs no ARP responder for a load
 * balancer's VIP. Real packets showed it: nothing answers, the connection never starts. Kube-OVN
 * adds a port holding the VIP with the router's MAC (vip.go); kovn does not write it (on 23.03 it
 * makes the switch's L2 lookup of that MAC ambiguous: docs/fields.md, Vip `spec.type`).
 */
function unansweredOnLink(ix: ProbeIndex, src: ProbePod, dst: string): string | undefined {
  const a = tryParseIP(dst);
  const own = ix.subnets.get(src.subnet)?.cidrs ?? [];
  const onLink = own.some((c) => {
    const net = tryParseCIDR(c);
    return a !== undefined && net !== undefined && net.family === a.family && containsIP(net, a);
  });
  if (!onLink) return undefined;
  const sw = ix.topology.switchPort.get(src.port)?.switch;
  if (sw !== undefined && arpOwner(ix.topology, ix.hosts, sw, { provider: '', vlan: 0 }, dst) !== undefined)
    return undefined;
  return `ARPs for ${dst} on its own subnet ${src.subnet} and nothing answers (no ARP responder for a load balancer VIP)`;
}

/** The VPC a gateway's pod is in (its port's subnet's router). */
function vpcOfGateway(ix: ProbeIndex, g: NatAppliance): string | undefined {
  for (const p of ix.pods.values()) if (p.port === g.port) return p.router;
  return undefined;
}

/** A probe from an outside host to a NAT gateway's EIP: the appliance's DNAT, then OVN from the gateway's port. */
function toEip(
  ix: ProbeIndex,
  e: ScenarioProbe,
  from: Ended<'outside'>,
  to: Exclude<End, Ended<'pending'>>,
  n: number,
): ResolvedProbe | undefined {
  if (to.kind !== 'outside' && to.kind !== 'cluster-ip') return undefined;
  const app = ix.natGateways.find((g) => g.rules.eips.some((x) => x.ip === to.ip));
  if (app === undefined) return undefined;
  // The outside's router hands the packet to the EIP's owner on net1: its MAC is the gateway's own there.
  const outside = packetFor(
    e,
    { ethSrc: '02:00:00:00:00:01', ethDst: '02:00:00:00:00:02', src: from.ip, dst: to.ip },
    n,
  );
  const a = intoGateway(app, outside);
  if ('reason' in a) {
    if (a.answered)
      throw new ProbeError(`${e.to} is ${app.name}'s own address: probes to the gateway itself are not modelled`);
    return { kind: 'denied', reason: a.reason };
  }
  const vpc = vpcOfGateway(ix, app);
  const dst = a.packet['ip4.dst'];
  const pod = [...ix.pods.values()].find(
    (p) => p.router === vpc && p.ips.some((ip) => tryParseIP(ip)?.family === 4 && tryParseIP(ip)?.value === dst),
  );
  if (pod === undefined)
    return { kind: 'denied', reason: `${app.name} DNATs ${e.to} to an address no pod of its VPC holds` };
  return {
    kind: 'packet',
    inport: app.port,
    packet: a.packet,
    targets: [pod.port],
    natGateway: { direction: 'ingress', appliance: app, stages: a.stages, outside },
  };
}

/** A host leg (probe-hosts.ts) as a resolved probe; `inport` for a leg from a pod. */
function legProbe(e: ScenarioProbe, leg: HostLeg, n: number, inport?: string): ResolvedProbe {
  if (leg.kind === 'denied') return leg;
  return {
    kind: 'packet',
    inport: inport ?? leg.inport,
    packet: packetFor(e, { ethSrc: leg.ethSrc, ethDst: leg.ethDst, src: leg.src, dst: leg.dst }, n),
    targets: leg.targets,
    ...(leg.targetMac !== undefined ? { targetMac: leg.targetMac } : {}),
    physicalHost: leg.host,
  };
}

/** A probe from a physical host: into OVN at a localnet port of its network (probe-hosts.ts). */
function fromHostProbe(
  ix: ProbeIndex,
  e: ScenarioProbe,
  h: ScenarioHost,
  to: Exclude<End, Ended<'pending'>>,
  n: number,
): ResolvedProbe {
  const leg = (dst: string, targets: readonly string[]) => fromHost(ix.topology, ix.hosts, ix.subnets, h, dst, targets);
  switch (to.kind) {
    case 'host':
    case 'outside':
      throw new ProbeError(`${e.from} → ${e.to}: a probe between two machines outside the cluster network`);
    case 'pod': {
      const own = h.ips.map((c) => c.split('/')[0]!);
      const dst = (to.ip !== undefined ? [to.ip] : to.pod.ips).find((ip) => own.some((a) => isV6(a) === isV6(ip)));
      if (dst === undefined) return { kind: 'denied', reason: `host ${h.name} and ${e.to} share no address family` };
      return legProbe(e, leg(dst, [to.pod.port]), n);
    }
    case 'service':
      return { kind: 'denied', reason: `${e.to}: a Service's cluster IP is not served to a physical host` };
    case 'cluster-ip': {
      const gateway = [...ix.topology.routerPort.values()].some((rp) =>
        rp.networks.some((x) => x.split('/')[0] === to.ip),
      );
      const r = legProbe(e, leg(to.ip, []), n);
      if (e.protocol === 'ICMP' && gateway && r.kind === 'packet') return { ...r, routerAnswers: true };
      return r.kind === 'denied' ? r : { kind: 'denied', reason: `no pod holds ${to.ip} and no Service serves it` };
    }
  }
}

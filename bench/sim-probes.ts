/**
 * The probe mix of `kovn bench sim`: first packets (TCP SYN, UDP, ICMP echo)
 * between pods of one switch, across switches through `ovn-cluster`, to
 * Service VIPs, along NetworkPolicy allow rules, and from nodes (the join
 * switch) to pods. Seeded, so every run traces the same probes; each probe
 * carries what ovn-trace needs to trace it too (datapath, LB backend).
 */
import { containsIP, formatIPv4, parseCIDR, v4 } from '../model/addr/index.ts';
import { icmpEcho, tcpPacket, udpPacket, type Packet } from '../sim/index.ts';
import type { ClusterPolicy } from './sim-policies.ts';
import { type ClusterPod, JOIN_SWITCH, Rng, type SimCluster } from './sim-topology.ts';

export type ProbeKind = 'same-switch' | 'routed' | 'vip' | 'policy-allowed' | 'policy-denied' | 'node-to-pod';
export type ProbeProto = 'tcp' | 'udp' | 'icmp';

export interface BenchProbe {
  readonly kind: ProbeKind;
  readonly proto: ProbeProto;
  /** The logical switch the packet enters (ovn-trace's datapath argument). */
  readonly datapath: string;
  readonly inport: string;
  readonly packet: Packet;
  /** VIP probes: the backend the simulator's default selector takes (the first), `ip:port`. */
  readonly lbBackend?: string;
  /** VIP probes: how many backends the VIP has (more than one needs a one-shot ovn-trace). */
  readonly backends?: number;
  /** e.g. `tcp a.ns-1 -> b.ns-2:80`, for reports. */
  readonly label: string;
}

/** Kind weights out of 20. */
const MIX: readonly [ProbeKind, number][] = [
  ['same-switch', 4],
  ['routed', 5],
  ['vip', 4],
  ['policy-allowed', 4],
  ['policy-denied', 2],
  ['node-to-pod', 1],
];
const OTHER_PORTS = [22, 443, 9999];

interface Endpoint {
  readonly port: string;
  readonly datapath: string;
  readonly ip: number;
  readonly mac: number;
  readonly gatewayMac: number;
  readonly name: string;
}

const podEnd = (p: ClusterPod): Endpoint => ({
  port: p.port,
  datapath: p.subnet.name,
  ip: p.ip,
  mac: p.mac,
  gatewayMac: p.subnet.routerMac,
  name: p.port,
});

/**
 * @example generateProbes(cluster, { count: 10_000, seed: 1 }) // the same 10,000 probes every run
 */
export function generateProbes(c: SimCluster, opts: { readonly count: number; readonly seed: number }): BenchProbe[] {
  const rng = new Rng(opts.seed ^ 0x5eed);
  const bySubnet = new Map<string, ClusterPod[]>();
  for (const p of c.pods) {
    const list = bySubnet.get(p.subnet.name) ?? [];
    list.push(p);
    bySubnet.set(p.subnet.name, list);
  }
  const withPeers = c.policies.filter((p) => p.ingress.some((r) => Array.isArray(r.peers) && r.peers.length > 0));
  const out: BenchProbe[] = [];
  for (let i = 0; i < opts.count; i++) {
    let roll = rng.int(20);
    let kind: ProbeKind = 'routed';
    for (const [k, w] of MIX) {
      if (roll < w) {
        kind = k;
        break;
      }
      roll -= w;
    }
    out.push(probeOf(kind, rng, c, bySubnet, withPeers));
  }
  return out;
}

function probeOf(
  kind: ProbeKind,
  rng: Rng,
  c: SimCluster,
  bySubnet: Map<string, ClusterPod[]>,
  withPeers: readonly ClusterPolicy[],
): BenchProbe {
  switch (kind) {
    case 'same-switch': {
      const src = rng.pick(c.pods);
      const mates = bySubnet.get(src.subnet.name)!.filter((p) => p !== src);
      return mates.length === 0 ? randomPair('routed', rng, c) : podProbe('same-switch', rng, src, rng.pick(mates));
    }
    case 'vip':
      if (c.services.length > 0) return vipProbe(rng, c);
      return randomPair('routed', rng, c);
    case 'policy-allowed':
      if (withPeers.length > 0) return policyProbe(rng, c, rng.pick(withPeers));
      return randomPair('routed', rng, c);
    case 'policy-denied':
      if (c.policies.length > 0) return deniedProbe(rng, c, rng.pick(c.policies));
      return randomPair('routed', rng, c);
    case 'node-to-pod': {
      // kubelet's probes: a node reaches the pods it runs (the node ACLs at 3000 are about those).
      const dst = rng.pick(c.pods);
      const node = dst.node;
      const src: Endpoint = {
        port: node.port,
        datapath: JOIN_SWITCH,
        ip: node.ip,
        mac: node.mac,
        gatewayMac: c.join.routerMac,
        name: node.port,
      };
      return build('node-to-pod', 'tcp', src, podEnd(dst), dst.app.protocol === 'tcp' ? dst.app.port : 80, rng, true);
    }
    default:
      return randomPair('routed', rng, c);
  }
}

function randomPair(kind: ProbeKind, rng: Rng, c: SimCluster): BenchProbe {
  const src = rng.pick(c.pods);
  let dst = rng.pick(c.pods);
  if (dst === src) dst = c.pods[(c.pods.indexOf(src) + 1) % c.pods.length]!;
  return podProbe(kind, rng, src, dst);
}

/** TCP 60% (the destination's port mostly), UDP 20%, ICMP echo 20%. */
function podProbe(kind: ProbeKind, rng: Rng, src: ClusterPod, dst: ClusterPod): BenchProbe {
  const roll = rng.int(10);
  const proto: ProbeProto = roll < 6 ? 'tcp' : roll < 8 ? 'udp' : 'icmp';
  const own = dst.app.protocol === proto;
  const dport =
    own && rng.chance(0.7)
      ? dst.app.port
      : proto === 'udp'
        ? 53
        : rng.pick([dst.app.port === 80 ? 8080 : 80, ...OTHER_PORTS]);
  return build(kind, proto, podEnd(src), podEnd(dst), dport, rng, src.subnet !== dst.subnet);
}

function vipProbe(rng: Rng, c: SimCluster): BenchProbe {
  const svc = rng.pick(c.services);
  const src = podEnd(rng.pick(c.pods));
  const first = svc.backends[0]!;
  const vip: Endpoint = {
    port: '',
    datapath: '',
    ip: svc.vip,
    mac: 0,
    gatewayMac: 0,
    name: `${svc.namespace}/${svc.name}`,
  };
  const p = build('vip', svc.protocol, src, vip, svc.port, rng, true);
  return { ...p, lbBackend: `${formatIPv4(first.ip)}:${first.app.port}`, backends: svc.backends.length };
}

function policyProbe(rng: Rng, c: SimCluster, policy: ClusterPolicy): BenchProbe {
  const rules = policy.ingress.filter((r) => Array.isArray(r.peers) && r.peers.length > 0);
  const rule = rng.pick(rules);
  const peers = rule.peers as readonly ClusterPod[];
  const dst = rng.pick(policy.selected);
  const src = rng.pick(peers);
  if (src === dst) return randomPair('routed', rng, c);
  const pp = rule.ports.length > 0 ? rng.pick(rule.ports) : { protocol: dst.app.protocol, port: dst.app.port };
  return build('policy-allowed', pp.protocol, podEnd(src), podEnd(dst), pp.port, rng, src.subnet !== dst.subnet);
}

/**
 * A selected pod on a port its policy allows, from a pod none of its ingress rules names (another policy may still
 * allow it).
 */
function deniedProbe(rng: Rng, c: SimCluster, policy: ClusterPolicy): BenchProbe {
  const dst = rng.pick(policy.selected);
  const named = (p: ClusterPod): boolean =>
    policy.ingress.some((r) =>
      Array.isArray(r.peers)
        ? r.peers.includes(p)
        : containsIP(parseCIDR((r.peers as { cidr: string }).cidr), v4(p.ip)),
    );
  let src = rng.pick(c.pods);
  for (let tries = 0; tries < 10 && (src === dst || named(src)); tries++) src = rng.pick(c.pods);
  if (src === dst) return randomPair('routed', rng, c);
  const pp = policy.ingress.find((r) => r.ports.length > 0)?.ports[0] ?? {
    protocol: dst.app.protocol,
    port: dst.app.port,
  };
  return build('policy-denied', pp.protocol, podEnd(src), podEnd(dst), pp.port, rng, src.subnet !== dst.subnet);
}

function build(
  kind: ProbeKind,
  proto: ProbeProto,
  src: Endpoint,
  dst: Endpoint,
  dport: number,
  rng: Rng,
  routed: boolean,
): BenchProbe {
  const spec = { ethSrc: src.mac, ethDst: routed ? src.gatewayMac : dst.mac, src: src.ip, dst: dst.ip };
  const sport = 32768 + rng.int(28000);
  const packet =
    proto === 'tcp'
      ? tcpPacket({ ...spec, sport, dport })
      : proto === 'udp'
        ? udpPacket({ ...spec, sport, dport })
        : icmpEcho({ ...spec, id: 1 + rng.int(65000) });
  const to = proto === 'icmp' ? dst.name : `${dst.name}:${dport}`;
  return { kind, proto, datapath: src.datapath, inport: src.port, packet, label: `${proto} ${src.name} -> ${to}` };
}

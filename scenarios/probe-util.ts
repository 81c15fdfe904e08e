/**
 * Helpers of probe resolution (probe.ts): close names for a "no such pod"
 * message, the VPCs a VPC's router reaches by peering, a probe's first packet.
 */
import { icmpEcho, sctpPacket, tcpPacket, udpPacket, type Packet } from '../model/packet/index.ts';
import type { Topology } from '../model/topology/index.ts';
import type { ScenarioProbe } from './load.ts';

/** Close names for a "no such pod" message. */
export function closeNames(want: string, have: Iterable<string>): string[] {
  const dist = (a: string, b: string) => {
    const d = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = d[0]!;
      d[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const cur = d[j]!;
        d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = cur;
      }
    }
    return d[b.length]!;
  };
  return [...have]
    .map((h) => ({ h, d: dist(want, h) }))
    .filter((x) => x.d <= Math.max(3, want.length / 3))
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map((x) => x.h);
}

/**
 * `vpc` and the VPCs its router reaches through peering ports (router ports
 * with a `peer`), breadth first: a peered VPC's addresses are reachable when
 * the VPCs' routes say so, and the probe follows the packet to find out.
 */
export function reachableVpcs(t: Topology, vpc: string): string[] {
  const out = [vpc];
  for (let i = 0; i < out.length; i++) {
    for (const rp of t.routerPort.values()) {
      if (rp.router !== out[i] || !rp.peer) continue;
      const remote = t.routerPort.get(rp.peer)?.router;
      if (remote !== undefined && !out.includes(remote)) out.push(remote);
    }
  }
  return out;
}

/** A probe's first packet: its source port (and ICMP id) numbered by `n`. */
export function packetFor(
  e: ScenarioProbe,
  spec: { ethSrc: string; ethDst: string; src: string; dst: string },
  n: number,
  dport?: number,
): Packet {
  const sport = 30000 + (n % 20000);
  if (e.protocol === 'ICMP') return icmpEcho({ ...spec, id: 1 + (n % 60000) });
  const full = { ...spec, sport, dport: dport ?? e.port ?? 0 };
  return e.protocol === 'UDP' ? udpPacket(full) : e.protocol === 'SCTP' ? sctpPacket(full) : tcpPacket(full);
}

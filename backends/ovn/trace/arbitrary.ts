/**
 * fast-check generators of simulator packets of every kind a microflow must
 * carry (test-only): TCP/UDP/SCTP/ICMP over IPv4 and IPv6, other IP
 * protocols, ARP, RARP, ND NS/NA, other Ethertypes, with or without a VLAN
 * tag, fragments, TCP flags, DSCP/ECN.
 */
import fc from 'fast-check';
import { ETH_TYPE_ARP, ETH_TYPE_RARP } from '../../../model/packet/fields.ts';
import {
  icmpEcho,
  ipHeaders,
  ndNa,
  ndNs,
  sctpPacket,
  tcpPacket,
  udpPacket,
  arpRequest,
  arpReply,
} from '../../../model/packet/build.ts';
import type { Packet } from '../../../model/packet/packet.ts';

export interface PacketArbOptions {
  /** Generate non-zero DSCP/ECN (ovn-trace ignores them in microflows). Default true. */
  readonly dscp?: boolean;
  /** Generate later fragments (ovn-trace's flow line then drops the L4 fields). Default true. */
  readonly laterFragments?: boolean;
}

const mac = fc.integer({ min: 0, max: 2 ** 48 - 1 });
const ip4 = fc.integer({ min: 0, max: 2 ** 32 - 1 });
const ip6 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
const port = fc.integer({ min: 0, max: 65535 });
const byte = fc.integer({ min: 0, max: 255 });

function ipSpec(v6: boolean, o: PacketArbOptions) {
  return fc.record({
    ethSrc: mac,
    ethDst: mac,
    src: v6 ? ip6 : ip4,
    dst: v6 ? ip6 : ip4,
    ttl: byte,
    dscp: o.dscp === false ? fc.constant(0) : fc.integer({ min: 0, max: 63 }),
    ecn: o.dscp === false ? fc.constant(0) : fc.integer({ min: 0, max: 3 }),
    frag: fc.constantFrom(...(o.laterFragments === false ? [0, 1] : [0, 1, 3])),
    label: v6 ? fc.integer({ min: 0, max: 0xfffff }) : fc.constant(0),
  });
}

type IpSpec = {
  ethSrc: number;
  ethDst: number;
  src: number | bigint;
  dst: number | bigint;
  ttl: number;
  dscp: number;
  ecn: number;
  frag: number;
  label: number;
};

function finish(p: Packet, s: IpSpec, v6: boolean): Packet {
  const out: Record<string, unknown> = { ...p, 'ip.ecn': s.ecn, 'ip.frag': s.frag };
  if (v6) out['ip6.label'] = s.label;
  return out as unknown as Packet;
}

function ipPacket(v6: boolean, o: PacketArbOptions): fc.Arbitrary<Packet> {
  const kinds = fc.oneof(
    fc.record({ k: fc.constant('tcp' as const), sport: port, dport: port, flags: fc.integer({ min: 0, max: 0xfff }) }),
    fc.record({ k: fc.constant('udp' as const), sport: port, dport: port }),
    fc.record({ k: fc.constant('sctp' as const), sport: port, dport: port }),
    fc.record({ k: fc.constant('echo' as const), reply: fc.boolean() }),
    fc.record({ k: fc.constant('icmp' as const), type: byte, code: byte }),
    fc.record({ k: fc.constant('proto' as const), proto: fc.constantFrom(0, 2, 4, 41, 47, 50, 89, 103, 255) }),
  );
  return fc.tuple(ipSpec(v6, o), kinds).map(([s, k]) => {
    const spec = { ethSrc: s.ethSrc, ethDst: s.ethDst, src: s.src, dst: s.dst, ttl: s.ttl, dscp: s.dscp };
    let p: Packet;
    if (k.k === 'tcp') p = tcpPacket({ ...spec, sport: k.sport, dport: k.dport, flags: k.flags });
    else if (k.k === 'udp') p = udpPacket({ ...spec, sport: k.sport, dport: k.dport });
    else if (k.k === 'sctp') p = sctpPacket({ ...spec, sport: k.sport, dport: k.dport });
    else if (k.k === 'echo') p = icmpEcho({ ...spec, kind: k.reply ? 'reply' : 'request' });
    else if (k.k === 'icmp') {
      const e = icmpEcho(spec);
      const t = v6 ? 'icmp6' : 'icmp4';
      p = { ...e, [`${t}.type`]: k.type, [`${t}.code`]: k.code } as Packet;
    } else p = ipHeaders(spec, k.proto);
    return finish(p, s, v6);
  });
}

const nd = fc.oneof(
  fc.record({ ethSrc: mac, src: ip6, target: ip6 }).map((s) => ndNs(s)),
  fc.record({ ethSrc: mac, ethDst: mac, src: ip6, dst: ip6, target: ip6 }).map((s) => ndNa(s)),
);

// arp.op stays below 256: OVS keeps it in nw_proto (8 bits), so a larger op never reaches a trace.
const arp = fc
  .record({
    sha: mac,
    spa: ip4,
    tpa: ip4,
    tha: mac,
    ethDst: mac,
    reply: fc.boolean(),
    rarp: fc.boolean(),
    op: fc.integer({ min: 0, max: 255 }),
  })
  .map((s) => {
    const p = s.reply ? arpReply(s) : arpRequest({ sha: s.sha, spa: s.spa, tpa: s.tpa });
    return s.rarp
      ? ({ ...p, 'eth.type': ETH_TYPE_RARP, 'arp.op': s.op } as Packet)
      : ({ ...p, 'eth.type': ETH_TYPE_ARP } as Packet);
  });

const otherEth = fc
  .record({ src: mac, dst: mac, type: fc.constantFrom(0x88cc, 0x8809, 0x88e5, 0x0842, 0x9000) })
  .map((s): Packet => ({ 'eth.src': s.src, 'eth.dst': s.dst, 'eth.type': s.type }));

/** A VLAN tag as OVS keeps it: CFI bit set, PCP and VID. */
const vlan = fc.option(
  fc
    .record({ pcp: fc.integer({ min: 0, max: 7 }), vid: fc.integer({ min: 0, max: 4095 }) })
    .map((v) => 0x1000 | (v.pcp << 13) | v.vid),
  { nil: undefined, freq: 4 },
);

/**
 * Packets of every kind the simulator builds.
 *
 * @example fc.assert(fc.property(packetArbitrary(), (p) => parseMatch(toMicroflow(p, 'p1')) !== undefined), fcParams(200))
 */
export function packetArbitrary(o: PacketArbOptions = {}): fc.Arbitrary<Packet> {
  const base = fc.oneof(ipPacket(false, o), ipPacket(true, o), nd, arp, otherEth);
  return fc.tuple(base, vlan).map(([p, tci]) => (tci === undefined ? p : ({ ...p, 'vlan.tci': tci } as Packet)));
}

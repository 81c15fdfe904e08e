/**
 * The load-balancer affinity case the simulator's test (sim/lb-affinity.test.ts) and the
 * real-packet test (verify/datapath/lb-affinity.test.ts) share: clients c1 and c2 and
 * backends b1 and b2 on one switch behind a router, a UDP (or TCP) VIP 10.96.0.1:80 over both backends
 * (or an SCTP VIP 10.96.0.1 without ports).
 */
import { sctpPacket, tcpPacket, udpPacket } from '../model/packet/build.ts';
import type { Packet } from '../model/packet/packet.ts';
import { TopoBuilder, type Topology } from '../model/topology/index.ts';

export const AFFINITY_MAC = {
  c1: '50:54:00:00:00:01',
  c2: '50:54:00:00:00:05',
  b1: '50:54:00:00:00:03',
  b2: '50:54:00:00:00:04',
} as const;
export const AFFINITY_GW = '00:00:00:00:01:01';

export type AffinityProtocol = 'udp' | 'sctp' | 'tcp';

/** UDP or TCP. */
const PORT_VIPS = { '10.96.0.1:80': '10.0.0.3:8080,10.0.0.4:8080' };
/**
 * SCTP without ports: OVS 3.1's userspace conntrack rewrites no SCTP port, so a port-mapping VIP
 * delivers to the backend's address on the VIP's port and its affinity learn flow (on the backend's
 * port) never matches.
 */
const SCTP_VIPS = { '10.96.0.1': '10.0.0.3,10.0.0.4' };

/** The topology, the load balancer with these options (e.g. `{ affinity_timeout: '60' }`). */
export function affinityTopology(options: Record<string, string>, protocol: AffinityProtocol = 'udp'): Topology {
  return new TopoBuilder()
    .switch('sw', ['lb'])
    .vif('c1', 'sw', AFFINITY_MAC.c1, '10.0.0.2')
    .vif('c2', 'sw', AFFINITY_MAC.c2, '10.0.0.5')
    .vif('b1', 'sw', AFFINITY_MAC.b1, '10.0.0.3')
    .vif('b2', 'sw', AFFINITY_MAC.b2, '10.0.0.4')
    .router('lr')
    .connect('lr', 'sw', AFFINITY_GW, ['10.0.0.1/24'])
    .lb('lb', protocol === 'sctp' ? SCTP_VIPS : PORT_VIPS, { protocol, options })
    .build();
}

/** A datagram (or SCTP packet, or TCP SYN) from a client to the VIP. */
export function toVip(from: 'c1' | 'c2', sport: number, protocol: AffinityProtocol = 'udp'): Packet {
  return (protocol === 'sctp' ? sctpPacket : protocol === 'tcp' ? tcpPacket : udpPacket)({
    ethSrc: AFFINITY_MAC[from],
    ethDst: AFFINITY_GW,
    src: from === 'c1' ? '10.0.0.2' : '10.0.0.5',
    dst: '10.96.0.1',
    sport,
    dport: 80,
  });
}

/**
 * The MAC-learning case the simulator's test (sim/fdb.test.ts) and the real-packet test
 * (verify/datapath/fdb.test.ts) share: on one switch, u1 and u2 take any MAC
 * (`unknown`, no port security: they learn what they send), s1 too but with port security
 * (it does not learn), and c sends to a MAC no port owns.
 */
import { udpPacket } from '../model/packet/build.ts';
import type { Packet } from '../model/packet/packet.ts';
import { TopoBuilder, type Topology } from '../model/topology/index.ts';

export const FDB_MAC = {
  c: '50:54:00:00:00:01',
  u1: '50:54:00:00:00:02',
  u2: '50:54:00:00:00:03',
  s1: '50:54:00:00:00:04',
  /** Owned by no port: sent behind u1 (or s1). */
  behind: '0a:58:de:ad:be:ef',
} as const;

export function fdbTopology(): Topology {
  return new TopoBuilder()
    .switch('sw')
    .vif('c', 'sw', FDB_MAC.c, '10.0.0.2')
    .vif('u1', 'sw', FDB_MAC.u1, '10.0.0.3', { extraAddresses: ['unknown'] })
    .vif('u2', 'sw', FDB_MAC.u2, '10.0.0.4', { extraAddresses: ['unknown'] })
    .vif('s1', 'sw', FDB_MAC.s1, '10.0.0.5', {
      extraAddresses: ['unknown'],
      portSecurity: [FDB_MAC.behind],
    })
    .build();
}

/** c to the MAC behind u1, and the answer from behind u1 (or s1) with that MAC as its source. */
export const toBehind = (): Packet =>
  udpPacket({ ethSrc: FDB_MAC.c, ethDst: FDB_MAC.behind, src: '10.0.0.2', dst: '10.0.0.99', sport: 1000, dport: 53 });
export const fromBehind = (): Packet =>
  udpPacket({ ethSrc: FDB_MAC.behind, ethDst: FDB_MAC.c, src: '10.0.0.99', dst: '10.0.0.2', sport: 53, dport: 1000 });

/** Who sends what, in order: the learning happens at steps 4 and 6 (not at 2: s1 has port security). */
export const FDB_SEQUENCE: readonly { readonly inport: string; readonly packet: () => Packet }[] = [
  { inport: 'c', packet: toBehind },
  { inport: 's1', packet: fromBehind },
  { inport: 'c', packet: toBehind },
  { inport: 'u1', packet: fromBehind },
  { inport: 'c', packet: toBehind },
  { inport: 'u2', packet: fromBehind },
  { inport: 'c', packet: toBehind },
];
/** Where each step's packet goes. */
export const FDB_EXPECTED = ['s1,u1,u2', 'c', 's1,u1,u2', 'c', 'u1', 'c', 'u2'];

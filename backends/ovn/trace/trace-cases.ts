/**
 * Test-only: one topology and the probes both trace tests use. The real
 * test (tracer.test.ts) builds it in a real NB and traces every case with
 * ovn-trace; the offline test (verdict.test.ts) reads the ovn-trace texts
 * saved from those runs in fixtures/ (regenerate with
 * KOVN_UPDATE_TRACE_FIXTURES=1). Both assert the same expectations.
 *
 *   sw0 10.0.0.0/24 fd00::/64   p1 .2 ::2, p2 .3 ::3, p3 .4; LB 172.30.0.100:80 → .3:8080, .4:8080
 *    │ lrp0 .1 ::1
 *   lr0 ── lrp1 10.0.1.1 fd01::1 ── sw1: q1 10.0.1.2 fd01::2
 *    └── lr0-ext 172.17.0.1 (distributed gateway port, chassis hv1) ── ext2: e2 .50
 *        dnat_and_snat 172.17.0.30 ↔ 10.0.0.2
 *   sw2 10.0.2.0/24: a1 .2, a2 .3; ACLs: from-lport tcp 22 drop, tcp 23 reject, ip4 allow-related; to-lport udp 53
 * reject
 *   gw (gateway router, chassis hv1): gw-in 10.0.3.1 ── sw3: c1 .2; gw-ext 172.16.0.1 ── ext: ext1 .50
 *        snat 10.0.3.0/24 → 172.16.0.10, dnat 172.16.0.20 → 10.0.3.2
 */
import { arpRequest, icmpEcho, ndNs, tcpPacket, udpPacket } from '../../../model/packet/build.ts';
import { TCP_ACK, TCP_RST } from '../../../model/packet/fields.ts';
import type { Packet } from '../../../model/packet/packet.ts';

const M = {
  p1: '00:00:00:00:00:01',
  p2: '00:00:00:00:00:02',
  p3: '00:00:00:00:00:03',
  q1: '00:00:00:00:01:01',
  lrp0: '00:00:00:00:ff:00',
  lrp1: '00:00:00:00:ff:01',
  ext: '00:00:00:00:fd:01',
  e2: '00:00:00:00:fd:aa',
  a1: '00:00:00:00:02:01',
  a2: '00:00:00:00:02:02',
  c1: '00:00:00:00:03:02',
  gwIn: '00:00:00:00:fe:02',
  gwExt: '00:00:00:00:fe:01',
  ext1: '00:00:00:00:fe:aa',
} as const;

/** ovn-nbctl commands, joined with `--` into one call. */
export const TOPOLOGY: readonly (readonly string[])[] = [
  ['ls-add', 'sw0'],
  ['lsp-add', 'sw0', 'p1'],
  ['lsp-set-addresses', 'p1', `${M.p1} 10.0.0.2 fd00::2`],
  ['lsp-add', 'sw0', 'p2'],
  ['lsp-set-addresses', 'p2', `${M.p2} 10.0.0.3 fd00::3`],
  ['lsp-add', 'sw0', 'p3'],
  ['lsp-set-addresses', 'p3', `${M.p3} 10.0.0.4`],
  ['ls-add', 'sw1'],
  ['lsp-add', 'sw1', 'q1'],
  ['lsp-set-addresses', 'q1', `${M.q1} 10.0.1.2 fd01::2`],
  ['lr-add', 'lr0'],
  ['lrp-add', 'lr0', 'lrp0', M.lrp0, '10.0.0.1/24', 'fd00::1/64'],
  ['lrp-add', 'lr0', 'lrp1', M.lrp1, '10.0.1.1/24', 'fd01::1/64'],
  ['lsp-add', 'sw0', 'sw0-lr0'],
  ['lsp-set-type', 'sw0-lr0', 'router'],
  ['lsp-set-addresses', 'sw0-lr0', 'router'],
  ['lsp-set-options', 'sw0-lr0', 'router-port=lrp0'],
  ['lsp-add', 'sw1', 'sw1-lr0'],
  ['lsp-set-type', 'sw1-lr0', 'router'],
  ['lsp-set-addresses', 'sw1-lr0', 'router'],
  ['lsp-set-options', 'sw1-lr0', 'router-port=lrp1'],
  ['lb-add', 'lb0', '172.30.0.100:80', '10.0.0.3:8080,10.0.0.4:8080', 'tcp'],
  ['ls-lb-add', 'sw0', 'lb0'],
  ['ls-add', 'sw2'],
  ['lsp-add', 'sw2', 'a1'],
  ['lsp-set-addresses', 'a1', `${M.a1} 10.0.2.2`],
  ['lsp-add', 'sw2', 'a2'],
  ['lsp-set-addresses', 'a2', `${M.a2} 10.0.2.3`],
  ['acl-add', 'sw2', 'from-lport', '1002', 'tcp && tcp.dst == 22', 'drop'],
  ['acl-add', 'sw2', 'from-lport', '1002', 'tcp && tcp.dst == 23', 'reject'],
  ['acl-add', 'sw2', 'from-lport', '1001', 'ip4', 'allow-related'],
  ['acl-add', 'sw2', 'to-lport', '1003', 'udp && udp.dst == 53', 'reject'],
  ['lr-add', 'gw'],
  ['set', 'logical_router', 'gw', 'options:chassis=hv1'],
  ['lrp-add', 'gw', 'gw-ext', M.gwExt, '172.16.0.1/24'],
  ['lrp-add', 'gw', 'gw-in', M.gwIn, '10.0.3.1/24'],
  ['ls-add', 'ext'],
  ['ls-add', 'sw3'],
  ['lsp-add', 'ext', 'ext1'],
  ['lsp-set-addresses', 'ext1', `${M.ext1} 172.16.0.50`],
  ['lsp-add', 'ext', 'ext-gw'],
  ['lsp-set-type', 'ext-gw', 'router'],
  ['lsp-set-addresses', 'ext-gw', 'router'],
  ['lsp-set-options', 'ext-gw', 'router-port=gw-ext'],
  ['lsp-add', 'sw3', 'c1'],
  ['lsp-set-addresses', 'c1', `${M.c1} 10.0.3.2`],
  ['lsp-add', 'sw3', 'sw3-gw'],
  ['lsp-set-type', 'sw3-gw', 'router'],
  ['lsp-set-addresses', 'sw3-gw', 'router'],
  ['lsp-set-options', 'sw3-gw', 'router-port=gw-in'],
  ['lr-nat-add', 'gw', 'snat', '172.16.0.10', '10.0.3.0/24'],
  ['lr-nat-add', 'gw', 'dnat', '172.16.0.20', '10.0.3.2'],
  ['lrp-add', 'lr0', 'lr0-ext', M.ext, '172.17.0.1/24'],
  ['lrp-set-gateway-chassis', 'lr0-ext', 'hv1'],
  ['ls-add', 'ext2'],
  ['lsp-add', 'ext2', 'e2'],
  ['lsp-set-addresses', 'e2', `${M.e2} 172.17.0.50`],
  ['lsp-add', 'ext2', 'ext2-lr0'],
  ['lsp-set-type', 'ext2-lr0', 'router'],
  ['lsp-set-addresses', 'ext2-lr0', 'router'],
  ['lsp-set-options', 'ext2-lr0', 'router-port=lr0-ext'],
  ['lr-nat-add', 'lr0', 'dnat_and_snat', '172.17.0.30', '10.0.0.2'],
];

/** An expected output: the port and the fields to check, as model/packet/format.ts prints them. */
export interface ExpectedOutput {
  readonly outport: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly generatedBy?: string;
}

export interface TraceCase {
  readonly name: string;
  readonly datapath: string;
  readonly inport: string;
  readonly packet: Packet;
  readonly lbBackend?: string;
  readonly expect: {
    readonly verdict: 'delivered' | 'dropped';
    /** Sorted by outport (multicast member order is not stable). */
    readonly outputs: readonly ExpectedOutput[];
    readonly caveats?: readonly string[];
    /** The --lb-dst the tracer used (when a VIP had several backends). */
    readonly lbBackend?: string;
  };
}

const tcp = (from: keyof typeof M, to: string, src: string, dst: string, dport: number, ttl = 64) =>
  tcpPacket({ ethSrc: M[from], ethDst: to, src, dst, sport: 40000, dport, ttl });

const ip = (src: string, dst: string, ttl: number) => ({ 'ip4.src': src, 'ip4.dst': dst, 'ip.ttl': String(ttl) });
const eth = (src: string, dst: string) => ({ 'eth.src': src, 'eth.dst': dst });

export const CASES: readonly TraceCase[] = [
  {
    name: 'l2-same-switch',
    datapath: 'sw0',
    inport: 'p1',
    packet: tcp('p1', M.p2, '10.0.0.2', '10.0.0.3', 80),
    expect: {
      verdict: 'delivered',
      outputs: [{ outport: 'p2', fields: { ...eth(M.p1, M.p2), ...ip('10.0.0.2', '10.0.0.3', 64), 'tcp.dst': '80' } }],
    },
  },
  {
    name: 'routed',
    datapath: 'sw0',
    inport: 'p1',
    packet: tcp('p1', M.lrp0, '10.0.0.2', '10.0.1.2', 80),
    expect: {
      verdict: 'delivered',
      outputs: [{ outport: 'q1', fields: { ...eth(M.lrp1, M.q1), ...ip('10.0.0.2', '10.0.1.2', 63) } }],
    },
  },
  {
    name: 'routed-ipv6',
    datapath: 'sw0',
    inport: 'p1',
    packet: udpPacket({
      ethSrc: M.p1,
      ethDst: M.lrp0,
      src: 'fd00::2',
      dst: 'fd01::2',
      sport: 5000,
      dport: 53,
      ttl: 10,
    }),
    expect: {
      verdict: 'delivered',
      outputs: [
        { outport: 'q1', fields: { ...eth(M.lrp1, M.q1), 'ip6.src': 'fd00::2', 'ip6.dst': 'fd01::2', 'ip.ttl': '9' } },
      ],
    },
  },
  {
    name: 'acl-drop',
    datapath: 'sw2',
    inport: 'a1',
    packet: tcp('a1', M.a2, '10.0.2.2', '10.0.2.3', 22),
    expect: { verdict: 'dropped', outputs: [] },
  },
  {
    name: 'acl-allow-related',
    datapath: 'sw2',
    inport: 'a1',
    packet: tcp('a1', M.a2, '10.0.2.2', '10.0.2.3', 80),
    expect: {
      verdict: 'delivered',
      outputs: [{ outport: 'a2', fields: { ...eth(M.a1, M.a2), ...ip('10.0.2.2', '10.0.2.3', 64) } }],
    },
  },
  {
    name: 'acl-reject-udp',
    datapath: 'sw2',
    inport: 'a1',
    packet: udpPacket({ ethSrc: M.a1, ethDst: M.a2, src: '10.0.2.2', dst: '10.0.2.3', sport: 5000, dport: 53 }),
    expect: {
      verdict: 'delivered',
      outputs: [
        {
          outport: 'a1',
          generatedBy: 'reject/icmp4',
          fields: { ...eth(M.a2, M.a1), ...ip('10.0.2.3', '10.0.2.2', 255), 'icmp4.type': '3', 'icmp4.code': '3' },
        },
      ],
    },
  },
  {
    name: 'acl-reject-tcp',
    datapath: 'sw2',
    inport: 'a1',
    packet: tcp('a1', M.a2, '10.0.2.2', '10.0.2.3', 23),
    expect: {
      verdict: 'delivered',
      outputs: [
        {
          outport: 'a1',
          generatedBy: 'reject/tcp_reset',
          fields: {
            ...eth(M.a2, M.a1),
            ...ip('10.0.2.3', '10.0.2.2', 63),
            'tcp.src': '23',
            'tcp.dst': '40000',
            'tcp.flags': `0x${(TCP_ACK | TCP_RST).toString(16)}`,
          },
        },
      ],
    },
  },
  {
    name: 'lb-vip-chosen-backend',
    datapath: 'sw0',
    inport: 'p1',
    packet: tcp('p1', M.lrp0, '10.0.0.2', '172.30.0.100', 80),
    lbBackend: '10.0.0.4:8080',
    expect: {
      verdict: 'delivered',
      lbBackend: '10.0.0.4:8080',
      outputs: [
        { outport: 'p3', fields: { ...eth(M.lrp0, M.p3), ...ip('10.0.0.2', '10.0.0.4', 63), 'tcp.dst': '8080' } },
      ],
    },
  },
  {
    name: 'lb-vip-default-backend',
    datapath: 'sw0',
    inport: 'p1',
    packet: tcp('p1', M.lrp0, '10.0.0.2', '172.30.0.100', 80),
    expect: {
      verdict: 'delivered',
      lbBackend: '10.0.0.3:8080',
      outputs: [
        { outport: 'p2', fields: { ...eth(M.lrp0, M.p2), ...ip('10.0.0.2', '10.0.0.3', 63), 'tcp.dst': '8080' } },
      ],
    },
  },
  {
    name: 'gw-snat-outbound',
    datapath: 'sw3',
    inport: 'c1',
    packet: tcp('c1', M.gwIn, '10.0.3.2', '172.16.0.50', 80),
    expect: {
      verdict: 'delivered',
      outputs: [{ outport: 'ext1', fields: { ...eth(M.gwExt, M.ext1), ...ip('172.16.0.10', '172.16.0.50', 63) } }],
    },
  },
  {
    name: 'gw-dnat-inbound',
    datapath: 'ext',
    inport: 'ext1',
    packet: tcp('ext1', M.gwExt, '172.16.0.50', '172.16.0.20', 80),
    expect: {
      verdict: 'delivered',
      outputs: [{ outport: 'c1', fields: { ...eth(M.gwIn, M.c1), ...ip('172.16.0.50', '10.0.3.2', 63) } }],
    },
  },
  {
    name: 'gw-snat-ip-inbound',
    datapath: 'ext',
    inport: 'ext1',
    packet: tcp('ext1', M.gwExt, '172.16.0.50', '172.16.0.10', 80),
    expect: { verdict: 'dropped', outputs: [], caveats: ['gateway-ct-snat-stops'] },
  },
  {
    name: 'dgp-fip-outbound',
    datapath: 'sw0',
    inport: 'p1',
    packet: udpPacket({ ethSrc: M.p1, ethDst: M.lrp0, src: '10.0.0.2', dst: '172.17.0.50', sport: 5000, dport: 53 }),
    expect: {
      verdict: 'delivered',
      outputs: [{ outport: 'e2', fields: { ...eth(M.ext, M.e2), ...ip('172.17.0.30', '172.17.0.50', 63) } }],
    },
  },
  {
    name: 'dgp-fip-inbound',
    datapath: 'ext2',
    inport: 'e2',
    packet: udpPacket({ ethSrc: M.e2, ethDst: M.ext, src: '172.17.0.50', dst: '172.17.0.30', sport: 53, dport: 5000 }),
    expect: {
      verdict: 'delivered',
      outputs: [{ outport: 'p1', fields: { ...eth(M.lrp0, M.p1), ...ip('172.17.0.50', '10.0.0.2', 63) } }],
    },
  },
  {
    name: 'arp-responder',
    datapath: 'sw0',
    inport: 'p1',
    packet: arpRequest({ sha: M.p1, spa: '10.0.0.2', tpa: '10.0.0.3' }),
    expect: {
      verdict: 'delivered',
      outputs: [
        {
          outport: 'p1',
          fields: {
            ...eth(M.p2, M.p1),
            'arp.op': '2',
            'arp.sha': M.p2,
            'arp.spa': '10.0.0.3',
            'arp.tha': M.p1,
            'arp.tpa': '10.0.0.2',
          },
        },
      ],
    },
  },
  {
    name: 'arp-router-ip',
    datapath: 'sw0',
    inport: 'p1',
    packet: arpRequest({ sha: M.p1, spa: '10.0.0.2', tpa: '10.0.0.1' }),
    expect: {
      verdict: 'delivered',
      outputs: [
        { outport: 'p1', fields: { ...eth(M.lrp0, M.p1), 'arp.op': '2', 'arp.sha': M.lrp0, 'arp.spa': '10.0.0.1' } },
      ],
    },
  },
  {
    name: 'ping-router',
    datapath: 'sw0',
    inport: 'p1',
    packet: icmpEcho({ ethSrc: M.p1, ethDst: M.lrp0, src: '10.0.0.2', dst: '10.0.0.1' }),
    expect: {
      verdict: 'delivered',
      outputs: [
        { outport: 'p1', fields: { ...eth(M.lrp0, M.p1), ...ip('10.0.0.1', '10.0.0.2', 254), 'icmp4.type': '0' } },
      ],
    },
  },
  {
    name: 'ttl-exceeded',
    datapath: 'sw0',
    inport: 'p1',
    packet: udpPacket({
      ethSrc: M.p1,
      ethDst: M.lrp0,
      src: '10.0.0.2',
      dst: '10.0.1.2',
      sport: 5000,
      dport: 33434,
      ttl: 1,
    }),
    expect: {
      verdict: 'delivered',
      outputs: [
        {
          outport: 'p1',
          generatedBy: 'icmp4',
          fields: { ...eth(M.lrp0, M.p1), ...ip('10.0.0.1', '10.0.0.2', 254), 'icmp4.type': '11', 'icmp4.code': '0' },
        },
      ],
    },
  },
  {
    name: 'broadcast-flood',
    datapath: 'sw0',
    inport: 'p1',
    packet: udpPacket({
      ethSrc: M.p1,
      ethDst: 'ff:ff:ff:ff:ff:ff',
      src: '10.0.0.2',
      dst: '255.255.255.255',
      sport: 68,
      dport: 67,
    }),
    expect: {
      verdict: 'delivered',
      outputs: ['p2', 'p3'].map((o) => ({
        outport: o,
        fields: { ...eth(M.p1, 'ff:ff:ff:ff:ff:ff'), ...ip('10.0.0.2', '255.255.255.255', 64) },
      })),
    },
  },
  {
    name: 'nd-ns-responder',
    datapath: 'sw0',
    inport: 'p1',
    packet: ndNs({ ethSrc: M.p1, src: 'fd00::2', target: 'fd00::3' }),
    expect: {
      verdict: 'delivered',
      outputs: [
        {
          outport: 'p1',
          generatedBy: 'nd_na',
          fields: {
            ...eth(M.p2, M.p1),
            'ip6.src': 'fd00::3',
            'ip6.dst': 'fd00::2',
            'icmp6.type': '136',
            'nd.target': 'fd00::3',
            'nd.tll': M.p2,
            'ip.ttl': '255',
          },
        },
      ],
    },
  },
  {
    name: 'arp-request-for-unknown-nexthop',
    datapath: 'sw0',
    inport: 'p1',
    packet: tcp('p1', M.lrp0, '10.0.0.2', '10.0.1.9', 80),
    expect: {
      verdict: 'delivered',
      outputs: [
        {
          outport: 'q1',
          generatedBy: 'arp',
          fields: {
            ...eth(M.lrp1, 'ff:ff:ff:ff:ff:ff'),
            'arp.op': '1',
            'arp.sha': M.lrp1,
            'arp.spa': '10.0.1.1',
            'arp.tpa': '10.0.1.9',
            'arp.tha': '00:00:00:00:00:00',
          },
        },
      ],
    },
  },
  {
    name: 'nd-ns-for-unknown-nexthop',
    datapath: 'sw0',
    inport: 'p1',
    packet: udpPacket({ ethSrc: M.p1, ethDst: M.lrp0, src: 'fd00::2', dst: 'fd01::9', sport: 5000, dport: 53 }),
    expect: {
      verdict: 'delivered',
      outputs: [
        {
          outport: 'q1',
          generatedBy: 'nd_ns',
          fields: {
            'eth.src': M.lrp1,
            'eth.dst': '33:33:ff:00:00:09',
            'ip6.src': 'fe80::200:ff:fe00:ff01',
            'ip6.dst': 'ff02::1:ff00:9',
            'icmp6.type': '135',
            'nd.target': 'fd01::9',
            'nd.sll': M.lrp1,
          },
        },
      ],
    },
  },
];

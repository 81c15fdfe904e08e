/**
 * The first line of every ovn-trace output, `# <flow>`, is the microflow as
 * ovn-trace understood it, in OVS flow syntax (lib/flow.c flow_format):
 *
 *   # tcp,reg14=0x1,vlan_tci=0x0000,dl_src=..,dl_dst=..,nw_src=..,nw_dst=..,
 *     nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1000,tp_dst=80,tcp_flags=syn
 *
 * Reading it back gives the packet ovn-trace really traced, which is what the
 * output packets must be computed from (ovn-trace drops `ip.dscp`/`ip.ecn`
 * from microflows, for one), and lets a test check a microflow end to end.
 */
import { parseIPv4, parseIPv6, parseMAC } from '../../../model/addr/index.ts';
import {
  ETH_TYPE_ARP,
  ETH_TYPE_IP,
  ETH_TYPE_IPV6,
  ETH_TYPE_RARP,
  IPPROTO_ICMP,
  IPPROTO_ICMPV6,
  IPPROTO_SCTP,
  IPPROTO_TCP,
  IPPROTO_UDP,
  type FieldName,
} from '../../../model/packet/fields.ts';
import type { Packet } from '../../../model/packet/packet.ts';
import { TraceParseError } from './errors.ts';

/** OVS protocol shorthands: ethertype and IP protocol. */
const PROTOCOLS: Readonly<Record<string, readonly [number, number?]>> = {
  ip: [ETH_TYPE_IP],
  ipv6: [ETH_TYPE_IPV6],
  arp: [ETH_TYPE_ARP],
  rarp: [ETH_TYPE_RARP],
  tcp: [ETH_TYPE_IP, IPPROTO_TCP],
  tcp6: [ETH_TYPE_IPV6, IPPROTO_TCP],
  udp: [ETH_TYPE_IP, IPPROTO_UDP],
  udp6: [ETH_TYPE_IPV6, IPPROTO_UDP],
  sctp: [ETH_TYPE_IP, IPPROTO_SCTP],
  sctp6: [ETH_TYPE_IPV6, IPPROTO_SCTP],
  icmp: [ETH_TYPE_IP, IPPROTO_ICMP],
  icmp6: [ETH_TYPE_IPV6, IPPROTO_ICMPV6],
};

/** OVS tcp_flags names, in bit order (lib/packets.c packet_tcp_flag_to_string). */
const TCP_FLAG_NAMES = ['fin', 'syn', 'rst', 'psh', 'ack', 'urg', 'ece', 'cwr', 'ns'];

function tcpFlags(text: string): number {
  if (/^(0x)?[0-9a-f]+$/i.test(text)) return Number.parseInt(text, text.startsWith('0x') ? 16 : 10);
  let v = 0;
  for (const name of text.split('|')) {
    const bit = TCP_FLAG_NAMES.indexOf(name);
    const raw = /^\[([0-9a-f]+)\]$/i.exec(name);
    if (bit >= 0) v |= 1 << bit;
    else if (raw) v |= Number.parseInt(raw[1] ?? '0', 16);
    else throw new Error(`unknown TCP flag ${name}`);
  }
  return v;
}

const FRAG: Readonly<Record<string, number>> = { no: 0, first: 1, later: 3 };

type Fields = Record<string, number | bigint>;

/** `key=value` → packet fields; L4 keys depend on the protocol. */
function apply(out: Fields, key: string, value: string, proto: number | undefined): void {
  const l4 =
    proto === IPPROTO_TCP ? 'tcp' : proto === IPPROTO_UDP ? 'udp' : proto === IPPROTO_SCTP ? 'sctp' : undefined;
  const icmp = proto === IPPROTO_ICMP ? 'icmp4' : 'icmp6';
  const num = (): number => {
    const n = Number(value);
    if (!Number.isInteger(n)) throw new Error(`bad value ${value} for ${key}`);
    return n;
  };
  const set: Record<string, () => void> = {
    dl_src: () => (out['eth.src'] = parseMAC(value)),
    dl_dst: () => (out['eth.dst'] = parseMAC(value)),
    dl_type: () => (out['eth.type'] = num()),
    vlan_tci: () => num() !== 0 && (out['vlan.tci'] = num()),
    dl_vlan: () => (out['vlan.tci'] = (Number(out['vlan.tci'] ?? 0) & 0xe000) | 0x1000 | num()),
    dl_vlan_pcp: () => (out['vlan.tci'] = (Number(out['vlan.tci'] ?? 0x1000) & 0x1fff) | (num() << 13)),
    nw_src: () => (out['ip4.src'] = parseIPv4(value)),
    nw_dst: () => (out['ip4.dst'] = parseIPv4(value)),
    nw_proto: () => (out['ip.proto'] = num()),
    nw_tos: () => (out['ip.dscp'] = num() >> 2),
    nw_ecn: () => (out['ip.ecn'] = num()),
    nw_ttl: () => (out['ip.ttl'] = num()),
    nw_frag: () => {
      const frag = FRAG[value];
      if (frag === undefined) throw new Error(`bad nw_frag ${value}`);
      out['ip.frag'] = frag;
    },
    ipv6_src: () => (out['ip6.src'] = parseIPv6(value)),
    ipv6_dst: () => (out['ip6.dst'] = parseIPv6(value)),
    ipv6_label: () => (out['ip6.label'] = num()),
    tp_src: () => l4 && (out[`${l4}.src`] = num()),
    tp_dst: () => l4 && (out[`${l4}.dst`] = num()),
    tcp_flags: () => (out['tcp.flags'] = tcpFlags(value)),
    icmp_type: () => (out[`${icmp}.type`] = num()),
    icmp_code: () => (out[`${icmp}.code`] = num()),
    arp_op: () => (out['arp.op'] = num()),
    arp_spa: () => (out['arp.spa'] = parseIPv4(value)),
    arp_tpa: () => (out['arp.tpa'] = parseIPv4(value)),
    arp_sha: () => (out['arp.sha'] = parseMAC(value)),
    arp_tha: () => (out['arp.tha'] = parseMAC(value)),
    nd_target: () => (out['nd.target'] = parseIPv6(value)),
    nd_sll: () => (out['nd.sll'] = parseMAC(value)),
    nd_tll: () => (out['nd.tll'] = parseMAC(value)),
  };
  // Metadata ovn-trace sets or prints that is no header field.
  if (/^(reg\d+|vlan_tci1|metadata|recirc_id|dp_hash|in_port|ct_\w+|pkt_mark|skb_priority)$/.test(key)) return;
  const f = set[key];
  if (f === undefined) throw new Error(`unknown flow field ${key}`);
  f();
}

/**
 * The packet ovn-trace traced, from its `# <flow>` line (with or without
 * the leading `# `).
 *
 * @example
 * parseFlowLine('#
 * udp,reg14=0x1,vlan_tci=0x0000,dl_src=00:00:00:00:00:01,dl_dst=00:00:00:00:00:02,nw_src=10.0.0.2,nw_dst=10.0.0.3,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=1,tp_dst=2')
 * // { 'eth.type': 0x800, 'ip.proto': 17, 'eth.src': 1, ..., 'udp.src': 1, 'udp.dst': 2 }
 */
export function parseFlowLine(line: string): Packet {
  const body = line.replace(/^# /, '').trim();
  const out: Fields = {};
  let proto: number | undefined;
  try {
    for (const item of body.split(',')) {
      const eq = item.indexOf('=');
      if (eq < 0) {
        const p = PROTOCOLS[item];
        if (p === undefined) throw new Error(`unknown protocol ${item}`);
        out['eth.type'] = p[0];
        if (p[1] !== undefined) out['ip.proto'] = proto = p[1];
        continue;
      }
      const key = item.slice(0, eq);
      if (key === 'nw_proto') proto = Number(item.slice(eq + 1));
      apply(out, key, item.slice(eq + 1), proto);
    }
  } catch (e) {
    throw new TraceParseError('bad-flow-line', `ovn-trace flow line: ${(e as Error).message}`, { line: 1, text: line });
  }
  if (out['eth.type'] === undefined) out['eth.type'] = 0;
  if (out['eth.src'] === undefined || out['eth.dst'] === undefined) {
    throw new TraceParseError('bad-flow-line', 'ovn-trace flow line: no dl_src/dl_dst', { line: 1, text: line });
  }
  return out as unknown as Packet;
}

/** Fields of `want` whose value ovn-trace did not take over (absent or different in `traced`). */
export function flowMismatches(want: Packet, traced: Packet): FieldName[] {
  const out: FieldName[] = [];
  for (const [k, v] of Object.entries(want)) {
    if (k === 'inner' || k === 'icmp.id') continue;
    if ((traced as unknown as Fields)[k] !== v) out.push(k as FieldName);
  }
  return out;
}

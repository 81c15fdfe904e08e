/**
 * A simulator packet as the microflow `ovn-trace` takes: every header field
 * the packet has, in OVN match syntax, plus the protocol predicates that set
 * what OVS keys on (`eth.type`, `ip.proto`).
 *
 * Why not sim/packet/format.ts `toMicroflow`: it leaves out `ip.proto` for
 * protocols without a predicate (GRE, ...), `eth.type` for non-IP/ARP frames,
 * writes `arp.*` for RARP (a contradiction: `arp.*` requires `arp`), and
 * writes `nd.sll`/`nd.tll` on every ND packet although OVN gives `nd.sll` the
 * prerequisite `nd_ns` and `nd.tll` `nd_na` (ovn-trace: "Constraints are
 * contradictory" for any NS built by `ndNs`, which sets `nd.tll = 0`).
 *
 * Fields a microflow cannot say are listed in `omitted`: `icmp.id` and the
 * ICMP error's `inner` tuple (no OVN field), ND fields on ICMPv6 that is not
 * ND (`nd` requires hop limit 255 and code 0, so they would contradict).
 * ovn-trace 23.03 also ignores `ip.dscp` and `ip.ecn` in a microflow (its
 * flow line shows nw_tos=0, nw_ecn=0): they are written, and normalize.ts
 * explains the consequence.
 */
import { formatField } from '../../../sim/packet/format.ts';
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
  ND_NA,
  ND_NS,
  type FieldName,
} from '../../../sim/packet/fields.ts';
import { isNd, type Packet } from '../../../sim/packet/packet.ts';

export interface Microflow {
  /** The expression, e.g. `inport == "p1" && eth.src == ... && ip4 && tcp && tcp.dst == 80`. */
  readonly text: string;
  /** Fields the packet has that the microflow cannot carry (see the file header). */
  readonly omitted: readonly (FieldName | 'inner')[];
}

const ETH: readonly FieldName[] = ['eth.src', 'eth.dst', 'vlan.tci'];
const ARP: readonly FieldName[] = ['arp.op', 'arp.spa', 'arp.tpa', 'arp.sha', 'arp.tha'];
const IP: readonly FieldName[] = ['ip.ttl', 'ip.dscp', 'ip.ecn', 'ip.frag'];
const IP4: readonly FieldName[] = ['ip4.src', 'ip4.dst'];
const IP6: readonly FieldName[] = ['ip6.src', 'ip6.dst', 'ip6.label'];

/** L4 predicate and the fields it enables, per IP protocol number. */
const L4: ReadonlyMap<number, { readonly v4: string; readonly v6: string; readonly fields: readonly FieldName[] }> = new Map([
  [IPPROTO_TCP, { v4: 'tcp', v6: 'tcp', fields: ['tcp.src', 'tcp.dst', 'tcp.flags'] as FieldName[] }],
  [IPPROTO_UDP, { v4: 'udp', v6: 'udp', fields: ['udp.src', 'udp.dst'] as FieldName[] }],
  [IPPROTO_SCTP, { v4: 'sctp', v6: 'sctp', fields: ['sctp.src', 'sctp.dst'] as FieldName[] }],
]);

function field(p: Packet, f: FieldName, name: string = f): string | undefined {
  const v = p[f];
  return v === undefined ? undefined : `${name} == ${formatField(f, v)}`;
}

function fieldsOf(p: Packet, names: readonly FieldName[]): string[] {
  return names.flatMap((f) => field(p, f) ?? []);
}

/** ICMPv6 fields; ND ones only where OVN's prerequisites hold. */
function icmp6Terms(p: Packet): string[] {
  const out = ['icmp6', ...fieldsOf(p, ['icmp6.type', 'icmp6.code'])];
  if (!isNd(p)) return out;
  out.push(...fieldsOf(p, ['nd.target']));
  if (p['icmp6.type'] === ND_NS) out.push(...fieldsOf(p, ['nd.sll']));
  if (p['icmp6.type'] === ND_NA) out.push(...fieldsOf(p, ['nd.tll']));
  return out;
}

function ipTerms(p: Packet, v6: boolean): string[] {
  const out = [v6 ? 'ip6' : 'ip4', ...fieldsOf(p, v6 ? IP6 : IP4), ...fieldsOf(p, IP)];
  const proto = p['ip.proto'] ?? 0;
  const l4 = L4.get(proto);
  if (l4 !== undefined) return [...out, v6 ? l4.v6 : l4.v4, ...fieldsOf(p, l4.fields)];
  if (!v6 && proto === IPPROTO_ICMP) return [...out, 'icmp4', ...fieldsOf(p, ['icmp4.type', 'icmp4.code'])];
  if (v6 && proto === IPPROTO_ICMPV6) return [...out, ...icmp6Terms(p)];
  return [...out, `ip.proto == ${proto}`];
}

function l3Terms(p: Packet): string[] {
  const type = p['eth.type'];
  if (type === ETH_TYPE_IP) return ipTerms(p, false);
  if (type === ETH_TYPE_IPV6) return ipTerms(p, true);
  if (type === ETH_TYPE_ARP) return ['arp', ...fieldsOf(p, ARP)];
  // RARP shares OVS's ARP fields, but the match language spells them rarp.*.
  if (type === ETH_TYPE_RARP) return ['rarp', ...ARP.flatMap((f) => field(p, f, f.replace('arp.', 'rarp.')) ?? [])];
  return [`eth.type == 0x${type.toString(16)}`];
}

/** Every present field a microflow written by {@link microflowFor} carries. */
function carried(p: Packet, text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/([a-z0-9_]+\.[a-z0-9_]+) == /g)) names.add((m[1] ?? '').replace(/^rarp\./, 'arp.'));
  names.add('eth.type');
  if (p['ip.proto'] !== undefined) names.add('ip.proto');
  return names;
}

/**
 * The microflow for `p` entering at `inport`, and what it had to leave out.
 *
 * @example
 * microflowFor(tcpPacket({ ethSrc: '0a:00:00:00:00:01', ethDst: '0a:00:00:00:00:02', src: '10.0.0.2', dst: '10.0.0.3', sport: 1000, dport: 80 }), 'p1').text
 * // 'inport == "p1" && eth.src == 0a:00:00:00:00:01 && eth.dst == 0a:00:00:00:00:02 && ip4 && ip4.src == 10.0.0.2 && ...
 * //  ip.ttl == 64 && ip.dscp == 0 && ip.ecn == 0 && ip.frag == 0 && tcp && tcp.src == 1000 && tcp.dst == 80 && tcp.flags == 0x2'
 */
export function microflowFor(p: Packet, inport: string): Microflow {
  const terms = [`inport == ${JSON.stringify(inport)}`, ...fieldsOf(p, ETH), ...l3Terms(p)];
  const text = terms.join(' && ');
  const have = carried(p, text);
  const omitted: (FieldName | 'inner')[] = [];
  for (const k of Object.keys(p)) {
    if (k === 'inner') omitted.push('inner');
    else if (!have.has(k)) omitted.push(k as FieldName);
  }
  return { text, omitted };
}

/**
 * Just the microflow text.
 *
 * @example toMicroflow(arpRequest({ sha: '0a:00:00:00:00:01', spa: '10.0.0.2', tpa: '10.0.0.1' }), 'p1')
 * // 'inport == "p1" && eth.src == 0a:00:00:00:00:01 && eth.dst == ff:ff:ff:ff:ff:ff && arp && arp.op == 1 && ...'
 */
export function toMicroflow(p: Packet, inport: string): string {
  return microflowFor(p, inport).text;
}

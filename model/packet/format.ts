/**
 * Packets as text: a short human form for traces, a JSON-safe form, and the
 * OVN microflow syntax `ovn-trace` accepts (so the same packet can be traced
 * by real OVN). This is the one microflow writer: backends/ovn/trace uses it.
 */
import { formatIPv4, formatIPv6, formatMAC } from '../addr/index.ts';
import {
  ETH_TYPE_ARP,
  ETH_TYPE_IP,
  ETH_TYPE_IPV6,
  ETH_TYPE_RARP,
  FIELD_KIND,
  FIELD_ORDER,
  IPPROTO_ICMP,
  IPPROTO_ICMPV6,
  IPPROTO_SCTP,
  IPPROTO_TCP,
  IPPROTO_UDP,
  ND_NA,
  ND_NS,
  type FieldName,
} from './fields.ts';
import { isArp, isIPv4, isIPv6, isNd, l4ProtoOf, type Packet } from './packet.ts';

/** One field value as OVN prints it. */
export function formatField(field: FieldName, value: number | bigint): string {
  switch (FIELD_KIND[field]) {
    case 'mac':
      return formatMAC(Number(value));
    case 'ip4':
      return formatIPv4(Number(value));
    case 'ip6':
      return formatIPv6(BigInt(value));
    case 'hex':
      return `0x${value.toString(16)}`;
    default:
      return value.toString();
  }
}

export interface Microflow {
  /** The expression, e.g. `inport == "p1" && eth.src == ... && ip4 && tcp && tcp.dst == 80`. */
  readonly text: string;
  /** Fields the packet has that the microflow cannot carry (see {@link microflowFor}). */
  readonly omitted: readonly (FieldName | 'inner')[];
}

const ETH: readonly FieldName[] = ['eth.src', 'eth.dst', 'vlan.tci'];
const ARP: readonly FieldName[] = ['arp.op', 'arp.spa', 'arp.tpa', 'arp.sha', 'arp.tha'];
const IP: readonly FieldName[] = ['ip.ttl', 'ip.dscp', 'ip.ecn', 'ip.frag'];
const IP4: readonly FieldName[] = ['ip4.src', 'ip4.dst'];
const IP6: readonly FieldName[] = ['ip6.src', 'ip6.dst', 'ip6.label'];

/** L4 predicate and the fields it enables, per IP protocol number (same names for both families). */
const L4: ReadonlyMap<number, { readonly name: string; readonly fields: readonly FieldName[] }> = new Map([
  [IPPROTO_TCP, { name: 'tcp', fields: ['tcp.src', 'tcp.dst', 'tcp.flags'] as FieldName[] }],
  [IPPROTO_UDP, { name: 'udp', fields: ['udp.src', 'udp.dst'] as FieldName[] }],
  [IPPROTO_SCTP, { name: 'sctp', fields: ['sctp.src', 'sctp.dst'] as FieldName[] }],
]);

function term(p: Packet, f: FieldName, name: string = f): string | undefined {
  const v = p[f];
  return v === undefined ? undefined : `${name} == ${formatField(f, v)}`;
}

function terms(p: Packet, names: readonly FieldName[]): string[] {
  return names.flatMap((f) => term(p, f) ?? []);
}

/** ICMPv6 fields; ND ones only where OVN's prerequisites hold (`nd.sll` needs `nd_ns`, `nd.tll` needs `nd_na`). */
function icmp6Terms(p: Packet): string[] {
  const out = ['icmp6', ...terms(p, ['icmp6.type', 'icmp6.code'])];
  if (!isNd(p)) return out;
  out.push(...terms(p, ['nd.target']));
  if (p['icmp6.type'] === ND_NS) out.push(...terms(p, ['nd.sll']));
  if (p['icmp6.type'] === ND_NA) out.push(...terms(p, ['nd.tll']));
  return out;
}

function ipTerms(p: Packet, v6: boolean): string[] {
  const out = [v6 ? 'ip6' : 'ip4', ...terms(p, v6 ? IP6 : IP4), ...terms(p, IP)];
  const proto = p['ip.proto'] ?? 0;
  const l4 = L4.get(proto);
  if (l4 !== undefined) return [...out, l4.name, ...terms(p, l4.fields)];
  if (!v6 && proto === IPPROTO_ICMP) return [...out, 'icmp4', ...terms(p, ['icmp4.type', 'icmp4.code'])];
  if (v6 && proto === IPPROTO_ICMPV6) return [...out, ...icmp6Terms(p)];
  // No predicate names this protocol: without ip.proto ovn-trace would trace protocol 0.
  return [...out, `ip.proto == ${proto}`];
}

function l3Terms(p: Packet): string[] {
  const type = p['eth.type'];
  if (type === ETH_TYPE_IP) return ipTerms(p, false);
  if (type === ETH_TYPE_IPV6) return ipTerms(p, true);
  if (type === ETH_TYPE_ARP) return ['arp', ...terms(p, ARP)];
  // RARP shares OVS's ARP fields, but the match language spells them rarp.* (arp.* would require eth.type 0x806).
  if (type === ETH_TYPE_RARP) return ['rarp', ...ARP.flatMap((f) => term(p, f, f.replace('arp.', 'rarp.')) ?? [])];
  return [`eth.type == 0x${type.toString(16)}`];
}

/** Every present field the microflow text carries (predicates imply eth.type and ip.proto). */
function carried(p: Packet, text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/([a-z0-9_]+\.[a-z0-9_]+) == /g)) names.add((m[1] ?? '').replace(/^rarp\./, 'arp.'));
  names.add('eth.type');
  if (p['ip.proto'] !== undefined) names.add('ip.proto');
  return names;
}

/**
 * The packet as the microflow `ovn-trace` takes: every header field it has,
 * in OVN match syntax, with the protocol predicates that set what OVS keys
 * on (`ip4`/`ip6`, `tcp`, ..., `ip.proto == N` for protocols no predicate
 * names, `eth.type == 0x...` for other frames, `rarp` and `rarp.*` for RARP).
 *
 * `omitted` lists what a microflow cannot say: `icmp.id` and the ICMP error's
 * `inner` tuple (no OVN field), and ND fields where OVN's prerequisites fail
 * (`nd.sll` requires `nd_ns`, `nd.tll` requires `nd_na`, both require hop
 * limit 255 and code 0: writing them anyway makes ovn-trace answer
 * "Constraints are contradictory", e.g. `nd.tll` on any NS built by `ndNs`).
 * ovn-trace 23.03 ignores `ip.dscp`/`ip.ecn` in a microflow (its flow line
 * shows nw_tos=0, nw_ecn=0); they are written all the same.
 *
 * @example
 * microflowFor(tcpPacket({ ethSrc: '0a:00:00:00:00:01', ethDst: '0a:00:00:00:00:02', src: '10.0.0.2', dst:
 * '10.0.0.3', sport: 1000, dport: 80 }), 'p1').text
 * // 'inport == "p1" && eth.src == 0a:00:00:00:00:01 && eth.dst == 0a:00:00:00:00:02 && ip4 && ip4.src == 10.0.0.2 &&
 * ...
 * //  ip.ttl == 64 && ip.dscp == 0 && ip.ecn == 0 && ip.frag == 0 && tcp && tcp.src == 1000 && tcp.dst == 80 &&
 * tcp.flags == 0x2'
 */
export function microflowFor(p: Packet, inport: string): Microflow {
  const text = [`inport == ${JSON.stringify(inport)}`, ...terms(p, ETH), ...l3Terms(p)].join(' && ');
  const have = carried(p, text);
  const omitted: (FieldName | 'inner')[] = [];
  for (const k of Object.keys(p)) {
    // A field whose value is undefined is absent (SimPacket keeps every key).
    if ((p as unknown as Record<string, unknown>)[k] === undefined) continue;
    if (k === 'inner') omitted.push('inner');
    else if (!have.has(k)) omitted.push(k as FieldName);
  }
  return { text, omitted };
}

/**
 * Just the microflow text of {@link microflowFor}.
 *
 * @example toMicroflow(arpRequest({ sha: '0a:00:00:00:00:01', spa: '10.0.0.2', tpa: '10.0.0.1' }), 'p1')
 * // 'inport == "p1" && eth.src == 0a:00:00:00:00:01 && eth.dst == ff:ff:ff:ff:ff:ff && arp && arp.op == 1 && ...'
 */
export function toMicroflow(p: Packet, inport: string): string {
  return microflowFor(p, inport).text;
}

/** A compact one-line description for trace output. */
export function describePacket(p: Packet): string {
  const out: string[] = [];
  out.push(`${formatMAC(p['eth.src'])} > ${formatMAC(p['eth.dst'])}`);
  if (isArp(p)) {
    const op = p['arp.op'] === 1 ? 'who-has' : p['arp.op'] === 2 ? 'is-at' : `op ${p['arp.op']}`;
    out.push(`arp ${op} ${formatIPv4(p['arp.tpa'] ?? 0)} tell ${formatIPv4(p['arp.spa'] ?? 0)}`);
    return out.join(' ');
  }
  const src = isIPv4(p) ? formatIPv4(p['ip4.src'] ?? 0) : isIPv6(p) ? formatIPv6(p['ip6.src'] ?? 0n) : undefined;
  const dst = isIPv4(p) ? formatIPv4(p['ip4.dst'] ?? 0) : isIPv6(p) ? formatIPv6(p['ip6.dst'] ?? 0n) : undefined;
  if (src === undefined) return `${out[0]} type 0x${p['eth.type'].toString(16)}`;
  const l4 = l4ProtoOf(p);
  const sp = p['tcp.src'] ?? p['udp.src'] ?? p['sctp.src'];
  const dp = p['tcp.dst'] ?? p['udp.dst'] ?? p['sctp.dst'];
  const ends = sp !== undefined ? `${src}:${sp} > ${dst}:${dp}` : `${src} > ${dst}`;
  let what: string = l4 ?? `proto ${p['ip.proto']}`;
  if (l4 === 'icmp4' || l4 === 'icmp6') {
    what += ` type ${p['icmp4.type'] ?? p['icmp6.type']} code ${p['icmp4.code'] ?? p['icmp6.code']}`;
  }
  if (l4 === 'tcp') what += ` flags 0x${(p['tcp.flags'] ?? 0).toString(16)}`;
  out.push(`${ends} ${what} ttl ${p['ip.ttl']}`);
  return out.join(' ');
}

/** A JSON-safe object: every present field as OVN prints it. */
export function packetToJSON(p: Packet): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of FIELD_ORDER) {
    const v = p[f];
    if (v !== undefined) out[f] = formatField(f, v);
  }
  return out;
}

/**
 * Packets as text: a short human form for traces, a JSON-safe form, and the
 * OVN microflow syntax `ovn-trace` accepts (so the same packet can be traced
 * by real OVN).
 */
import { formatIPv4, formatIPv6, formatMAC } from '../../model/addr/index.ts';
import { FIELD_KIND, FIELD_ORDER, type FieldName } from './fields.ts';
import { isArp, isIPv4, isIPv6, l4ProtoOf, type Packet } from './packet.ts';

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

/** Fields that never go into a microflow (not OVN match fields, or implied). */
const NOT_IN_MICROFLOW: ReadonlySet<FieldName> = new Set<FieldName>(['eth.type', 'ip.proto', 'icmp.id']);

/** Fields worth omitting from a microflow when zero (defaults in ovn-trace). */
const OMIT_WHEN_ZERO: ReadonlySet<FieldName> = new Set<FieldName>(['ip.dscp', 'ip.ecn', 'ip.frag', 'ip6.label']);

function protocolPredicate(p: Packet): string | undefined {
  if (isArp(p)) return 'arp';
  const l4 = l4ProtoOf(p);
  if (l4 !== undefined) return l4;
  if (isIPv4(p)) return 'ip4';
  if (isIPv6(p)) return 'ip6';
  return undefined;
}

/**
 * The packet as an OVN microflow expression, as `ovn-trace` takes it.
 *
 * @example toMicroflow(p, 'web-0.default')
 * // 'inport == "web-0.default" && eth.src == 0a:00:00:00:00:01 && ... && tcp && tcp.src == 40000 && tcp.dst == 80 && tcp.flags == 0x2'
 */
export function toMicroflow(p: Packet, inport: string): string {
  const parts = [`inport == ${JSON.stringify(inport)}`];
  const proto = protocolPredicate(p);
  for (const f of FIELD_ORDER) {
    const v = p[f];
    if (v === undefined || NOT_IN_MICROFLOW.has(f)) continue;
    if (OMIT_WHEN_ZERO.has(f) && v === 0) continue;
    // nd.sll requires nd_ns and nd.tll requires nd_na in OVN's symbol table.
    if ((f === 'nd.sll' && p['icmp6.type'] !== 135) || (f === 'nd.tll' && p['icmp6.type'] !== 136)) continue;
    parts.push(`${f} == ${formatField(f, v)}`);
  }
  if (proto !== undefined) parts.push(proto);
  return parts.join(' && ');
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

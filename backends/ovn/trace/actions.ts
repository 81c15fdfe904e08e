/**
 * One action line of an ovn-trace table (ovnacts_format output of OVN 23.03)
 * as an operation on the traced flow. Only what can change the packet, or a
 * register a packet field is later loaded from, is interpreted; actions whose
 * effect ovn-trace shows as a sub-tree (ct_next, ct_lb, ct_dnat, icmp4 {...},
 * clone {...}, output, next) are recognised by name, and the tree walk in
 * verdict.ts does the rest. Anything else is an `unknown-action` error.
 */
import { parseIPv4, parseIPv6, parseMAC, tryParseIPv4, tryParseIPv6, tryParseMAC } from '../../../model/addr/index.ts';
import { lookupSymbol } from '../../../model/match/index.ts';
import { TraceParseError, type TraceLineRef } from './errors.ts';

/** A field or register slice: `storage` bits [offset, offset+width). */
export interface FieldSlice {
  readonly name: string;
  readonly storage: string;
  readonly offset: number;
  readonly width: number;
  /** Width of the whole storage (for packet fields: the field's width). */
  readonly storageWidth: number;
}

export type Operand =
  | { readonly kind: 'const'; readonly value: bigint }
  | { readonly kind: 'field'; readonly ref: FieldSlice }
  /** The result of a function ovn-trace evaluates without printing it (check_in_port_sec(), lookup_arp(), ...). */
  | { readonly kind: 'opaque'; readonly fn: string };

export type ActionOp =
  | { readonly op: 'assign'; readonly dst: FieldSlice; readonly src: Operand }
  | { readonly op: 'exchange'; readonly a: FieldSlice; readonly b: FieldSlice }
  /** `inport`/`outport` loads, moves and exchanges: the pipeline titles carry the names. */
  | { readonly op: 'port' }
  | { readonly op: 'dec-ttl' }
  /** `icmp4 {...}`, `reject {...}`, `clone {...}`, ...: the transformation node that follows does the work. */
  | { readonly op: 'nested'; readonly name: string }
  /** Conntrack actions; `args` is the text inside the parentheses, if any. */
  | { readonly op: 'ct'; readonly name: string; readonly args?: string }
  | { readonly op: 'next' }
  | { readonly op: 'output' }
  | { readonly op: 'drop' }
  /** get_arp/get_nd: ovn-trace prints the result as a following `/* MAC binding ... *\/` comment. */
  | { readonly op: 'get-mac-bind' }
  /** No effect on the packet or on registers that matter (put_arp, log, meter, ...). */
  | { readonly op: 'noop'; readonly name: string };

/** Nested-action forms whose sub-tree ovn-trace prints as a transformation. */
const NESTED = new Set([
  'clone',
  'arp',
  'nd_na',
  'nd_na_router',
  'nd_ns',
  'icmp4',
  'icmp4_error',
  'icmp6',
  'icmp6_error',
  'tcp_reset',
  'sctp_abort',
  'reject',
  'trigger_event',
]);

const CT = new Set([
  'ct_next',
  'ct_commit',
  'ct_dnat',
  'ct_snat',
  'ct_dnat_in_czone',
  'ct_snat_in_czone',
  'ct_lb',
  'ct_lb_mark',
  'ct_clear',
  'ct_commit_nat',
  'ct_snat_to_vip',
]);

/** The ct actions that commit without recirculating (lib/actions.c): the rest of CT recirculate. */
const CT_NO_RECIRCULATION = new Set(['ct_commit', 'ct_snat_to_vip', 'ct_clear']);

/**
 * Whether a trace's action line is an OVN ct action that recirculates (the
 * packet comes back as the datapath holds it).
 *
 * @example recirculatingCt('ct_lb_mark(backends=...);') // true; recirculatingCt('ct_snat_to_vip;') // false
 */
export function recirculatingCt(action: string): boolean {
  const name = /^([a-z_]+)/.exec(action.trim())?.[1] ?? '';
  return CT.has(name) && !CT_NO_RECIRCULATION.has(name);
}

/** Actions ovn-trace executes with no effect on what we compute. */
const NOOP = new Set([
  'put_arp',
  'put_nd',
  'put_fdb',
  'log',
  'set_queue',
  'set_meter',
  'meter',
  'igmp',
  'handle_svc_check',
  'fwd_group',
  'bind_vport',
  'dhcp6_reply',
  'bfd_msg',
  'commit_ecmp_nh',
  'commit_lb_aff',
  'sample',
  'ct_commit_v1',
  'trigger_event',
  'check_pkt_larger',
]);

/** Functions whose result ovn-trace stores in a register without printing it. */
const OPAQUE = new Set([
  'check_in_port_sec',
  'check_out_port_sec',
  'chk_lb_hairpin',
  'chk_lb_hairpin_reply',
  'lookup_arp',
  'lookup_nd',
  'lookup_arp_ip',
  'lookup_nd_ip',
  'get_fdb',
  'lookup_fdb',
  'dns_lookup',
  'put_dhcp_opts',
  'put_dhcpv6_opts',
  'put_nd_ra_opts',
  'chk_lb_aff',
  'check_pkt_larger',
  'chk_ecmp_nh_mac',
  'chk_ecmp_nh',
  'select',
]);

/** Packet fields that are not in model/match's symbol table but appear in actions. */
const OVN_FIELDS = new Set(['icmp4.frag_mtu', 'icmp6.frag_mtu']);

/**
 * Resolves `reg0`, `xreg0[0..47]`, `reg9[2]`, `eth.src`, `flags.loopback`.
 * Undefined for `inport`/`outport` and for OVN's action-only fields.
 */
export function resolveField(text: string, at: TraceLineRef): FieldSlice | 'port' | 'ovnfield' {
  const m = /^([a-z_][a-z0-9_.]*)(?:\[(\d+)(?:\.\.(\d+))?\])?$/.exec(text);
  if (!m) throw new TraceParseError('unknown-action', `not a field: ${text}`, at);
  const name = m[1] ?? '';
  if (name === 'inport' || name === 'outport') return 'port';
  if (OVN_FIELDS.has(name)) return 'ovnfield';
  const sym = lookupSymbol(name);
  if (sym === undefined || sym.kind !== 'int') throw new TraceParseError('unknown-action', `unknown field ${name}`, at);
  const lo = m[2] === undefined ? 0 : Number(m[2]);
  const hi = m[3] === undefined ? (m[2] === undefined ? sym.width - 1 : lo) : Number(m[3]);
  if (hi < lo || hi >= sym.width) throw new TraceParseError('unknown-action', `bad subscript on ${name}`, at);
  return {
    name: text,
    storage: sym.storage,
    offset: sym.offset + lo,
    width: hi - lo + 1,
    storageWidth: sym.storageWidth,
  };
}

/** An OVN constant as ovnacts_format prints it: decimal, 0x hex, MAC, IPv4, IPv6. */
export function parseConstant(text: string): bigint | undefined {
  if (/^\d+$/.test(text)) return BigInt(text);
  if (/^0x[0-9a-f]+$/i.test(text)) return BigInt(text);
  if (tryParseMAC(text) !== undefined) return BigInt(parseMAC(text));
  if (tryParseIPv4(text) !== undefined) return BigInt(parseIPv4(text));
  if (text.includes(':') && tryParseIPv6(text) !== undefined) return parseIPv6(text);
  return undefined;
}

function operand(text: string, at: TraceLineRef): Operand | 'port' | 'string' | 'ovnfield' {
  if (/^"(?:[^"\\]|\\.)*"$/.test(text)) return 'string';
  const fn = /^([a-z_0-9]+)\(.*\)$/.exec(text);
  if (fn) {
    if (!OPAQUE.has(fn[1] ?? '')) throw new TraceParseError('unknown-action', `unknown function ${fn[1]}`, at);
    return { kind: 'opaque', fn: fn[1] ?? '' };
  }
  const c = parseConstant(text);
  if (c !== undefined) return { kind: 'const', value: c };
  const f = resolveField(text, at);
  return typeof f === 'string' ? f : { kind: 'field', ref: f };
}

function assignment(lhs: string, rhs: string, at: TraceLineRef): ActionOp {
  const dst = resolveField(lhs, at);
  if (dst === 'ovnfield') return { op: 'noop', name: lhs };
  const src = operand(rhs, at);
  if (dst === 'port' || src === 'port' || src === 'string') {
    if (dst !== 'port') throw new TraceParseError('unknown-action', `port name assigned to ${lhs}`, at);
    return { op: 'port' };
  }
  if (src === 'ovnfield') throw new TraceParseError('unknown-action', `${rhs} read into ${lhs}`, at);
  return { op: 'assign', dst, src };
}

/** The name an action line starts with (`ct_lb_mark` in `ct_lb_mark(backends=...);`). */
function leadingName(body: string): string | undefined {
  return /^([a-z_][a-z0-9_]*)\s*(?:[({;]|$)/.exec(body)?.[1];
}

/**
 * Parses one action line (with its trailing `;`).
 *
 * @example
 * parseAction('eth.src = 00:00:00:00:ff:01;', { line: 12, text: '' })
 * // { op: 'assign', dst: { name: 'eth.src', storage: 'eth.src', offset: 0, width: 48, ... }, src: { kind: 'const',
 * value: 0xff01n } }
 */
export function parseAction(line: string, at: TraceLineRef): ActionOp {
  const body = line.trim().replace(/;$/, '').trim();
  if (body === 'next' || /^next\((?:pipeline=\w+, *)?(?:table=)?\d+\)$/.test(body)) return { op: 'next' };
  if (body === 'output') return { op: 'output' };
  if (body === 'drop') return { op: 'drop' };
  if (body === 'ip.ttl--') return { op: 'dec-ttl' };
  const xchg = /^(\S+) <-> (\S+)$/.exec(body);
  if (xchg) {
    const a = resolveField(xchg[1] ?? '', at);
    const b = resolveField(xchg[2] ?? '', at);
    if (a === 'port' && b === 'port') return { op: 'port' };
    if (typeof a === 'string' || typeof b === 'string') throw new TraceParseError('unknown-action', 'bad exchange', at);
    return { op: 'exchange', a, b };
  }
  const assign = /^([a-z_][a-z0-9_.]*(?:\[\d+(?:\.\.\d+)?\])?) = (.+)$/.exec(body);
  if (assign) return assignment(assign[1] ?? '', assign[2] ?? '', at);
  const name = leadingName(body);
  if (name === undefined) throw new TraceParseError('unknown-action', 'unknown action', at);
  if (name === 'get_arp' || name === 'get_nd') return { op: 'get-mac-bind' };
  if (CT.has(name)) {
    const args = /^[a-z_]+\((.*)\)$/s.exec(body)?.[1];
    return args === undefined ? { op: 'ct', name } : { op: 'ct', name, args };
  }
  if (NESTED.has(name) && /^[a-z_0-9]+\s*\{/.test(body)) return { op: 'nested', name };
  if (NOOP.has(name)) return { op: 'noop', name };
  throw new TraceParseError('unknown-action', `unknown action ${name}`, at);
}

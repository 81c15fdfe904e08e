/**
 * What each transformation sub-tree of ovn-trace does to the flow it forks
 * (utilities/ovn-trace.c: execute_ct_lb, execute_ct_nat, execute_select,
 * execute_arp / execute_nd_* / execute_icmp* / execute_tcp_reset ...).
 */
import { parseIPv4, parseIPv6, tryParseIPv4 } from '../../../model/addr/index.ts';
import { isIPv4, isIPv6, l4ProtoOf } from '../../../model/packet/packet.ts';
import { parseConstant, resolveField } from './actions.ts';
import { TraceParseError, type TraceLineRef } from './errors.ts';
import type { FlowState } from './flow-state.ts';
import { pinctrlSendsNothing, seedGenerated, type GeneratedKind, type SeedMode } from './generated.ts';
import type { TransformNode } from './parse.ts';
import type { QuirkHit } from './verdict.ts';

/** An LB destination: `--lb-dst` or one entry of `backends=`. */
export interface LbSelector {
  readonly family: 4 | 6;
  readonly ip: number | bigint;
  readonly port?: number;
  readonly text: string;
}

/**
 * `10.0.0.4`, `10.0.0.4:8080`, `fd00::4`, `[fd00::4]:8080`.
 *
 * @example lbSelectorOf('10.0.0.4:8080') // { family: 4, ip: 167772164, port: 8080, text: '10.0.0.4:8080' }
 */
export function lbSelectorOf(text: string): LbSelector {
  const v6 = /^\[([0-9a-f:.]+)\](?::(\d+))?$/i.exec(text);
  if (v6) return { family: 6, ip: parseIPv6(v6[1] ?? ''), ...(v6[2] ? { port: Number(v6[2]) } : {}), text };
  const v4 = /^(\d+\.\d+\.\d+\.\d+)(?::(\d+))?$/.exec(text);
  if (v4 && tryParseIPv4(v4[1] ?? '') !== undefined) {
    return { family: 4, ip: parseIPv4(v4[1] ?? ''), ...(v4[2] ? { port: Number(v4[2]) } : {}), text };
  }
  return { family: 6, ip: parseIPv6(text), text };
}

const GENERATED: ReadonlySet<string> = new Set(['arp', 'nd_na', 'nd_ns', 'icmp4', 'icmp6', 'tcp_reset', 'sctp_abort']);

/** Mutable per-trace context the transformations share (ovn-trace's globals). */
export class TransformsImpl {
  readonly quirks: QuirkHit[] = [];
  readonly selects: { field: string; id: number; random: boolean }[] = [];
  readonly lbChoices: { backend: string; line: number }[] = [];

  constructor(
    readonly seeds: SeedMode,
    /** ovn-trace's `lb_dst`: cleared once a ct_lb with backends takes it. */
    public lbDst: LbSelector | undefined,
  ) {}

  /** Real OVS applies `ct_snat_to_vip`'s nat(src=VIP); ovn-trace only prints it. */
  snatToVip(state: FlowState, vip: string, at: TraceLineRef): void {
    const ip = parseConstant(vip);
    if (ip === undefined) throw new TraceParseError('unknown-comment', `bad VIP ${vip}`, at);
    const p = state.current;
    if (isIPv4(p) && !vip.includes(':')) state.setField('ip4.src', ip);
    else if (isIPv6(p) && vip.includes(':')) state.setField('ip6.src', ip);
  }
}

export type Transforms = TransformsImpl;

function dnatTo(state: FlowState, d: LbSelector): void {
  state.setField(d.family === 4 ? 'ip4.dst' : 'ip6.dst', d.ip);
  const l4 = l4ProtoOf(state.current);
  if (d.port !== undefined && (l4 === 'tcp' || l4 === 'udp' || l4 === 'sctp')) state.setField(`${l4}.dst`, d.port);
}

/** execute_ct_lb: which destination ovn-trace takes, if it can be known. */
function ctLb(n: TransformNode, trigger: string, state: FlowState, tx: Transforms): void {
  const at = { line: n.line, text: n.text };
  if (!/^ct_lb(_mark)?\b/.test(trigger))
    throw new TraceParseError('unknown-title', `ct_lb sub-tree after "${trigger}"`, at);
  const p = state.current;
  const family = isIPv4(p) ? 4 : isIPv6(p) ? 6 : undefined;
  if (family === undefined) return;
  const list = /backends=([^;)]*)/.exec(trigger)?.[1];
  if (list === undefined) {
    // "For ct_lb without addresses, use user-specified address": --lb-dst DNATs any packet of its family here.
    if (tx.lbDst?.family !== family) return;
    const before = JSON.stringify(state.current, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    dnatTo(state, tx.lbDst);
    const after = JSON.stringify(state.current, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    const how = before === after ? 'kept' : 'changed';
    tx.quirks.push({
      rule: 'lb-dst-early-dnat',
      line: n.line,
      detail: `plain ${trigger} took --lb-dst=${tx.lbDst.text} (${how} the packet)`,
    });
    return;
  }
  let candidates: LbSelector[];
  try {
    candidates = list
      .split(',')
      .map((s) => lbSelectorOf(s.trim()))
      .filter((d) => d.family === family);
  } catch (e) {
    throw new TraceParseError('unknown-action', `bad backend list in ${trigger}`, at, { cause: e });
  }
  const want = tx.lbDst;
  const hit = want?.family === family ? candidates.find((d) => d.ip === want.ip) : undefined;
  const chosen = hit ?? (candidates.length === 1 ? candidates[0] : undefined);
  if (hit !== undefined) tx.lbDst = undefined;
  if (chosen === undefined) {
    if (candidates.length === 0) return; // "*** no load balancing destination" follows
    throw new TraceParseError(
      'lb-backend-unknown',
      `ct_lb chose one of ${candidates.length} backends at random (no --lb-dst matched)`,
      at,
    );
  }
  dnatTo(state, chosen);
  tx.lbChoices.push({ backend: chosen.text, line: n.line });
}

/** `ct_dnat(ip4.dst=10.0.3.2)`, `ct_snatin_czone(ip6.src=..)` (sic: 23.03 drops the underscore). */
function ctNat(n: TransformNode, state: FlowState): void {
  const m = /^ct_([ds])nat(?:_?in_czone)?(?:\((ip[46])\.(src|dst)=([^)]*)\))?/.exec(n.text);
  if (!m) throw new TraceParseError('unknown-title', 'unknown ct_nat title', { line: n.line, text: n.text });
  if (m[2] === undefined) return; // "assuming no un-Xnat entry, so no change"
  const v = parseConstant(m[4] ?? '');
  if (v === undefined) throw new TraceParseError('unknown-title', 'bad NAT address', { line: n.line, text: n.text });
  state.setField(`${m[2] as 'ip4' | 'ip6'}.${m[3] as 'src' | 'dst'}`, v);
}

/** `select: reg8[16..31] = 2 /* Randomly selected. Use --select-id to specify. *\/` */
function select(n: TransformNode, state: FlowState, tx: Transforms): void {
  const at = { line: n.line, text: n.text };
  const m = /^select: (\S+) = (\d+)( \/\*.*\*\/)?$/.exec(n.text);
  if (!m) throw new TraceParseError('unknown-title', 'unknown select title', at);
  const f = resolveField(m[1] ?? '', at);
  if (typeof f === 'string') throw new TraceParseError('unknown-title', 'select into a non-register', at);
  state.write(f, { value: BigInt(m[2] ?? 0), unknown: 0n }, at);
  tx.selects.push({ field: m[1] ?? '', id: Number(m[2]), random: m[3] !== undefined });
}

/**
 * A packet a transformation generated: its label, and `dead` when real OVN sends none (the branch then has no
 * outputs).
 */
export interface Generated {
  readonly label: string;
  readonly dead: boolean;
}

/**
 * Applies a transformation to the forked flow; says so when it generated a
 * new packet (its outputs are answers, not the input).
 */
export function applyTransform(
  n: TransformNode,
  trigger: string,
  state: FlowState,
  tx: Transforms,
): Generated | undefined {
  const t = n.text;
  if (t.startsWith('ct_next(') || t.startsWith('ct_commit_nat') || t === 'clone' || t.startsWith('LOG: '))
    return undefined;
  if (/^ct_lb(_mark)?\b/.test(t)) return (ctLb(n, trigger, state, tx), undefined);
  if (/^ct_[ds]nat/.test(t)) return (ctNat(n, state), undefined);
  if (t.startsWith('select: ')) return (select(n, state, tx), undefined);
  if (GENERATED.has(t)) {
    const loopback = /^reject\s*\{/.test(trigger);
    const label = loopback ? `reject/${t}` : t;
    const what = loopback ? `reject → ${t}` : t;
    const none = tx.seeds === 'pinctrl' ? pinctrlSendsNothing(state.current, t as GeneratedKind) : undefined;
    if (none !== undefined) {
      tx.quirks.push({ rule: 'generated-packets', line: n.line, detail: `${what}: ${none}` });
      return { label, dead: true };
    }
    state.replacePacket(seedGenerated(state.current, { kind: t as GeneratedKind, loopback, mode: tx.seeds }));
    if (tx.seeds === 'pinctrl') tx.quirks.push({ rule: 'generated-packets', line: n.line, detail: what });
    return { label, dead: false };
  }
  throw new TraceParseError('unknown-title', 'unknown transformation', { line: n.line, text: n.text });
}

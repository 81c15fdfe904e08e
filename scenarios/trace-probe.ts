/**
 * One resolved probe traced on a compiled network: the first packet with its
 * stages; its retransmission where the probe semantics send one (TCP and
 * SCTP, docs/architecture.md Verdict: sim/connection.ts retransmission);
 * and, for TCP, SCTP and ICMP echo, the reply from where the packet arrived
 * through the conntrack state it left (`kovn trace`, and the HTML report's
 * per-probe traces).
 */
import {
  type Retransmission,
  replyTo,
  retransmission,
  simulate,
  type SimNetwork,
  type SimResult,
} from '../sim/index.ts';
import type { TraceStage } from '../sim/trace.ts';
import { tryParseMAC } from '../model/addr/index.ts';
import { l4ProtoOf, type Packet } from '../model/packet/index.ts';
import { ICMP4_ECHO_REPLY, ICMP6_ECHO_REPLY } from '../model/packet/fields.ts';
import { explainDrop } from './explain.ts';
import type { ScenarioProbe } from './load.ts';
import type { ResolvedProbe } from './probe.ts';
import { egressVerdict } from './natgw.ts';

export interface TracedPacket {
  readonly verdict: 'delivered' | 'dropped';
  readonly outport?: string;
  readonly stages: readonly TraceStage[];
  /** Why dropped, naming what decided (explain.ts). */
  readonly reason?: string;
}

export interface TraceReport extends TracedPacket {
  /** The client's retransmission of a first packet that got no answer, where it went further. */
  readonly retransmission?: TracedPacket;
  /** What the retransmission changed, in one line (set with `retransmission`). */
  readonly note?: string;
  readonly reply?: TracedPacket;
  readonly ovnTrace?: string;
  /** Why the verdict may depend on something kovn did not act on. */
  readonly unsure?: string;
  /** ovn-trace's text of the retransmission, where the ovn world traced one. */
  readonly ovnRetransmission?: string;
}

/** An ICMP or ICMPv6 echo reply (what a router answering a ping sends back). */
export const isEchoReply = (p: Packet): boolean =>
  p['icmp4.type'] === ICMP4_ECHO_REPLY || p['icmp6.type'] === ICMP6_ECHO_REPLY;

/** The first packet of a connection by its name: `SYN` (TCP), `INIT` (SCTP), else `packet`. */
function firstPacketName(p: Packet): string {
  const proto = l4ProtoOf(p);
  return proto === 'tcp' ? 'SYN' : proto === 'sctp' ? 'INIT' : 'packet';
}

/**
 * The note of a probe whose first packet got no answer and was sent again:
 * how the retransmission went (and how it was traced, where that needs
 * saying), then why the first was dropped.
 *
 * @example retransmissionNote(syn, 'dropped in ls ls_in_lb_aff_learn: ...', { delivered: true })
 *   // 'delivered on its retransmission; the first SYN: dropped in ls ls_in_lb_aff_learn: ...'
 */
export function retransmissionNote(
  p: Packet,
  firstReason: string | undefined,
  how: { readonly delivered: boolean; readonly tracedWith?: string },
): string {
  const then = how.delivered ? 'delivered on its retransmission' : 'its retransmission was not delivered either';
  const traced = how.tracedWith === undefined ? '' : ` (${how.tracedWith})`;
  return `${then}${traced}; the first ${firstPacketName(p)}: ${firstReason ?? 'no answer'}`;
}

/** Where the probe's own packet (never a generated one) reached one of `targets`. */
export function arrivalAt(
  r: SimResult,
  targets: readonly string[],
  mac?: string,
): SimResult['outputs'][number] | undefined {
  // A host behind a localnet port takes only frames to its own MAC (what floods out is not for it).
  const want = mac === undefined ? undefined : tryParseMAC(mac);
  return r.outputs.find(
    (o) =>
      targets.includes(o.port) && o.generated === undefined && (want === undefined || o.packet['eth.dst'] === want),
  );
}

/** A probe's packet sent, and sent again where the probe semantics retransmit it. */
export interface Sent {
  /** The first packet's run. */
  readonly first: SimResult;
  /** Its retransmission, where one was sent (`conntrack`: the state it was sent through). */
  readonly again?: Retransmission;
  /** Where the packet that counts (the retransmission's, if sent) reached a target. */
  readonly arrived?: SimResult['outputs'][number];
  /** The retransmission's note (set with `again`). */
  readonly note?: string;
}

/**
 * The probe's packet, and its retransmission where the first got no answer
 * (docs/architecture.md, Verdict): what `kovn sim run` answers and `kovn
 * trace` shows, decided once.
 *
 * @example const s = send(net, r, { trace: false }); s.arrived // the target port's output, or undefined
 */
export function send(net: SimNetwork, r: ResolvedProbe & { kind: 'packet' }, opts: { readonly trace: boolean }): Sent {
  const first = simulate(net, { inport: r.inport, packet: r.packet, trace: opts.trace });
  const arrived = arrivalAt(first, r.targets, r.targetMac);
  if (arrived !== undefined || r.routerAnswers) return { first, ...(arrived ? { arrived } : {}) };
  const again = retransmission(net, { inport: r.inport, packet: r.packet, trace: opts.trace }, first);
  if (again === undefined) return { first };
  const last = arrivalAt(again.result, r.targets, r.targetMac);
  const why = first.drop ? explainDrop(first.drop, net.topology) : undefined;
  return {
    first,
    again,
    ...(last ? { arrived: last } : {}),
    note: retransmissionNote(r.packet, why, { delivered: last !== undefined }),
  };
}

function traced(r: SimResult, net: SimNetwork, arrived: string | undefined): TracedPacket {
  // Where a dropped packet was forwarded to instead; what the pipeline generated (an ARP request) is not the packet.
  const outport = arrived ?? r.outputs.find((o) => o.generated === undefined)?.port;
  return {
    verdict: arrived !== undefined ? 'delivered' : 'dropped',
    ...(outport !== undefined ? { outport } : {}),
    stages: r.stages,
    ...(arrived === undefined && r.drop ? { reason: explainDrop(r.drop, net.topology) } : {}),
  };
}

export function traceResolved(net: SimNetwork, r: ResolvedProbe & { kind: 'packet' }, e: ScenarioProbe): TraceReport {
  const s = send(net, r, { trace: true });
  if (r.routerAnswers) {
    const back = s.first.outputs.find((o) => o.port === r.inport && isEchoReply(o.packet));
    return traced(s.first, net, back?.port);
  }
  const arrived = s.arrived;
  const base: TraceReport = {
    ...traced(s.first, net, s.again === undefined ? arrived?.port : undefined),
    ...(s.again !== undefined ? { retransmission: traced(s.again.result, net, arrived?.port), note: s.note! } : {}),
  };
  const { report: first, stopped } = withGateway(r, base, arrived);
  // Past a NAT gateway the appliance may have stopped it (its reply is then not traced).
  if (arrived === undefined || stopped) return first;
  const state = (s.again?.result ?? s.first).conntrack;
  if (e.protocol === 'UDP') return first;
  const answer = replyTo(arrived.packet);
  if (answer === undefined) return first;
  const back = simulate(net, { inport: arrived.port, packet: answer, conntrack: state, trace: true });
  const home = back.outputs.find((o) => o.port === r.inport && o.generated === undefined);
  return { ...first, reply: traced(back, net, home?.port) };
}

/**
 * A trace through a VPC NAT gateway: the appliance model's stages before
 * OVN's (ingress: the outside packet's DNAT) or after them (egress: from the
 * gateway pod's port on), each stage's datapath naming the appliance.
 */
function withGateway(
  r: ResolvedProbe & { kind: 'packet' },
  t: TraceReport,
  arrived: { readonly port: string; readonly packet: Packet } | undefined,
): { readonly report: TraceReport; readonly stopped: boolean } {
  const g = r.natGateway;
  if (g === undefined) return { report: t, stopped: false };
  if (g.direction === 'ingress') return { report: { ...t, stages: [...g.stages, ...t.stages] }, stopped: false };
  const v = arrived === undefined ? undefined : egressVerdict(r, arrived.port, arrived.packet);
  if (v === undefined) return { report: t, stopped: false };
  const report: TraceReport = {
    ...t,
    stages: [...t.stages, ...v.stages],
    ...(v.allowed ? {} : { verdict: 'dropped' as const, reason: v.unsure ?? v.reason ?? 'denied' }),
  };
  return { report, stopped: !v.allowed };
}

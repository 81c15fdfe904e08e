/**
 * One resolved probe traced on a compiled network: the first packet with its
 * stages and, for TCP, SCTP and ICMP echo, the reply from where it arrived
 * through the conntrack state the first packet left (`kovn trace`, and the
 * HTML report's per-probe traces).
 */
import { replyTo, simulate, type SimNetwork, type SimResult } from '../sim/index.ts';
import type { TraceStage } from '../sim/trace.ts';
import type { Packet } from '../model/packet/index.ts';
import { ICMP4_ECHO_REPLY, ICMP6_ECHO_REPLY } from '../model/packet/fields.ts';
import { explainDrop } from './explain.ts';
import type { ScenarioProbe } from './load.ts';
import type { ResolvedProbe } from './probe.ts';

export interface TracedPacket {
  readonly verdict: 'delivered' | 'dropped';
  readonly outport?: string;
  readonly stages: readonly TraceStage[];
  /** Why dropped, naming what decided (explain.ts). */
  readonly reason?: string;
}

export interface TraceReport extends TracedPacket {
  readonly reply?: TracedPacket;
  readonly ovnTrace?: string;
  /** Why the verdict may depend on something kovn did not act on. */
  readonly unsure?: string;
}

/** An ICMP or ICMPv6 echo reply (what a router answering a ping sends back). */
export const isEchoReply = (p: Packet): boolean =>
  p['icmp4.type'] === ICMP4_ECHO_REPLY || p['icmp6.type'] === ICMP6_ECHO_REPLY;

function traced(r: SimResult, net: SimNetwork, arrived: string | undefined): TracedPacket {
  const outport = arrived ?? r.outputs[0]?.port;
  return {
    verdict: arrived !== undefined ? 'delivered' : 'dropped',
    ...(outport !== undefined ? { outport } : {}),
    stages: r.stages,
    ...(arrived === undefined && r.drop ? { reason: explainDrop(r.drop, net.topology) } : {}),
  };
}

export function traceResolved(net: SimNetwork, r: ResolvedProbe & { kind: 'packet' }, e: ScenarioProbe): TraceReport {
  const fwd = simulate(net, { inport: r.inport, packet: r.packet, trace: true });
  if (r.routerAnswers) {
    const back = fwd.outputs.find((o) => o.port === r.inport && isEchoReply(o.packet));
    return traced(fwd, net, back?.port);
  }
  const arrived = fwd.outputs.find((o) => r.targets.includes(o.port) && o.generated === undefined);
  const first = traced(fwd, net, arrived?.port);
  if (arrived === undefined || e.protocol === 'UDP') return first;
  const answer = replyTo(arrived.packet);
  if (answer === undefined) return first;
  const back = simulate(net, { inport: arrived.port, packet: answer, conntrack: fwd.conntrack, trace: true });
  const home = back.outputs.find((o) => o.port === r.inport && o.generated === undefined);
  return { ...first, reply: traced(back, net, home?.port) };
}

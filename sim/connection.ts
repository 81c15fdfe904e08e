/**
 * A connection probe with the verdict of docs/architecture.md ("Scenario files"): TCP and SCTP need the first
 * packet delivered to the destination port and its reply back at the source
 * (the handshake completes); ICMP needs the echo request delivered and the
 * echo reply back; UDP needs only the first datagram delivered.
 *
 * The reply is what the destination's stack would send: addresses and ports
 * swapped from the packet as it arrived (after any NAT), the MAC it came from
 * as the new destination MAC, and the conntrack state the first packet left.
 */
import { ConntrackState } from './conntrack/state.ts';
import type { SimNetwork } from './compile/types.ts';
import {
  ICMP4_ECHO_REPLY,
  ICMP4_ECHO_REQUEST,
  ICMP6_ECHO_REPLY,
  ICMP6_ECHO_REQUEST,
  TCP_ACK,
  TCP_SYN,
} from '../model/packet/fields.ts';
import {
  type Packet,
  dstPort,
  ipDst,
  ipSrc,
  isIP,
  isIPv4,
  l4ProtoOf,
  srcPort,
  withFields,
  withIPs,
  withPorts,
} from '../model/packet/packet.ts';
import type { Selector } from './pipeline/run.ts';
import { type SimResult, simulate } from './simulate.ts';

export interface ConnectionProbe {
  readonly inport: string;
  readonly packet: Packet;
  /** The port that must receive the first packet (a pod's own interface). */
  readonly target: string;
  readonly conntrack?: ConntrackState;
  readonly select?: Selector;
  /** Record stage traces (default false: probes are hot). */
  readonly trace?: boolean;
}

export interface ConnectionResult {
  readonly allowed: boolean;
  /** Why not, in one line, when not allowed. */
  readonly reason?: string;
  readonly forward: SimResult;
  readonly reply?: SimResult;
  readonly conntrack: ConntrackState;
}

/**
 * The reply a host sends to `arrived` (the packet as delivered to it): IPs, L4
 * ports and MACs mirrored, TTL 64; a TCP SYN gets a SYN-ACK, UDP and SCTP a
 * datagram back, an echo request an echo reply. Undefined for what opens no
 * connection (ARP, ICMP errors, non-IP). Probes and the differential test's
 * connections both use it.
 */
export function replyTo(arrived: Packet): Packet | undefined {
  if (!isIP(arrived)) return undefined;
  const proto = l4ProtoOf(arrived);
  const swapped = withFields(withIPs(arrived, ipDst(arrived), ipSrc(arrived)), {
    'eth.src': arrived['eth.dst'],
    'eth.dst': arrived['eth.src'],
    'ip.ttl': 64,
  });
  switch (proto) {
    case 'tcp':
      return withFields(withPorts(swapped, dstPort(arrived), srcPort(arrived)), { 'tcp.flags': TCP_SYN | TCP_ACK });
    case 'udp':
    case 'sctp':
      return withPorts(swapped, dstPort(arrived), srcPort(arrived));
    case 'icmp4':
      return arrived['icmp4.type'] === ICMP4_ECHO_REQUEST
        ? withFields(swapped, { 'icmp4.type': ICMP4_ECHO_REPLY, 'icmp4.code': 0 })
        : undefined;
    case 'icmp6':
      return arrived['icmp6.type'] === ICMP6_ECHO_REQUEST
        ? withFields(swapped, { 'icmp6.type': ICMP6_ECHO_REPLY, 'icmp6.code': 0 })
        : undefined;
    default:
      return undefined;
  }
}

/** Whether this protocol's verdict needs the reply (docs/architecture.md: all but UDP). */
function needsReply(p: Packet): boolean {
  const proto = l4ProtoOf(p);
  return proto === 'tcp' || proto === 'sctp' || proto === 'icmp4' || proto === 'icmp6';
}

/**
 * @example
 * const r = probeConnection(net, { inport: 'web-0.default', target: 'db-0.prod', packet: tcpPacket({...}) });
 * r.allowed; // true when the SYN reached db-0 and the SYN-ACK came back to web-0
 */
export function probeConnection(net: SimNetwork, probe: ConnectionProbe): ConnectionResult {
  const trace = probe.trace ?? false;
  const forward = simulate(net, {
    inport: probe.inport,
    packet: probe.packet,
    trace,
    ...(probe.conntrack ? { conntrack: probe.conntrack } : {}),
    ...(probe.select ? { select: probe.select } : {}),
  });
  const arrived = forward.outputs.find((o) => o.port === probe.target && o.generated === undefined);
  if (!arrived) {
    const why = forward.drop
      ? `dropped in ${forward.drop.datapath} ${forward.drop.stage}: ${forward.drop.reason}`
      : `never reached ${probe.target}`;
    return { allowed: false, reason: why, forward, conntrack: forward.conntrack };
  }
  const reply = needsReply(probe.packet) ? replyTo(arrived.packet) : undefined;
  if (!reply) return { allowed: true, forward, conntrack: forward.conntrack };
  const back = simulate(net, { inport: probe.target, packet: reply, conntrack: forward.conntrack, trace });
  const home = back.outputs.some(
    (o) => o.port === probe.inport && o.generated === undefined && isReplyFor(probe.packet, o.packet),
  );
  return {
    allowed: home,
    ...(home
      ? {}
      : {
          reason: back.drop
            ? `reply dropped in ${back.drop.datapath} ${back.drop.stage}: ${back.drop.reason}`
            : `reply never reached ${probe.inport}`,
        }),
    forward,
    reply: back,
    conntrack: back.conntrack,
  };
}

/**
 * A first packet its client sends again when nothing answers it
 * (docs/architecture.md, Verdict): a TCP SYN or an SCTP INIT; a datagram or
 * an echo request is not. Both worlds retransmit on this rule.
 *
 * @example isRetransmitted(syn) // true
 */
export function isRetransmitted(p: Packet): boolean {
  const proto = l4ProtoOf(p);
  return proto === 'tcp' || proto === 'sctp';
}

/** What a probe's first packet is sent with again when it got no answer. */
export interface Retransmission {
  /** The state the retransmission is sent through: the first packet's, without its conntrack entries. */
  readonly conntrack: ConntrackState;
  readonly result: SimResult;
}

/**
 * The client's retransmission of a TCP SYN or SCTP INIT that got no answer
 * (docs/architecture.md, Verdict). A kernel sends it again, with the same
 * addresses and ports, until it gives up (Linux: a SYN for about 127 s).
 * While conntrack still holds the unanswered connection, a retransmission
 * meets that entry and goes the way the first went (measured on real
 * packets: an OVN 23.03 affinity learn flow drops it again); the one that
 * counts is sent once the entry has expired (OVS's userspace conntrack:
 * see docs/design-notes.md), so through every other state the first packet
 * left: learned load-balancer affinities and MACs. Undefined when there is
 * no such retransmission: not TCP or SCTP; the packet was forwarded, or
 * something answered the client (a reset, an ICMP error); or it left no
 * state besides conntrack, so its retransmission would run as it did.
 *
 * @example
 * const first = simulate(net, { inport: 'client.default', packet: syn });
 * const again = retransmission(net, { inport: 'client.default', packet: syn }, first);
 * again?.result.outputs // the SYN at the backend the first one's affinity learned
 */
export function retransmission(
  net: SimNetwork,
  probe: Pick<ConnectionProbe, 'inport' | 'packet' | 'conntrack' | 'select' | 'trace'>,
  first: SimResult,
): Retransmission | undefined {
  if (!isRetransmitted(probe.packet)) return undefined;
  if (first.outputs.some((o) => o.generated === undefined || o.port === probe.inport)) return undefined;
  const before = probe.conntrack ?? ConntrackState.EMPTY;
  if (!sameEntries(before.affinity, first.conntrack.affinity) || !sameEntries(before.fdb, first.conntrack.fdb)) {
    const conntrack = first.conntrack.flushed();
    const result = simulate(net, {
      inport: probe.inport,
      packet: probe.packet,
      conntrack,
      trace: probe.trace ?? false,
      ...(probe.select ? { select: probe.select } : {}),
    });
    return { conntrack, result };
  }
  return undefined;
}

function sameEntries<V>(a: ReadonlyMap<string, V>, b: ReadonlyMap<string, V>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (JSON.stringify(b.get(k)) !== JSON.stringify(v)) return false;
  return true;
}

/** The reply as delivered answers the original: addresses (and ports) mirror it. */
function isReplyFor(original: Packet, got: Packet): boolean {
  if (isIPv4(original) !== isIPv4(got)) return false;
  if (ipSrc(got) !== ipDst(original) || ipDst(got) !== ipSrc(original)) return false;
  const proto = l4ProtoOf(original);
  if (proto === 'tcp') return got['tcp.src'] === original['tcp.dst'] && got['tcp.dst'] === original['tcp.src'];
  if (proto === 'sctp') return got['sctp.src'] === original['sctp.dst'] && got['sctp.dst'] === original['sctp.src'];
  return true;
}

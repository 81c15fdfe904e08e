/**
 * A probe answered with real sockets, as docs/architecture.md defines the
 * verdict: TCP, the handshake completes with a listener in a target's
 * namespace (the listener names itself back, so a connection that reached
 * anything else is told apart); UDP, a target's listener receives the
 * datagram; ICMP, the echo reply gets back and a target's kernel counted the
 * request (or, to a router's own address, the reply gets back). The probe's
 * first packet says what to send: its addresses, protocol and ports; the
 * source is the agent of its inport (a pod, or for an outside source the
 * outside hosts behind that node), the targets the agents of its targets.
 */
import { formatIPv4, formatIPv6 } from '../../model/addr/index.ts';
import { dstPort, ipDst, ipSrc, l4ProtoOf } from '../../model/packet/index.ts';
import type { ResolvedProbe } from '../probe.ts';
import type { Agent, AgentProto } from './agents.ts';
import { asSpoofed, type Spoof } from './spoof.ts';

type PacketProbe = ResolvedProbe & { kind: 'packet' };

export interface ProbeAnswer {
  readonly allowed: boolean;
  readonly reason?: string;
  readonly note?: string;
  /** What the lab could not try here (the probe then has no verdict of its own). */
  readonly unsure?: string;
}

/** An outside namespace behind a node, and how to make it hold an address. */
export interface OutsideEnd {
  readonly agent: Agent;
  hold(addr: string): Promise<void>;
}

export interface LabEnds {
  /** The agent of a pod's logical port. */
  pod(port: string): Agent | undefined;
  /** The outside hosts behind a node port (`node-<node>`). */
  outsideOf(port: string): OutsideEnd | undefined;
  readonly timeoutMs: number;
  /** A fresh token naming one probe. */
  token(): string;
  /**
   * Forgets what these namespaces' kernels learned of their neighbours (not
   * what was set by hand): every probe is a new client and server, as on the
   * other worlds, not one holding the MAC an address had in an earlier step.
   */
  forgetNeighbours(netns: readonly string[]): Promise<void>;
}

/**
 * The lab wires no provider network yet (no provider bridge in
 * ovn-bridge-mappings, no host namespaces): a probe from or to a physical
 * host is said unsure instead of answered.
 */
export const PROVIDER_UNSURE =
  'the lab wires no provider network yet: no namespace stands for a physical host behind a localnet port';

/** Node.js has no SCTP socket and this kernel may have no sctp module: the lab says so instead of a verdict. */
export const SCTP_UNSURE =
  'the lab has no SCTP socket to probe with (Node.js has none; the kernel here loads no sctp module)';

const addr = (v: number | bigint | undefined): string =>
  v === undefined ? '' : typeof v === 'bigint' ? formatIPv6(v) : formatIPv4(v);

interface Ends {
  readonly src: Agent;
  /** The source address to bind (an outside host's), when it is not the namespace's own. */
  readonly bind?: string;
  readonly targets: readonly { readonly port: string; readonly agent: Agent }[];
}

/**
 * @example await answerProbe(ends, resolveProbe(ix, { from: 'default/a', to: 'default/b', protocol: 'TCP', port: 80, allowed: true }, 0))
 *   // { allowed: true }
 */
export async function answerProbe(lab: LabEnds, r: PacketProbe): Promise<ProbeAnswer> {
  if (r.physicalHost !== undefined) return { allowed: false, unsure: PROVIDER_UNSURE };
  const src = addr(ipSrc(r.packet));
  const dst = addr(ipDst(r.packet));
  const ends = await endsOf(lab, r, src, dst);
  // A port with no namespace behind it (a pod the lab could not wire): nothing was tried, no verdict.
  if (typeof ends === 'string') return { allowed: false, unsure: ends };
  await lab.forgetNeighbours([ends.src.netns, ...ends.targets.map((t) => t.agent.netns)]);
  const proto = l4ProtoOf(r.packet);
  if (proto === 'sctp') return { allowed: false, unsure: SCTP_UNSURE };
  if ((proto === 'icmp4' || proto === 'icmp6') && r.spoofed !== undefined)
    return spoofedPing(lab, r, ends, dst, r.spoofed);
  if (proto === 'icmp4' || proto === 'icmp6') return ping(lab, r, ends, dst);
  if (proto !== 'tcp' && proto !== 'udp') return { allowed: false, unsure: `the lab cannot send ${String(proto)}` };
  if (r.spoofed !== undefined) return spoofedUdp(lab, r, ends, dst, r.spoofed);
  return connect(lab, r, ends, proto, dst);
}

async function endsOf(lab: LabEnds, r: PacketProbe, src: string, dst: string): Promise<Ends | string> {
  const targets: { port: string; agent: Agent }[] = [];
  for (const port of r.targets) {
    const pod = lab.pod(port);
    if (pod !== undefined) {
      targets.push({ port, agent: pod });
      continue;
    }
    const out = lab.outsideOf(port);
    if (out === undefined) return `the lab has no namespace behind ${port}`;
    await out.hold(dst);
    targets.push({ port, agent: out.agent });
  }
  const pod = lab.pod(r.inport);
  if (pod !== undefined) return { src: pod, targets };
  const out = lab.outsideOf(r.inport);
  if (out === undefined) return `the lab has no namespace behind ${r.inport}`;
  await out.hold(src);
  return { src: out.agent, bind: src, targets };
}

async function ping(lab: LabEnds, r: PacketProbe, ends: Ends, dst: string): Promise<ProbeAnswer> {
  const before = await Promise.all(ends.targets.map((t) => t.agent.echoes()));
  const p = await ends.src.ping(dst, lab.timeoutMs, ends.bind);
  if (r.routerAnswers)
    return p.replied ? { allowed: true } : { allowed: false, reason: `no echo reply from ${dst} (${p.error ?? ''})` };
  const after = await Promise.all(ends.targets.map((t) => t.agent.echoes()));
  const reached = ends.targets.filter((_, i) => after[i]! > before[i]!).map((t) => t.port);
  if (p.replied && reached.length > 0) return { allowed: true };
  if (reached.length > 0)
    return { allowed: false, reason: `the echo request reached ${reached.join(', ')}; no reply came back` };
  if (p.replied)
    return {
      allowed: false,
      reason: `an echo reply came back from ${dst}, but none of ${r.targets.join(', ')} received the request`,
    };
  return { allowed: false, reason: `no echo request reached ${r.targets.join(', ')} (${p.error ?? 'no reply'})` };
}

/** The port each target listens on: a Service's endpoint its target port, any other the packet's port. */
function listenPort(r: PacketProbe, port: string): number {
  return r.endpoints?.find((e) => e.port === port)?.targetPort ?? dstPort(r.packet) ?? 0;
}

async function connect(lab: LabEnds, r: PacketProbe, ends: Ends, proto: AgentProto, dst: string): Promise<ProbeAnswer> {
  for (const t of ends.targets) await t.agent.listen(proto, listenPort(r, t.port));
  const token = lab.token();
  const port = dstPort(r.packet) ?? 0;
  const c = await ends.src.connect({
    proto,
    dst,
    port,
    token,
    timeoutMs: lab.timeoutMs,
    ...(ends.bind !== undefined ? { src: ends.bind } : {}),
  });
  const seen = await Promise.all(ends.targets.map((t) => t.agent.seen(token)));
  const reached = ends.targets.filter((_, i) => seen[i]).map((t) => t.port);
  const what = `${proto.toUpperCase()} ${dst}:${port}`;
  if (proto === 'udp') {
    if (reached.length > 0) return { allowed: true };
    return { allowed: false, reason: `${what}: no datagram reached ${r.targets.join(', ')}` };
  }
  if (c.connected && reached.length > 0) return { allowed: true };
  if (c.connected)
    return {
      allowed: false,
      reason: `${what}: the handshake completed with ${c.reply ?? 'another listener'}, not ${r.targets.join(', ')}`,
    };
  const why =
    c.error === 'ECONNREFUSED'
      ? 'a reset came back'
      : c.error === 'timeout'
        ? `no SYN-ACK within ${lab.timeoutMs} ms`
        : c.error;
  return { allowed: false, reason: `${what}: no handshake (${why})` };
}

/** Where a spoofed packet goes: its destination and the MAC it carries (the next hop's). */
const hopOf = (r: PacketProbe, dst: string) => ({ dst, ethDst: r.packet['eth.dst'] });

/** A spoofed echo request: delivered iff a target's kernel counted it (the reply goes to the address's owner). */
async function spoofedPing(lab: LabEnds, r: PacketProbe, ends: Ends, dst: string, spoof: Spoof): Promise<ProbeAnswer> {
  const before = await Promise.all(ends.targets.map((t) => t.agent.echoes()));
  await asSpoofed(ends.src.netns, spoof, hopOf(r, dst), (src) => ends.src.ping(dst, lab.timeoutMs, src));
  const after = await Promise.all(ends.targets.map((t) => t.agent.echoes()));
  if (ends.targets.some((_, i) => after[i]! > before[i]!)) return { allowed: true };
  return { allowed: false, reason: `no spoofed echo request (${spoofText(spoof)}) reached ${r.targets.join(', ')}` };
}

/** A spoofed datagram: delivered iff a target's listener received it. */
async function spoofedUdp(lab: LabEnds, r: PacketProbe, ends: Ends, dst: string, spoof: Spoof): Promise<ProbeAnswer> {
  for (const t of ends.targets) await t.agent.listen('udp', listenPort(r, t.port));
  const token = lab.token();
  const port = dstPort(r.packet) ?? 0;
  await asSpoofed(ends.src.netns, spoof, hopOf(r, dst), (src) =>
    ends.src.connect({ proto: 'udp', dst, port, token, timeoutMs: lab.timeoutMs, ...(src ? { src } : {}) }),
  );
  const seen = await Promise.all(ends.targets.map((t) => t.agent.seen(token)));
  if (seen.some(Boolean)) return { allowed: true };
  return {
    allowed: false,
    reason: `UDP ${dst}:${port}: no spoofed datagram (${spoofText(spoof)}) reached ${r.targets.join(', ')}`,
  };
}

const spoofText = (s: Spoof) => [s.ip && `ip ${s.ip}`, s.mac && `mac ${s.mac}`].filter(Boolean).join(', ');

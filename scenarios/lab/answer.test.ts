// How the lab reads what its agents saw into a verdict, with agents that answer as told (no namespaces): a TCP
// handshake counts only with a target's listener, a UDP datagram only at a target, an echo only if a target's
// kernel counted it; SCTP is unsure, never a verdict.
import { describe, expect, it } from 'vitest';
import { icmpEcho, sctpPacket, tcpPacket, udpPacket } from '../../model/packet/index.ts';
import type { ResolvedProbe } from '../probe.ts';
import type { Agent, ConnectAnswer, ConnectRequest } from './agents.ts';
import { answerProbe, type LabEnds, SCTP_UNSURE } from './answer.ts';

type PacketProbe = ResolvedProbe & { kind: 'packet' };

/** An agent that answers as told and records what it was asked. */
function fakeAgent(name: string, o: { connect?: ConnectAnswer; sees?: boolean; echoes?: number[]; replied?: boolean }) {
  const echoes = [...(o.echoes ?? [0, 0])];
  const asked: string[] = [];
  const agent = {
    netns: `ns-${name}`,
    name,
    listen: async (proto: string, port: number) => void asked.push(`listen ${proto}/${port}`),
    connect: async (req: ConnectRequest) => {
      asked.push(`connect ${req.proto} ${req.dst}:${req.port}`);
      return o.connect ?? {};
    },
    seen: async () => o.sees === true,
    ping: async () => ({ replied: o.replied === true }),
    echoes: async () => echoes.shift() ?? 0,
  };
  return { agent: agent as unknown as Agent, asked };
}

const ends = (agents: Record<string, Agent>): LabEnds => ({
  pod: (port) => agents[port],
  outsideOf: () => undefined,
  timeoutMs: 100,
  token: () => 't1',
  forgetNeighbours: async () => {},
});

const spec = { ethSrc: '0a:00:00:00:00:01', ethDst: '0a:00:00:00:00:02', src: '10.16.0.2', dst: '10.16.0.3' };
const probe = (packet: PacketProbe['packet'], extra: Partial<PacketProbe> = {}): PacketProbe => ({
  kind: 'packet',
  inport: 'a.default',
  packet,
  targets: ['b.default'],
  ...extra,
});

describe('the lab reads its agents into a verdict', () => {
  it('TCP: a handshake with a target that received the token is allowed; one with another listener is not', async () => {
    const src = fakeAgent('a', { connect: { connected: true, reply: 'default/b' } });
    const b = fakeAgent('b', { sees: true });
    const tcp = probe(tcpPacket({ ...spec, sport: 30000, dport: 80 }));
    expect(await answerProbe(ends({ 'a.default': src.agent, 'b.default': b.agent }), tcp)).toEqual({ allowed: true });
    expect(b.asked).toEqual(['listen tcp/80']);
    const elsewhere = fakeAgent('c', { sees: false });
    const c = fakeAgent('a', { connect: { connected: true, reply: 'default/c' } });
    const v = await answerProbe(ends({ 'a.default': c.agent, 'b.default': elsewhere.agent }), tcp);
    expect(v).toEqual({
      allowed: false,
      reason: 'TCP 10.16.0.3:80: the handshake completed with default/c, not b.default',
    });
  });

  it('TCP: no SYN-ACK is denied and says so; a Service probe listens on each endpoint target port', async () => {
    const src = fakeAgent('a', { connect: { connected: false, error: 'timeout' } });
    const b = fakeAgent('b', {});
    const svc = probe(tcpPacket({ ...spec, dst: '10.96.0.10', sport: 30000, dport: 80 }), {
      endpoints: [{ port: 'b.default', targetPort: 8080 }],
    });
    const v = await answerProbe(ends({ 'a.default': src.agent, 'b.default': b.agent }), svc);
    expect(v).toEqual({ allowed: false, reason: 'TCP 10.96.0.10:80: no handshake (no SYN-ACK within 100 ms)' });
    expect(b.asked).toEqual(['listen tcp/8080']);
    expect(src.asked).toEqual(['connect tcp 10.96.0.10:80']);
  });

  it('UDP: delivered iff a target received the datagram, whatever came back', async () => {
    const udp = probe(udpPacket({ ...spec, sport: 30000, dport: 53 }));
    const src = fakeAgent('a', { connect: { error: 'no answer' } });
    const at = await answerProbe(
      ends({ 'a.default': src.agent, 'b.default': fakeAgent('b', { sees: true }).agent }),
      udp,
    );
    expect(at).toEqual({ allowed: true });
    const not = await answerProbe(ends({ 'a.default': src.agent, 'b.default': fakeAgent('b', {}).agent }), udp);
    expect(not).toEqual({ allowed: false, reason: 'UDP 10.16.0.3:53: no datagram reached b.default' });
  });

  it('ICMP: the reply back and the request counted at a target; a reply from elsewhere is not the target', async () => {
    const icmp = probe(icmpEcho({ ...spec, id: 1 }));
    const src = fakeAgent('a', { replied: true });
    const counted = fakeAgent('b', { echoes: [4, 5] });
    expect(await answerProbe(ends({ 'a.default': src.agent, 'b.default': counted.agent }), icmp)).toEqual({
      allowed: true,
    });
    const notCounted = fakeAgent('b', { echoes: [4, 4] });
    const v = await answerProbe(ends({ 'a.default': src.agent, 'b.default': notCounted.agent }), icmp);
    expect(v.allowed).toBe(false);
    expect(v.reason).toMatch(/none of b.default received the request/);
  });

  it('SCTP is unsure (the lab cannot send it here), and a port with no namespace behind it is no verdict either', async () => {
    const sctp = probe(sctpPacket({ ...spec, sport: 30000, dport: 9999 }));
    const agents = { 'a.default': fakeAgent('a', {}).agent, 'b.default': fakeAgent('b', {}).agent };
    expect(await answerProbe(ends(agents), sctp)).toEqual({ allowed: false, unsure: SCTP_UNSURE });
    const nowhere = await answerProbe(
      ends({ 'a.default': agents['a.default'] }),
      probe(udpPacket({ ...spec, sport: 1, dport: 2 })),
    );
    expect(nowhere).toEqual({ allowed: false, unsure: 'the lab has no namespace behind b.default' });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIPv4 } from '../../model/addr/index.ts';
import { fcParams } from '../../test/fc.ts';
import { icmpEcho, sctpPacket, tcpPacket, udpPacket } from '../../model/packet/build.ts';
import { TCP_ACK, TCP_FIN, TCP_PSH, TCP_RST, TCP_SYN } from '../../model/packet/fields.ts';
import { withFields } from '../../model/packet/packet.ts';
import { innerOf } from '../pipeline/generate.ts';
import {
  CS_DNAT,
  CS_EST,
  CS_INV,
  CS_NEW,
  CS_REL,
  CS_RPL,
  CS_SNAT,
  CS_TRK,
  ConntrackState,
  MARK_BLOCKED,
  affinityKey,
  formatCtState,
} from './state.ts';
import { ConntrackTx } from './tx.ts';

const A = '0a:00:00:00:00:01';
const B = '0a:00:00:00:00:02';
const syn = tcpPacket({ ethSrc: A, ethDst: B, src: '10.0.0.1', dst: '10.0.0.2', sport: 1111, dport: 80 });
const synAck = tcpPacket({
  ethSrc: B,
  ethDst: A,
  src: '10.0.0.2',
  dst: '10.0.0.1',
  sport: 80,
  dport: 1111,
  flags: TCP_SYN | TCP_ACK,
});
const Z = 'lsp:a';

describe('conntrack lookups', () => {
  it('a first packet is new and leaves no entry unless committed', () => {
    const tx = new ConntrackTx(ConntrackState.EMPTY);
    expect(tx.lookup(Z, syn, { nat: false }).state).toBe(CS_TRK | CS_NEW);
    expect(tx.finish()).toBe(ConntrackState.EMPTY);
  });

  it('after a commit, replies are est|rpl and then the original direction is est', () => {
    const tx = new ConntrackTx(ConntrackState.EMPTY);
    tx.commit(Z, syn);
    expect(tx.lookup(Z, syn, { nat: false }).state).toBe(CS_TRK | CS_NEW);
    expect(tx.lookup(Z, synAck, { nat: false }).state).toBe(CS_TRK | CS_EST | CS_RPL);
    expect(tx.lookup(Z, withFields(syn, { 'tcp.flags': TCP_ACK }), { nat: false }).state).toBe(CS_TRK | CS_EST);
    expect(tx.lookup('lsp:other', synAck, { nat: false }).state).toBe(CS_TRK | CS_INV);
  });

  it('packets that cannot open a connection are invalid', () => {
    const tx = new ConntrackTx(ConntrackState.EMPTY);
    expect(tx.lookup(Z, synAck, { nat: false }).state & CS_INV).toBeTruthy();
    // OVS 3.1 userspace conntrack's tcp_valid_new: SYN+ACK, SYN+RST, SYN+FIN, no flags, FIN or PSH without ACK.
    for (const flags of [TCP_SYN | TCP_ACK, TCP_SYN | TCP_RST, TCP_SYN | TCP_FIN, 0, TCP_FIN, TCP_PSH | TCP_RST])
      expect(tx.lookup(Z, withFields(syn, { 'tcp.flags': flags }), { nat: false }).state, `flags ${flags}`).toBe(
        CS_TRK | CS_INV,
      );
    // ... and a RST opens one there (Linux's conntrack would call it invalid): seen on real packets.
    for (const flags of [TCP_RST, TCP_RST | TCP_ACK, TCP_FIN | TCP_ACK])
      expect(tx.lookup(Z, withFields(syn, { 'tcp.flags': flags }), { nat: false }).state, `flags ${flags}`).toBe(
        CS_TRK | CS_NEW,
      );
    expect(
      tx.lookup(Z, icmpEcho({ ethSrc: A, ethDst: B, src: '10.0.0.1', dst: '10.0.0.2', kind: 'reply' }), { nat: false })
        .state & CS_INV,
    ).toBeTruthy();
    // loose pick-up
    expect(tx.lookup(Z, withFields(syn, { 'tcp.flags': TCP_ACK }), { nat: false }).state).toBe(CS_TRK | CS_NEW);
    expect(
      tx.lookup(Z, udpPacket({ ethSrc: A, ethDst: B, src: '10.0.0.1', dst: '10.0.0.2', sport: 1, dport: 2 }), {
        nat: false,
      }).state,
    ).toBe(CS_TRK | CS_NEW);
  });

  it('ICMP echo: the reply matches the request by id', () => {
    const tx = new ConntrackTx(ConntrackState.EMPTY);
    tx.commit(Z, icmpEcho({ ethSrc: A, ethDst: B, src: '10.0.0.1', dst: '10.0.0.2', id: 9 }));
    expect(
      tx.lookup(Z, icmpEcho({ ethSrc: B, ethDst: A, src: '10.0.0.2', dst: '10.0.0.1', kind: 'reply', id: 9 }), {
        nat: false,
      }).state,
    ).toBe(CS_TRK | CS_EST | CS_RPL);
    expect(
      tx.lookup(Z, icmpEcho({ ethSrc: B, ethDst: A, src: '10.0.0.2', dst: '10.0.0.1', kind: 'reply', id: 10 }), {
        nat: false,
      }).state & CS_INV,
    ).toBeTruthy();
  });

  it('an ICMP error about a committed connection is related', () => {
    const tx = new ConntrackTx(ConntrackState.EMPTY);
    tx.commit(Z, syn);
    const err = {
      ...icmpEcho({ ethSrc: B, ethDst: A, src: '10.0.0.254', dst: '10.0.0.1' }),
      'icmp4.type': 11,
      inner: innerOf(syn),
    };
    expect(tx.lookup(Z, err, { nat: false }).state).toBe(CS_TRK | CS_REL | CS_RPL);
    const unrelated = { ...err, inner: innerOf(withFields(syn, { 'tcp.dst': 81 })) };
    expect(tx.lookup(Z, unrelated, { nat: false }).state & CS_INV).toBeTruthy();
  });
});

describe('a conntrack flush', () => {
  it('forgets every entry and keeps the learned LB affinities (OVS: learned flows, not conntrack)', () => {
    const tx = new ConntrackTx(ConntrackState.EMPTY);
    tx.commit(Z, syn);
    tx.learnAffinity(affinityKey('sw', 'lb|10.96.0.1:80', 1n), { backend: '10.0.0.3:8080', timeout: 60 });
    const before = tx.finish();
    const after = before.flushed();
    expect(before.size).toBe(1);
    expect(after.size).toBe(0);
    expect(new ConntrackTx(after).lookup(Z, synAck, { nat: false }).state).toBe(CS_TRK | CS_INV);
    expect([...after.affinity.keys()]).toEqual([...before.affinity.keys()]);
    expect(after.affinity.size).toBe(1);
  });
});

describe('SCTP keyed by addresses alone (OVS 3.1 userspace conntrack), for the differential test', () => {
  const sctp = (sport: number, dport: number, src = '10.0.0.1', dst = '10.96.0.10') =>
    sctpPacket({ ethSrc: A, ethDst: B, src, dst, sport, dport });

  it('by default SCTP is keyed by ports: another port pair is another connection', () => {
    const tx = new ConntrackTx(ConntrackState.EMPTY);
    tx.commit(Z, sctp(29224, 80));
    expect(tx.lookup(Z, sctp(29225, 80), { nat: false }).state).toBe(CS_TRK | CS_NEW);
    expect(tx.lookup(Z, sctp(80, 29224, '10.96.0.10', '10.0.0.1'), { nat: false }).state).toBe(
      CS_TRK | CS_EST | CS_RPL,
    );
  });

  it('keyed by address, any ports between the same addresses are the connection; NAT keeps every port', () => {
    const base = ConntrackState.EMPTY_SCTP_BY_ADDRESS;
    const tx = new ConntrackTx(base);
    const c = tx.commit(Z, sctp(29224, 80), { nat: { kind: 'dnat', ip: parseIPv4('10.0.0.1'), port: 8080 } });
    expect([c.packet['ip4.dst'], c.packet['sctp.src'], c.packet['sctp.dst']]).toEqual([
      parseIPv4('10.0.0.1'),
      29224,
      80,
    ]);
    // Backend to itself, ports swapped or not: the reply of that connection (seed 777 case 591).
    const r = tx.lookup(Z, sctp(29224, 80, '10.0.0.1', '10.0.0.1'), { nat: true });
    expect(r.state).toBe(CS_TRK | CS_EST | CS_RPL | CS_SNAT);
    expect([r.packet['ip4.src'], r.packet['sctp.src'], r.packet['sctp.dst']]).toEqual([
      parseIPv4('10.96.0.10'),
      29224,
      80,
    ]);
    expect(tx.lookup(Z, sctp(1, 2), { nat: false }).state).toBe(CS_TRK | CS_EST);
    const next = tx.finish();
    expect(next.sctpByAddress).toBe(true);
    expect(next.flushed().sctpByAddress).toBe(true);
    expect(new ConntrackTx(next).lookup(Z, sctp(3, 4), { nat: false }).state).toBe(CS_TRK | CS_EST);
    // TCP keeps its ports.
    expect(new ConntrackTx(base).lookup(Z, syn, { nat: false }).state).toBe(CS_TRK | CS_NEW);
  });
});

describe('conntrack keeps address families apart', () => {
  // IPv4 10.0.0.1 and IPv6 ::a00:1 have the same numeric value (and decimal text).
  const syn6 = tcpPacket({ ethSrc: A, ethDst: B, src: '::a00:1', dst: '::a00:2', sport: 1111, dport: 80 });
  const synAck6 = tcpPacket({
    ethSrc: B,
    ethDst: A,
    src: '::a00:2',
    dst: '::a00:1',
    sport: 80,
    dport: 1111,
    flags: TCP_SYN | TCP_ACK,
  });

  it('an IPv6 connection is not an IPv4 one with the same numbers, in a transaction or after it', () => {
    const tx = new ConntrackTx(ConntrackState.EMPTY);
    tx.commit(Z, syn6);
    expect(tx.lookup(Z, synAck6, { nat: false }).state).toBe(CS_TRK | CS_EST | CS_RPL);
    expect(tx.lookup(Z, synAck, { nat: false }).state & CS_INV).toBeTruthy();
    const later = new ConntrackTx(tx.finish());
    expect(later.lookup(Z, synAck6, { nat: false }).state).toBe(CS_TRK | CS_EST | CS_RPL);
    expect(later.lookup(Z, synAck, { nat: false }).state & CS_INV).toBeTruthy();
    expect(later.lookup(Z, withFields(syn, { 'tcp.flags': TCP_ACK }), { nat: false }).state).toBe(CS_TRK | CS_NEW);
  });
});

describe('conntrack NAT', () => {
  it('DNAT rewrites the original direction and un-NATs replies', () => {
    const tx = new ConntrackTx(ConntrackState.EMPTY);
    const vip = withFields(syn, { 'ip4.dst': parseIPv4('10.96.0.10') });
    const c = tx.commit(Z, vip, { nat: { kind: 'dnat', ip: parseIPv4('10.0.0.2'), port: 8080 } });
    expect(c.packet['ip4.dst']).toBe(parseIPv4('10.0.0.2'));
    expect(c.packet['tcp.dst']).toBe(8080);
    expect(c.state & CS_DNAT).toBeTruthy();
    const reply = withFields(synAck, { 'tcp.src': 8080 });
    const back = tx.lookup(Z, reply, { nat: true });
    expect(back.packet['ip4.src']).toBe(parseIPv4('10.96.0.10'));
    expect(back.packet['tcp.src']).toBe(80);
    expect(tx.lookup(Z, reply, { nat: false }).packet).toBe(reply);
  });

  it('SNAT keeps the source port unless it is taken', () => {
    const tx = new ConntrackTx(ConntrackState.EMPTY);
    const ext = parseIPv4('192.0.2.2');
    const first = tx.commit(Z, syn, { nat: { kind: 'snat', ip: ext } });
    expect(first.packet['ip4.src']).toBe(ext);
    expect(first.packet['tcp.src']).toBe(1111);
    // Another host using the same source port to the same server gets another port.
    const other = withFields(syn, { 'ip4.src': parseIPv4('10.0.0.3') });
    const second = tx.commit(Z, other, { nat: { kind: 'snat', ip: ext } });
    expect(second.packet['tcp.src']).not.toBe(1111);
  });

  it('commit updates marks of an existing connection (blocked)', () => {
    const tx = new ConntrackTx(ConntrackState.EMPTY);
    tx.commit(Z, syn);
    tx.commit(Z, syn, { mark: { value: MARK_BLOCKED, mask: MARK_BLOCKED } });
    expect(tx.lookup(Z, synAck, { nat: false }).entry?.mark).toBe(MARK_BLOCKED);
  });

  it('a transaction never changes its base state', () => {
    const tx1 = new ConntrackTx(ConntrackState.EMPTY);
    tx1.commit(Z, syn);
    const s1 = tx1.finish();
    const tx2 = new ConntrackTx(s1);
    tx2.lookup(Z, synAck, { nat: false });
    tx2.commit('lsp:b', syn);
    const s2 = tx2.finish();
    expect(s1.size).toBe(1);
    expect(s1.entries()[0]!.seenReply).toBe(false);
    expect(s2.size).toBe(2);
    expect(s2.zoneEntries(Z)[0]!.seenReply).toBe(true);
  });

  it('formats states as ovn-trace --ct flags', () => {
    expect(formatCtState(CS_TRK | CS_EST | CS_RPL)).toBe('est|rpl|trk');
  });

  it('property: for any connection and DNAT target, the reply comes back from the original destination', () => {
    const ip = fc.integer({ min: 1, max: 0xfffffffe });
    const port = fc.integer({ min: 1, max: 65535 });
    fc.assert(
      fc.property(ip, ip, ip, port, port, port, (src, dst, target, sport, dport, tport) => {
        fc.pre(src !== dst && src !== target);
        const tx = new ConntrackTx(ConntrackState.EMPTY);
        const p = withFields(syn, { 'ip4.src': src, 'ip4.dst': dst, 'tcp.src': sport, 'tcp.dst': dport });
        const c = tx.commit(Z, p, { nat: { kind: 'dnat', ip: target, port: tport } });
        const reply = withFields(synAck, { 'ip4.src': target, 'ip4.dst': src, 'tcp.src': tport, 'tcp.dst': sport });
        const back = tx.lookup(Z, reply, { nat: true });
        return (
          c.packet['ip4.dst'] === target &&
          (back.state & (CS_TRK | CS_EST | CS_RPL)) === (CS_TRK | CS_EST | CS_RPL) &&
          back.packet['ip4.src'] === dst &&
          back.packet['tcp.src'] === dport
        );
      }),
      fcParams(200),
    );
  });

  it('property: splitting the same operations over a chain of transactions changes no result', () => {
    const tcp = fc.record({
      src: fc.integer({ min: 1, max: 3 }),
      dst: fc.integer({ min: 1, max: 3 }),
      sport: fc.integer({ min: 1, max: 2 }),
      dport: fc.integer({ min: 1, max: 2 }),
      ack: fc.boolean(),
    });
    const op = fc.record({
      commit: fc.boolean(),
      zone: fc.constantFrom('z1', 'z2'),
      p: tcp,
      nat: fc.constantFrom(
        undefined,
        { kind: 'dnat' as const, ip: 9, port: 7 },
        { kind: 'snat' as const, ip: 8, port: 1, portMax: 3 },
      ),
      mark: fc.boolean(),
    });
    const run = (ops: readonly (typeof op extends fc.Arbitrary<infer T> ? T : never)[], cuts: ReadonlySet<number>) => {
      let state = ConntrackState.EMPTY;
      let tx = new ConntrackTx(state);
      const seen: unknown[] = [];
      ops.forEach((o, i) => {
        if (cuts.has(i)) {
          state = tx.finish();
          tx = new ConntrackTx(state);
        }
        const p = withFields(syn, {
          'ip4.src': o.p.src,
          'ip4.dst': o.p.dst,
          'tcp.src': o.p.sport,
          'tcp.dst': o.p.dport,
          'tcp.flags': o.p.ack ? TCP_SYN | TCP_ACK : TCP_SYN,
        });
        const r = o.commit
          ? tx.commit(o.zone, p, {
              ...(o.nat ? { nat: o.nat } : {}),
              ...(o.mark ? { mark: { value: MARK_BLOCKED, mask: MARK_BLOCKED } } : {}),
            })
          : tx.lookup(o.zone, p, { nat: o.nat !== undefined });
        seen.push([
          r.state,
          r.entry,
          r.reply === true,
          r.packet['ip4.src'],
          r.packet['ip4.dst'],
          r.packet['tcp.src'],
          r.packet['tcp.dst'],
        ]);
      });
      const end = tx.finish();
      return {
        seen,
        entries: end.entries(),
        zones: ['z1', 'z2'].map((z) => end.zoneEntries(z).map((e) => e.id)),
        size: end.size,
      };
    };
    fc.assert(
      fc.property(fc.array(op, { maxLength: 12 }), fc.uniqueArray(fc.nat(12)), (ops, cuts) => {
        expect(run(ops, new Set(cuts))).toEqual(run(ops, new Set()));
      }),
      fcParams(300),
    );
  });
});

// The client's retransmission of a first packet that got no answer (docs/architecture.md, Verdict):
// sent through the state the first packet left, without its conntrack entries. Real packets show the
// same steps (verify/datapath/lb-affinity-retransmit.test.ts).
import { describe, expect, it } from 'vitest';
import { twoSubnets, MAC } from '../model/topology/index.ts';
import { tcpPacket } from '../model/packet/build.ts';
import { compileNetwork } from './compile/network.ts';
import { probeConnection, retransmission } from './connection.ts';
import { affinityTopology, toVip } from './lb-affinity.fixture.ts';
import { simulate } from './simulate.ts';

const affinity = (protocol: 'tcp' | 'udp' | 'sctp') =>
  compileNetwork(affinityTopology({ affinity_timeout: '60' }, protocol));

describe('retransmission', () => {
  it('a SYN an affinity learn flow dropped: again while conntrack holds it, dropped; once it is gone, delivered', () => {
    const net = affinity('tcp');
    const probe = { inport: 'c1', packet: toVip('c1', 40_000, 'tcp') };
    const first = simulate(net, { ...probe, select: () => 1 });
    expect(first.drop?.stage).toBe('ls_in_lb_aff_learn');
    // Through the whole state it left: conntrack DNATs it to the backend, the learn flow drops it again.
    const soon = simulate(net, { ...probe, conntrack: first.conntrack });
    expect(soon.drop?.stage).toBe('ls_in_lb_aff_learn');
    // The retransmission that counts: no conntrack entry, the learned backend (b2), whatever the selector says.
    const again = retransmission(net, { ...probe, select: () => 0 }, first)!;
    expect(again.conntrack.size).toBe(0);
    expect([...again.conntrack.affinity.values()]).toEqual([{ backend: '10.0.0.4:8080', timeout: 60 }]);
    expect(again.result.outputs.map((o) => o.port)).toEqual(['b2']);
    // And the handshake completes from there.
    const c = probeConnection(net, { ...probe, target: 'b2', conntrack: again.conntrack });
    expect(c.allowed).toBe(true);
  });

  it('SCTP likewise; UDP is never retransmitted', () => {
    const sctp = affinity('sctp');
    const init = { inport: 'c1', packet: toVip('c1', 40_000, 'sctp') };
    const first = simulate(sctp, init);
    expect(first.drop?.stage).toBe('ls_in_lb_aff_learn');
    expect(retransmission(sctp, init, first)?.result.verdict).toBe('delivered');
    const udp = affinity('udp');
    const dgram = { inport: 'c1', packet: toVip('c1', 40_000, 'udp') };
    const lost = simulate(udp, dgram);
    expect(lost.drop?.stage).toBe('ls_in_lb_aff_learn');
    expect(retransmission(udp, dgram, lost)).toBeUndefined();
  });

  it('none where the first was delivered, answered, or left no state but conntrack (it would go the same way)', () => {
    const syn = tcpPacket({
      ethSrc: MAC.p1,
      ethDst: MAC.r1sw1,
      src: '10.0.1.11',
      dst: '10.0.2.11',
      sport: 40000,
      dport: 80,
    });
    const probe = { inport: 'p1', packet: syn };
    const open = compileNetwork(twoSubnets().build());
    expect(retransmission(open, probe, simulate(open, probe))).toBeUndefined();
    const dropped = compileNetwork(twoSubnets().acl('sw2', 'to-lport', 100, 'tcp.dst == 80', 'drop').build());
    const d = simulate(dropped, probe);
    expect(d.verdict).toBe('dropped');
    expect(retransmission(dropped, probe, d)).toBeUndefined();
    const rejected = compileNetwork(twoSubnets().acl('sw2', 'to-lport', 100, 'tcp.dst == 80', 'reject').build());
    const rst = simulate(rejected, probe);
    expect(rst.outputs.map((o) => [o.port, o.generated])).toEqual([['p1', 'tcp-reset']]);
    expect(retransmission(rejected, probe, rst)).toBeUndefined();
  });
});

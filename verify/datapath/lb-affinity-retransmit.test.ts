// A TCP client's retransmitted SYN on real packets (OVN 23.03, OVS 3.1 userspace datapath), against the
// probe semantics the simulator implements (docs/architecture.md, Verdict; sim/connection.ts
// retransmission): an affinity load balancer's learn flow drops the first SYN; a retransmission while
// conntrack holds the unanswered connection is DNATed by that entry and dropped again (measured with
// Linux's SYN schedule, 0/1/3/7/15/31/63 s: every one up to 31 s dropped, the one at 63 s delivered, once
// the entry had expired); once the entry is gone (a conntrack flush here: what its expiry does, the
// learned flow staying) it reaches the learned backend and the SYN-ACK gets back.
import { describe, expect, it } from 'vitest';
import { affinityTopology, toVip } from '../../sim/lb-affinity.fixture.ts';
import { compileNetwork } from '../../sim/compile/network.ts';
import { probeConnection, replyTo, retransmission } from '../../sim/connection.ts';
import { simulate } from '../../sim/simulate.ts';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { loadedChassis } from './chassis.fixture.ts';
import type { DatapathStep, SendPacket } from './oracle.ts';

const topology = affinityTopology({ affinity_timeout: '60' }, 'tcp');
const syn = toVip('c1', 41_000, 'tcp');
const ports = (s: DatapathStep) => s.outputs.map((o) => o.port).join(',');

describe.skipIf(!requireOvn('LB affinity retransmission on real packets'))('a retransmitted SYN', () => {
  const world = loadedChassis(topology, 'lb-affinity-retransmit');

  it('is dropped while conntrack holds the connection, and reaches the learned backend once it is gone', async () => {
    const { dp } = world();
    const again = (flushConntrack: boolean): SendPacket => ({ inport: 'c1', packet: syn, flushConntrack });
    const run = await dp.run({
      packets: [again(false), again(false), again(true)],
      next: (steps) => {
        const at = steps[2]?.outputs[0];
        if (steps.length !== 3 || at === undefined) return undefined;
        return { inport: at.port, packet: replyTo(at.packet)! };
      },
    });
    const real = run.steps.map((s) => (s.verdict === 'dropped' ? 'dropped' : ports(s)));
    const learned = real[2]!;
    expect(['b1', 'b2']).toContain(learned);
    expect(real).toEqual(['dropped', 'dropped', learned, 'c1']);

    // The simulator, its backend pick made the one OVS made: the same steps.
    const net = compileNetwork(topology);
    const probe = { inport: 'c1', packet: syn, select: () => (learned === 'b1' ? 0 : 1) };
    const first = simulate(net, probe);
    const soon = simulate(net, { ...probe, conntrack: first.conntrack });
    const later = retransmission(net, probe, first)!;
    const c = probeConnection(net, { ...probe, target: learned, conntrack: later.conntrack });
    expect([first.verdict, soon.verdict, later.result.outputs.map((o) => o.port).join(',')]).toEqual([
      'dropped',
      'dropped',
      learned,
    ]);
    expect(c.reply?.outputs.map((o) => o.port)).toEqual(['c1']);
  });
});

// Load-balancer affinity on real packets (OVN 23.03, OVS 3.1 userspace datapath): the simulator's model
// (sim/lb-affinity.test.ts) against what ovn-controller's learned flows do. The packet that learns is
// dropped, and so is its connection's next packet; later connections of the same client go to the
// learned backend; another client learns anew. And one fact of OVS 3.1's userspace conntrack: no ports in
// an SCTP key, so a second SCTP connection between the same addresses is the first one again.
import { describe, expect, it } from 'vitest';
import { plan, type Topology } from '../../model/topology/index.ts';
import { affinityTopology, toVip } from '../../sim/lb-affinity.fixture.ts';
import { compileNetwork } from '../../sim/compile/network.ts';
import type { ConntrackState } from '../../sim/conntrack/state.ts';
import { simulate } from '../../sim/simulate.ts';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { loadedChassis } from './chassis.fixture.ts';
import type { SendPacket } from './oracle.ts';

const topology = (): Topology => affinityTopology({ affinity_timeout: '60' });
const send = (from: 'c1' | 'c2', sport: number): SendPacket => ({ inport: from, packet: toVip(from, sport) });

describe.skipIf(!requireOvn('LB affinity on real packets'))('LB affinity: simulator and real packets', () => {
  const t = topology();
  const world = loadedChassis(t, 'lb-affinity-test');

  it('the same verdicts, packet by packet, and one backend per client after the first', async () => {
    const packets = [
      send('c1', 50_000),
      send('c1', 50_001),
      send('c1', 50_002),
      send('c1', 50_000),
      send('c2', 50_000),
    ];
    const { dp } = world();
    const run = await dp.run({ packets });
    expect(run.steps).toHaveLength(packets.length);
    const real = run.steps.map((s) => (s.verdict === 'dropped' ? 'dropped' : s.outputs.map((o) => o.port).join(',')));
    // The learning packet, its connection's next packet, and another client's first: dropped.
    const learned = real[1]!;
    expect(['b1', 'b2']).toContain(learned);
    expect(real).toEqual(['dropped', learned, learned, 'dropped', 'dropped']);

    // The simulator, the state threaded through, its first pick made the one OVS made.
    const net = compileNetwork(t);
    const pick = learned === 'b1' ? 0 : 1;
    let ct: ConntrackState | undefined;
    const sim = packets.map((p) => {
      const r = simulate(net, {
        inport: p.inport,
        packet: p.packet,
        select: () => pick,
        ...(ct ? { conntrack: ct } : {}),
      });
      ct = r.conntrack;
      return r.verdict === 'dropped' ? 'dropped' : r.outputs.map((o) => o.port).join(',');
    });
    expect(sim).toEqual(real);
  });

  it('a new run starts with no affinity learned: the first packet of each client learns (and is dropped) again', async () => {
    const run = await world().dp.run({ packets: [send('c1', 50_100), send('c1', 50_101)] });
    expect(run.steps.map((s) => s.verdict)).toEqual(['dropped', 'delivered']);
  });

  it('SCTP: OVS 3.1 userspace conntrack keys it without ports, so a new connection is the old one until a flush', async () => {
    const { be, dp } = world();
    const sctp = affinityTopology({ affinity_timeout: '60' }, 'sctp');
    await be.apply(plan(await be.read(), sctp), { label: 'lb-affinity-test' });
    await be.waitForNorthd({ timeoutMs: 60_000 });
    await dp.load(sctp);
    try {
      const to = (sport: number, flush = false): SendPacket => ({
        inport: 'c1',
        packet: toVip('c1', sport, 'sctp'),
        ...(flush ? { flushConntrack: true } : {}),
      });
      const run = await dp.run({ packets: [to(51_000), to(51_001), to(51_002, true)] });
      const real = run.steps.map((s) => (s.verdict === 'dropped' ? 'dropped' : s.outputs.map((o) => o.port).join(',')));
      // The second connection is the first again (already DNATed: the affinity stages drop it); after a
      // flush the next one goes to the learned backend. The kernel's conntrack, and the simulator, key
      // SCTP by ports: there the second would go to the learned backend already. The differential test
      // therefore flushes before a new SCTP connection (verify/difftest/datapath-side.ts freshConnection).
      expect(real[0]).toBe('dropped');
      expect(real[1]).toBe('dropped');
      expect(['b1', 'b2']).toContain(real[2]);
      const net = compileNetwork(sctp);
      const pick = real[2] === 'b1' ? 0 : 1;
      let ct: ConntrackState | undefined;
      const sim = [to(51_000), to(51_001), to(51_002, true)].map((p) => {
        const r = simulate(net, {
          inport: p.inport,
          packet: p.packet,
          select: () => pick,
          ...(ct ? { conntrack: p.flushConntrack ? ct.flushed() : ct } : {}),
        });
        ct = r.conntrack;
        return r.verdict === 'dropped' ? 'dropped' : r.outputs.map((o) => o.port).join(',');
      });
      expect(sim).toEqual(['dropped', real[2], real[2]]);
    } finally {
      await be.apply(plan(await be.read(), t), { label: 'lb-affinity-test' });
      await be.waitForNorthd({ timeoutMs: 60_000 });
      await dp.load(t);
    }
  });
});

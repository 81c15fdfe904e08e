// Load-balancer affinity (options:affinity_timeout), as OVN 23.03 does it: the packet that learns a
// client's backend is dropped (ls_in_lb_aff_learn has no `next`), and so is the rest of that connection
// while it is new; later new connections of that client go to the learned backend.
// verify/datapath/lb-affinity.test.ts shows the same with real packets.
import { describe, expect, it } from 'vitest';
import { parseIPv4 } from '../model/addr/index.ts';
import { TopoBuilder } from '../model/topology/index.ts';
import type { ConntrackState } from './conntrack/state.ts';
import { compileNetwork } from './compile/network.ts';
import { simulate } from './simulate.ts';
import { AFFINITY_GW, AFFINITY_MAC, affinityTopology, toVip } from './lb-affinity.fixture.ts';

const net = (options: Record<string, string>) => compileNetwork(affinityTopology(options));
const send = toVip;
const M = AFFINITY_MAC;
const GW = AFFINITY_GW;

describe('load-balancer affinity (affinity_timeout)', () => {
  it('drops the packet that learns, then sends every new connection of that client to the learned backend', () => {
    const n = net({ affinity_timeout: '60' });
    const first = simulate(n, { inport: 'c1', packet: send('c1', 30_000), select: () => 1 });
    expect(first.verdict).toBe('dropped');
    expect(first.drop).toMatchObject({ datapath: 'sw', stage: 'ls_in_lb_aff_learn' });
    expect(first.drop!.reason).toContain('commit_lb_aff(vip = "10.96.0.1:80", backend = "10.0.0.4:8080"');
    expect([...first.conntrack.affinity.values()]).toEqual([{ backend: '10.0.0.4:8080', timeout: 60 }]);

    // A later connection from c1, whatever the selector would pick, goes to the learned b2 (priority 150).
    let ct: ConntrackState = first.conntrack;
    for (const sport of [30_001, 30_002]) {
      const r = simulate(n, { inport: 'c1', packet: send('c1', sport), conntrack: ct, select: () => 0 });
      expect(r.outputs.map((o) => o.port)).toEqual(['b2']);
      expect(r.outputs[0]!.packet['ip4.dst']).toBe(parseIPv4('10.0.0.4'));
      expect(r.choices).toEqual([]);
      expect(r.stages.find((s) => s.stage === 'ls_in_lb')!.rule).toMatchObject({ priority: 150 });
      ct = r.conntrack;
    }
    // The dropped packet's connection was committed and DNATed: its next datagram (a retransmission) is
    // addressed to b2 by conntrack, misses the learned flow (on the VIP) and meets the learn flow again.
    const again = simulate(n, { inport: 'c1', packet: send('c1', 30_000), conntrack: ct });
    expect(again.verdict).toBe('dropped');
    expect(again.drop?.stage).toBe('ls_in_lb_aff_learn');
    // Affinity is per client: c2 has none yet.
    const other = simulate(n, { inport: 'c2', packet: send('c2', 30_000), conntrack: ct });
    expect(other.drop?.stage).toBe('ls_in_lb_aff_learn');
  });

  it('a learned backend that left the VIP learns nothing more: the connection is balanced and passes', () => {
    const learnt = simulate(net({ affinity_timeout: '60' }), { inport: 'c1', packet: send('c1', 1), select: () => 1 });
    const fewer = compileNetwork(
      new TopoBuilder()
        .switch('sw', ['lb'])
        .vif('c1', 'sw', M.c1, '10.0.0.2')
        .vif('b1', 'sw', M.b1, '10.0.0.3')
        .router('lr')
        .connect('lr', 'sw', GW, ['10.0.0.1/24'])
        .lb('lb', { '10.96.0.1:80': '10.0.0.3:8080' }, { protocol: 'udp', options: { affinity_timeout: '60' } })
        .build(),
    );
    const r = simulate(fewer, { inport: 'c1', packet: send('c1', 2), conntrack: learnt.conntrack });
    expect(r.outputs.map((o) => o.port)).toEqual(['b1']);
  });

  it('without affinity_timeout (or with 0 or text northd reads as 0) the first packet passes', () => {
    for (const options of [{}, { affinity_timeout: '0' }, { affinity_timeout: 'soon' }] as Record<string, string>[]) {
      const r = simulate(net(options), { inport: 'c1', packet: send('c1', 1) });
      expect(r.outputs.map((o) => o.port)).toEqual(['b1']);
      expect(r.conntrack.affinity.size).toBe(0);
    }
  });

  it('says so when a router load balancer asks for affinity, which the simulator does not model', () => {
    const t = new TopoBuilder()
      .switch('sw')
      .vif('c1', 'sw', M.c1, '10.0.0.2')
      .router('gw', { chassis: 'hv1' }, ['lb'])
      .connect('gw', 'sw', GW, ['10.0.0.1/24'])
      .lb('lb', { '10.96.0.1:80': '10.0.0.2:8080' }, { protocol: 'tcp', options: { affinity_timeout: '60' } })
      .build();
    expect(compileNetwork(t).issues).toContainEqual(
      expect.objectContaining({ code: 'sim-unsupported', path: ['loadBalancer', 'lb', 'options', 'affinity_timeout'] }),
    );
  });
});

// What the random cases do not generate, in the three worlds: QoS DSCP marking (from-lport and
// to-lport, kept across a router), ACLs with log and label (log on an allow-related and on a
// drop; the label rides on the committed connection, whose reply must still pass). Each case
// runs on the simulator, ovn-trace and real packets; the datapath pair compares the DSCP too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { udpPacket } from '../../model/packet/build.ts';
import type { Packet } from '../../model/packet/packet.ts';
import { TopoBuilder, type Topology } from '../../model/topology/index.ts';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import type { DiffCase } from './case.ts';
import { formatDiff } from './compare.ts';
import { evaluateThreeWay } from './three-way.ts';
import { createOvnWorld, type OvnWorld } from './world.ts';

const MAC = {
  pod0: '0a:58:0a:00:00:02',
  pod1: '0a:58:0a:00:00:03',
  pod2: '0a:58:0a:00:01:02',
  lr0ls0: '0a:00:00:00:00:01',
  lr0ls1: '0a:00:00:00:01:01',
};

function topology(): Topology {
  const t = new TopoBuilder()
    .switch('ls0')
    .vif('pod0', 'ls0', MAC.pod0, '10.0.0.2')
    .vif('pod1', 'ls0', MAC.pod1, '10.0.0.3')
    .switch('ls1')
    .vif('pod2', 'ls1', MAC.pod2, '10.0.1.2')
    .router('lr0')
    .connect('lr0', 'ls0', MAC.lr0ls0, ['10.0.0.1/24'])
    .connect('lr0', 'ls1', MAC.lr0ls1, ['10.0.1.1/24'])
    .qos('ls0', 'from-lport', 100, 'ip4 && udp.dst == 53', 10)
    .qos('ls1', 'to-lport', 100, 'ip4 && udp.dst == 5353', 46)
    .acl('ls1', 'to-lport', 1002, 'ip4 && udp.dst == 9', 'drop', { name: 'drop-9' })
    .acl('ls1', 'to-lport', 1001, 'ip4 && udp', 'allow-related', { name: 'udp-in', label: 7 })
    .acl('ls1', 'from-lport', 1001, 'ip4 && udp.dst == 7', 'drop', { name: 'no-echo' })
    .build();
  // Every ACL logs (the builder has no flag for it): logging must change no verdict.
  return { ...t, acl: new Map([...t.acl].map(([k, a]) => [k, { ...a, log: true }])) };
}

const udp = (to: 'pod1' | 'pod2', dport: number, sport: number): Packet =>
  udpPacket({
    ethSrc: MAC.pod0,
    ethDst: to === 'pod1' ? MAC.pod1 : MAC.lr0ls0,
    src: '10.0.0.2',
    dst: to === 'pod1' ? '10.0.0.3' : '10.0.1.2',
    sport,
    dport,
  });

const caseOf = (packet: Packet): DiffCase => ({
  topology: topology(),
  inport: 'pod0',
  datapath: 'ls0',
  packet,
  lbPick: 0,
});

describe.skipIf(!requireOvn('difftest coverage'))('QoS marking and ACL log/label in three worlds', () => {
  let world: OvnWorld;
  beforeAll(async () => {
    world = await createOvnWorld({ datapath: true });
  });
  afterAll(async () => {
    await world?.close();
  });

  async function judged(c: DiffCase) {
    const o = await evaluateThreeWay(world, c, 'both');
    const dp = o.datapath!;
    expect(dp.diff ? `step ${dp.diff.step}: ${formatDiff(dp.diff.diff)}` : '', 'simulator against the datapath').toBe(
      '',
    );
    expect(o.agree, JSON.stringify(o.trace?.diff ?? o.trace?.ovn)).toBe(true);
    return dp.datapath;
  }

  it('from-lport QoS marks DSCP 10 on the same switch', async () => {
    const [first] = await judged(caseOf(udp('pod1', 53, 40_001)));
    expect(first!.outputs.map((o) => [o.port, o.packet['ip.dscp']])).toEqual([['pod1', '10']]);
  });

  it('the mark survives the router; to-lport QoS on the far switch marks DSCP 46', async () => {
    const [a] = await judged(caseOf(udp('pod2', 53, 40_002)));
    expect(a!.outputs.map((o) => [o.port, o.packet['ip.dscp'], o.packet['ip.ttl']])).toEqual([['pod2', '10', '63']]);
    const [b] = await judged(caseOf(udp('pod2', 5353, 40_003)));
    expect(b!.outputs.map((o) => [o.port, o.packet['ip.dscp']])).toEqual([['pod2', '46']]);
  });

  it('a logged drop ACL drops; a logged, labelled allow-related lets the reply back', async () => {
    const [dropped] = await judged(caseOf(udp('pod2', 9, 40_004)));
    expect(dropped).toEqual({ verdict: 'dropped', outputs: [] });
    const steps = await judged(caseOf(udp('pod2', 8000, 40_005)));
    // First packet, pod2's reply (through conntrack with the label), the first packet again.
    expect(steps.map((s) => s.outputs.map((o) => o.port))).toEqual([['pod2'], ['pod0'], ['pod2']]);
  });
});

// MAC learning on real packets (OVN 23.03, OVS 3.1): pinctrl's put_fdb, the SB FDB table and
// ovn-controller's table 71 flows, against the simulator's model (sim/fdb.test.ts). The oracle
// waits for a learned MAC's flows before the next packet and starts each run without them.
import { describe, expect, it } from 'vitest';
import { FDB_EXPECTED, FDB_SEQUENCE, fdbTopology, toBehind } from '../../sim/fdb.fixture.ts';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { loadedChassis } from './chassis.fixture.ts';

const ports = (outputs: readonly { port: string }[]): string =>
  outputs
    .map((o) => o.port)
    .sort()
    .join(',');

describe.skipIf(!requireOvn('MAC learning on real packets'))('MAC learning: simulator and real packets', () => {
  const world = loadedChassis(fdbTopology(), 'fdb-test');

  it('floods until a learning port sends from the MAC, then unicasts to it (the sequence the simulator gives)', async () => {
    const { dp } = world();
    const run = await dp.run({ packets: FDB_SEQUENCE.map((s) => ({ inport: s.inport, packet: s.packet() })) });
    expect(run.steps.map((s) => ports(s.outputs))).toEqual(FDB_EXPECTED);
    expect([...(await dp.chassis.learnedMacs())]).toEqual(['0a:58:de:ad:be:ef']);
  });

  it('the next run starts without what the last one learned', async () => {
    const { dp } = world();
    const run = await dp.run({ packets: [{ inport: 'c', packet: toBehind() }] });
    expect(run.steps.map((s) => ports(s.outputs))).toEqual([FDB_EXPECTED[0]]);
    expect((await dp.chassis.learnedMacs()).size).toBe(0);
  });
});

// A gateway router port and a localnet switch added to a loaded topology: the first packet from the
// outside, sent right after the oracle's load, must be routed. hv_cfg alone can catch up before
// ovn-controller's claim of the chassisredirect port came back from the SB (OVN 23.03
// lport_is_chassis_resident reads Port_Binding.chassis), and the packet was then dropped: seen as
// difftest seed 20231103 case 101 (regressions/case-31a0e3774a31.json), and here 4 and 8 of 20 rounds
// before DatapathOracle.installed waited a second time. Rounds alternate without and with the gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { udpPacket } from '../../model/packet/build.ts';
import { plan, TopoBuilder, type Topology } from '../../model/topology/index.ts';
import { emptyTopology } from '../../model/topology/build.ts';
import { requireOvn, startControlPlane, type ControlPlane } from '../../backends/ovn/control-plane/index.ts';
import { OvnBackend } from '../../backends/ovn/nb/index.ts';
import { DatapathOracle, oneNetworkPerLocalnet } from './oracle.ts';

const ROUNDS = 25;
const EXT_MAC = '00:00:00:01:0f:01';

function topology(withGateway: boolean): Topology {
  const b = new TopoBuilder()
    .switch('ls1')
    .vif('vif1', 'ls1', '50:54:00:00:00:01', '10.0.0.2')
    .router('lr0')
    .connect('lr0', 'ls1', '00:00:00:01:01:01', ['10.0.0.1/24']);
  if (withGateway)
    b.switch('ext')
      .port({ name: 'ln', switch: 'ext', type: 'localnet', addresses: ['unknown'], options: { network_name: 'phys' } })
      .connect('lr0', 'ext', EXT_MAC, ['172.16.0.1/24'], { gatewayChassis: 'hv1' });
  return oneNetworkPerLocalnet(b.build());
}

describe.skipIf(!requireOvn('datapath oracle, gateway claim'))(
  'datapath oracle: a new gateway port is ready after load',
  () => {
    let cp: ControlPlane;
    let be: OvnBackend;
    let dp: DatapathOracle;
    let prev = emptyTopology();

    beforeAll(async () => {
      cp = await startControlPlane();
      be = await OvnBackend.connect({ remotes: cp.nb.remote });
      dp = await DatapathOracle.start({ controlPlane: cp });
    });
    afterAll(async () => {
      await dp?.stop();
      await be?.close();
      await cp?.stop();
    });

    async function load(t: Topology): Promise<void> {
      await be.apply(plan(prev, t), { label: 'gateway-claim-test' });
      await be.waitForNorthd({ timeoutMs: 60_000 });
      await dp.load(t);
      prev = t;
    }

    it(`routes the first outside packet through the localnet port to the pod in each of ${ROUNDS} rounds`, {
      timeout: 120_000,
    }, async () => {
      const verdicts: string[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        await load(topology(false));
        await load(topology(true));
        const p = udpPacket({
          ethSrc: '50:54:00:00:00:0a',
          ethDst: EXT_MAC,
          src: '203.0.113.7',
          dst: '10.0.0.2',
          ttl: 64,
          sport: 40_000 + r,
          dport: 80,
        });
        const run = await dp.run({ packets: [{ inport: 'ln', packet: p }] });
        verdicts.push(`${run.steps[0]?.verdict} ${run.steps[0]?.outputs.map((o) => o.port).join(',')}`);
      }
      expect(verdicts).toEqual(Array.from({ length: ROUNDS }, () => 'delivered vif1'));
    });
  },
);

/**
 * The NAT gateway in the lab: the gateway pod's namespace holds the rules
 * nat-gateway.sh installs (read back with iptables-save, the script's own
 * form), and real packets through them give every probe of
 * scenarios/vpc-nat-gateway.yaml the simulator's verdict (the lab world
 * test runs it too, among the shipped scenarios).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../scenarios/load.ts';
import { LabWorld } from '../../scenarios/lab/world.ts';
import { labAvailable, netnsOf } from '../../scenarios/lab/testing.ts';
import { runScenario, SimWorld } from '../../scenarios/run.ts';

const natOf = (ns: string) =>
  execFileSync('ip', ['netns', 'exec', ns, 'iptables-save', '-t', 'nat'], { encoding: 'utf8' });

describe.skipIf(!labAvailable('natgw lab'))('a VPC NAT gateway with real iptables', () => {
  it('installs nat-gateway.sh rules and answers as the simulator does', { timeout: 300_000 }, async () => {
    const s = { ...loadScenario('scenarios/vpc-nat-gateway.yaml'), steps: [] };
    const sim = await runScenario(s, { world: new SimWorld() });
    const world = await LabWorld.start();
    let rules = '';
    try {
      const lab = await runScenario(s, { world });
      expect(lab.results.filter((x) => !x.ok)).toEqual([]);
      expect(lab.results.map((x) => x.allowed)).toEqual(sim.results.map((x) => x.allowed));
      const gw = world.netns.find((ns) => natOf(ns).includes('SNAT_FILTER'));
      expect(gw).toBeDefined();
      rules = natOf(gw!);
    } finally {
      await world.close();
    }
    for (const line of [
      '-A PREROUTING -j DNAT_FILTER',
      '-A POSTROUTING -j SNAT_FILTER',
      '-A DNAT_FILTER -j EXCLUSIVE_DNAT',
      '-A DNAT_FILTER -j SHARED_DNAT',
      '-A SNAT_FILTER -j EXCLUSIVE_SNAT',
      '-A SNAT_FILTER -j SHARED_SNAT',
      '-A SNAT_FILTER -j HAIRPIN_SNAT',
      '-A EXCLUSIVE_DNAT -d 172.18.0.11/32 -j DNAT --to-destination 10.0.2.20',
      '-A EXCLUSIVE_SNAT -s 10.0.2.20/32 -j SNAT --to-source 172.18.0.11',
      '-A SHARED_SNAT -s 10.0.1.0/24 -o net1 -j SNAT --to-source 172.18.0.10',
      '-A SHARED_DNAT -d 172.18.0.12/32 -p tcp -m tcp --dport 8888 -j DNAT --to-destination 10.0.1.30:80',
    ])
      expect(rules.split('\n')).toContain(line);
    expect(netnsOf(world.runId)).toEqual([]);
  });
});

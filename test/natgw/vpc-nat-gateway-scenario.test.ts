/**
 * scenarios/vpc-nat-gateway.yaml cannot pass by accident: each object its
 * probes depend on, taken out, flips them on the simulator (the VpcNatGateway,
 * the IptablesSnatRule, the IptablesFIPRule, the IptablesDnatRule), and the
 * trace of a probe through the gateway says where OVN's part ends and the
 * appliance model's begins.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LoadedScenario, loadScenario } from '../../scenarios/load.ts';
import { runScenario, SimWorld } from '../../scenarios/run.ts';

const FILE = join(import.meta.dirname, '..', '..', 'scenarios', 'vpc-nat-gateway.yaml');

/** The scenario's first step, without the objects of `kind` (named `name`, or all of them). */
function without(s: LoadedScenario, kind: string, name?: string): LoadedScenario {
  const objects = s.objects.filter(
    (o) => o.kind !== kind || (name !== undefined && (o.object.metadata as { name: string }).name !== name),
  );
  return { ...s, objects, steps: [] };
}

async function verdicts(s: LoadedScenario): Promise<Map<string, boolean>> {
  // Without the gateway an EIP is nobody's: a probe to it is one between two outside hosts, denied.
  const r = await runScenario(s, { world: new SimWorld(), unresolvable: 'deny' });
  return new Map(r.results.map((x) => [`${x.from} ${x.to} ${x.protocol}/${x.port ?? ''}`, x.allowed]));
}

describe('scenarios/vpc-nat-gateway.yaml', () => {
  const s = loadScenario(FILE);

  it('as shipped: every probe as expected', async () => {
    const r = await runScenario(s, { world: new SimWorld() });
    expect(r.results.filter((x) => !x.ok)).toEqual([]);
    expect(r.warnings).toEqual([]);
  });

  it('without the VpcNatGateway nothing leaves the VPC and no EIP is reached', { timeout: 60_000 }, async () => {
    const v = await verdicts(without(s, 'VpcNatGateway'));
    expect(v.get('ns1/app 203.0.113.9 TCP/443')).toBe(false);
    expect(v.get('ns2/vm 203.0.113.9 TCP/443')).toBe(false);
    expect(v.get('203.0.113.9 172.18.0.11 TCP/22')).toBe(false);
    expect(v.get('203.0.113.9 172.18.0.12 TCP/8888')).toBe(false);
    expect(v.get('ns1/app ns2/db TCP/5432')).toBe(true);
  });

  it('without the IptablesSnatRule net1 leaves untranslated: the outside cannot answer', {
    timeout: 60_000,
  }, async () => {
    const v = await verdicts(without(s, 'IptablesSnatRule'));
    expect(v.get('ns1/app 203.0.113.9 TCP/443')).toBe(false);
    expect(v.get('ns1/app 203.0.113.9 ICMP/')).toBe(false);
    expect(v.get('ns2/vm 203.0.113.9 TCP/443')).toBe(true);
  });

  it('without the IptablesFIPRule vm is neither translated out nor reached on its EIP', {
    timeout: 60_000,
  }, async () => {
    const v = await verdicts(without(s, 'IptablesFIPRule'));
    expect(v.get('ns2/vm 203.0.113.9 TCP/443')).toBe(false);
    expect(v.get('203.0.113.9 172.18.0.11 TCP/22')).toBe(false);
    expect(v.get('ns1/app 203.0.113.9 TCP/443')).toBe(true);
  });

  it('without the IptablesDnatRule the EIP port is refused', { timeout: 60_000 }, async () => {
    const v = await verdicts(without(s, 'IptablesDnatRule'));
    expect(v.get('203.0.113.9 172.18.0.12 TCP/8888')).toBe(false);
    expect(v.get('203.0.113.9 172.18.0.11 TCP/22')).toBe(true);
  });

  it("a trace says where OVN's part ends and the appliance model takes over", { timeout: 60_000 }, async () => {
    const r = await runScenario({ ...s, steps: [] }, { world: new SimWorld(), traces: true });
    const out = r.results.find((x) => x.from === 'ns1/app' && x.to === '203.0.113.9' && x.protocol === 'TCP')!;
    const stages = out.trace!.stages;
    const handoff = stages.findIndex((x) => x.stage === 'handoff');
    expect(handoff).toBeGreaterThan(0);
    // OVN's stages first (the gateway pod's port is the last output), then the appliance's.
    expect(stages.slice(0, handoff).every((x) => !x.datapath.includes('appliance model'))).toBe(true);
    expect(stages.slice(handoff).every((x) => x.datapath === 'gw1 (NAT gateway pod, appliance model)')).toBe(true);
    expect(stages[handoff]!.note).toContain('vpc-nat-gw-gw1-0.kube-system');
    const snat = stages.find((x) => x.action === 'SNAT')!;
    expect(snat.rule?.match).toBe('-A SHARED_SNAT -s 10.0.1.0/24 -o net1 -j SNAT --to-source 172.18.0.10');
    expect(snat.changes).toEqual([{ field: 'ip4.src', from: '10.0.1.2', to: '172.18.0.10' }]);
    const inbound = r.results.find((x) => x.to === '172.18.0.12' && x.port === 8888)!;
    expect(inbound.trace!.stages[0]!.stage).toBe('handoff');
    expect(inbound.trace!.stages.find((x) => x.action === 'DNAT')?.changes).toEqual([
      { field: 'ip4.dst', from: '172.18.0.12', to: '10.0.1.30' },
      { field: 'tcp.dst', from: '8888', to: '80' },
    ]);
  });
});

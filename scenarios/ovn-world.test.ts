// How the ovn world reads a probe's verdict from ovn-trace, against the simulator's world: a packet
// that only made a router ask for its next hop is no delivery, and a TCP or SCTP probe whose first
// packet an OVN 23.03 affinity learn flow dropped is answered by its retransmission (docs/architecture.md,
// Verdict), on both worlds alike.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvn } from '../backends/ovn/control-plane/index.ts';
import { parseFlowLine, parseTrace, traceVerdict } from '../backends/ovn/trace/index.ts';
import { CASES } from '../backends/ovn/trace/trace-cases.ts';
import { assembleScenario, type LoadedScenario, readScenarioText } from './load.ts';
import { OvnWorld, traceAnswer } from './ovn-world.ts';
import { type ProbeResult, runScenario, SimWorld } from './run.ts';
import { sessionAffinityScenario } from './session-affinity.fixture.ts';
import { traceScenario } from './trace.ts';

const scenario = (name: string, text: string) => assembleScenario(readScenarioText(`${name}.yaml`, text), name);

/** A saved ovn-trace text read as the tracer reads it. */
function saved(name: string) {
  const c = CASES.find((x) => x.name === name)!;
  const text = readFileSync(new URL(`../backends/ovn/trace/fixtures/${name}.txt`, import.meta.url), 'utf8');
  const t = parseTrace(text);
  return { c, t, v: traceVerdict(t, { input: c.packet, traced: parseFlowLine(t.flow) }) };
}

describe('the ovn world reads a trace as the simulator reads a run', () => {
  it('an ARP request or neighbour solicitation for an unresolved next hop is not the packet arriving', () => {
    for (const [name, asked, what] of [
      ['arp-request-for-unknown-nexthop', '10.0.1.9', 'ARP request'],
      ['nd-ns-for-unknown-nexthop', 'fd01::9', 'neighbour solicitation'],
    ] as const) {
      const { c, t, v } = saved(name);
      // The request leaves by q1, the port a probe to the next hop's network would count.
      expect(v.outputs.map((o) => [o.outport, o.generatedBy])).toEqual([
        ['q1', name.startsWith('arp') ? 'arp' : 'nd_ns'],
      ]);
      const a = traceAnswer(
        { kind: 'packet', inport: c.inport, packet: c.packet, targets: ['q1'] },
        { ...v, stages: t.stages },
      );
      expect(a).toEqual({
        allowed: false,
        reason: `ovn-trace: dropped in lr0 lr_in_arp_request: next hop ${asked} unresolved (${what} sent)`,
      });
    }
  });

  it('the packet itself at a target is', () => {
    const { c, t, v } = saved('routed');
    const a = traceAnswer(
      { kind: 'packet', inport: c.inport, packet: c.packet, targets: [v.outputs[0]!.outport] },
      { ...v, stages: t.stages },
    );
    expect(a).toEqual({ allowed: true });
  });
});

// A centralized Subnet whose gateway node does not exist: no 29000 reroute, so its outbound traffic takes
// ovn-cluster's default route, whose next hop (the join subnet's gateway, the router's own address there)
// nothing answers; the router asks for it with an ARP request flooded to the join switch's node ports.
const UNRESOLVED = `
apiVersion: v1
kind: Node
metadata: { name: node-1 }
---
apiVersion: kubeovn.io/v1
kind: Subnet
metadata: { name: s }
spec: { cidrBlock: 10.89.0.0/24, namespaces: [sel], gatewayType: centralized, gatewayNode: node-9 }
---
apiVersion: v1
kind: Pod
metadata: { name: p, namespace: sel }
spec: { nodeName: node-1, containers: [{ name: c, image: curl }] }
---
apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: { name: unresolved-gateway }
spec:
  expect:
    - { from: sel/p, to: 8.8.8.8, protocol: UDP, port: 53, allowed: false }
    - { from: sel/p, to: 8.8.8.8, protocol: TCP, port: 443, allowed: false }
`;

const LEARN_DROP =
  /ls_in_lb_aff_learn: .*commit_lb_aff\(vip = "10\.96\.0\.10:\d+", backend = "10\.16\.0\.\d:\d+".*OVN 23\.03 drops the packet that learns an affinity/;

describe.skipIf(!requireOvn('the ovn world on real OVN'))('the ovn world and the simulator agree', () => {
  let world: OvnWorld;
  beforeAll(async () => {
    world = await OvnWorld.start();
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  const both = async (s: LoadedScenario) => {
    const sim = new SimWorld();
    const a = await runScenario(s, { world: sim }).finally(() => sim.close());
    const b = await runScenario(s, { world });
    return { sim: a.results, ovn: b.results };
  };
  const verdicts = (rs: readonly ProbeResult[]) => rs.map((r) => [r.to, r.protocol, r.port, r.allowed]);

  it('a probe whose packet only made a router ask for an unresolved next hop is denied on both', {
    timeout: 120_000,
  }, async () => {
    const { sim, ovn } = await both(scenario('unresolved-gateway', UNRESOLVED));
    expect(verdicts(ovn)).toEqual(verdicts(sim));
    expect(ovn.every((r) => r.ok && !r.allowed)).toBe(true);
    for (const r of sim)
      expect(r.reason).toBe(
        'dropped in ovn-cluster lr_in_arp_request: next hop 100.64.0.1 unresolved (arp-request sent)',
      );
    for (const r of ovn)
      expect(r.reason).toBe(
        'ovn-trace: dropped in ovn-cluster lr_in_arp_request: next hop 100.64.0.1 unresolved (ARP request sent)',
      );
  });

  it('sessionAffinity ClientIP: TCP and SCTP are allowed on their retransmission, with a note, on both', {
    timeout: 120_000,
  }, async () => {
    const { sim, ovn } = await both(sessionAffinityScenario());
    expect(verdicts(ovn)).toEqual(verdicts(sim));
    expect([...sim, ...ovn].every((r) => r.ok)).toBe(true);
    for (const r of [...sim, ...ovn].filter((x) => x.protocol !== 'UDP')) {
      const first = r.protocol === 'TCP' ? 'SYN' : 'INIT';
      expect(r.note).toMatch(new RegExp(`^delivered on its retransmission.*; the first ${first}: `));
      expect(r.note).toMatch(LEARN_DROP);
    }
    // ovn-trace keeps no state: the note says how the retransmission was traced.
    for (const r of ovn.filter((x) => x.protocol !== 'UDP'))
      expect(r.note).toMatch(
        /traced with reg9\[6\] == 1 && reg4 == 10\.16\.0\.\d && reg8\[0\.\.15\] == (8080|2905), which chk_lb_aff\(\) loads/,
      );
    for (const r of [...sim, ...ovn].filter((x) => x.protocol === 'UDP')) {
      expect(r.note).toBeUndefined();
      expect(r.reason).toMatch(LEARN_DROP);
    }
  });

  it("kovn trace shows the retransmission, with ovn-trace's text of it", { timeout: 120_000 }, async () => {
    const s = sessionAffinityScenario();
    const probe = s.expect[0]!;
    const t = await traceScenario(s, probe, { world });
    expect(t.verdict).toBe('dropped');
    expect(t.retransmission?.verdict).toBe('delivered');
    expect(t.retransmission?.stages.some((st) => st.stage === 'ls_in_lb' && st.rule?.priority === 150)).toBe(true);
    expect(t.reply?.verdict).toBe('delivered');
    expect(t.ovnTrace).toMatch(/ls_in_lb_aff_learn .*\n\s+commit_lb_aff/);
    expect(t.ovnRetransmission).toMatch(/ls_in_lb .*reg9\[6\] == 1 .*priority 150/);
  });
});

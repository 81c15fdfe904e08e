import { describe, expect, it } from 'vitest';
import { plan, validateTopology } from '../model/topology/index.ts';
import { compileNetwork, simulate } from '../sim/index.ts';
import { requireOvn } from '../backends/ovn/control-plane/index.ts';
import { generateProbes } from './sim-probes.ts';
import type { Disagreement } from './sim-ovn.ts';
import { runSimBench } from './sim.ts';
import { generateSimCluster } from './sim-topology.ts';

const TINY = { ports: 200, acls: 40, lbs: 20 } as const;

describe('bench sim topology', () => {
  const c = generateSimCluster({ ...TINY, seed: 3 });

  it('validates clean, with exactly the asked numbers of ports, ACLs and load balancers', () => {
    expect(validateTopology(c.topology)).toEqual([]);
    expect(c.counts).toMatchObject(TINY);
    const vifs = [...c.topology.switchPort.values()].filter((p) => p.type === '' && p.switch !== 'join');
    expect(vifs).toHaveLength(200);
    expect(c.topology.acl.size).toBe(40);
    expect(c.topology.loadBalancer.size).toBe(20);
    expect(compileNetwork(c.topology).issues).toEqual([]);
  });

  it('is laid out as Kube-OVN lays out a cluster', () => {
    const t = c.topology;
    expect(t.router.has('ovn-cluster')).toBe(true);
    expect(t.routerPort.get('ovn-cluster-join')?.networks).toEqual(['100.64.0.1/16']);
    expect(t.routerPort.get('ovn-cluster-ovn-default')?.networks).toEqual(['10.16.0.1/16']);
    for (const n of c.nodes) expect(t.switchPort.get(n.port)?.switch).toBe('join');
    for (const p of c.pods) {
      expect(p.port).toBe(`${p.name}.${p.namespace}`);
      expect(t.switchPort.get(p.port)?.addresses[0]).toMatch(/^[0-9a-f:]{17} 10\.\d+\.\d+\.\d+$/);
    }
    // Every pod switch carries every Service LB, VIPs in the service CIDR 10.96.0.0/12.
    for (const s of c.subnets) expect(t.switch.get(s.name)?.loadBalancers).toHaveLength(20);
    for (const lb of t.loadBalancer.values())
      for (const vip of Object.keys(lb.vips)) expect(vip).toMatch(/^10\.(9[6-9]|10\d|11[01])\./);
    // NetworkPolicy rows: port group <np>.<ns> with '-' → '.', the default drop at 2000, allows at 2001, node ACLs at
    // 3000.
    const pol = c.policies[0]!;
    expect(pol.portGroup).toBe(`${pol.name}.${pol.namespace}`.replace(/-/g, '.'));
    expect(t.addressSet.has(`${pol.portGroup}.ingress.allow.IPv4.0`)).toBe(true);
    expect(t.addressSet.has(`${pol.portGroup}.ingress.except.IPv4.0`)).toBe(true);
    const priorities = new Set([...t.acl.values()].map((a) => `${a.direction} ${a.priority} ${a.action}`));
    expect(priorities).toContain('to-lport 2000 drop');
    expect(priorities).toContain('to-lport 2001 allow-related');
    expect(priorities).toContain('to-lport 3000 allow-related');
  });

  it('is deterministic for a seed and differs across seeds', () => {
    expect(plan(c.topology, generateSimCluster({ ...TINY, seed: 3 }).topology)).toEqual([]);
    expect(plan(c.topology, generateSimCluster({ ...TINY, seed: 4 }).topology).length).toBeGreaterThan(0);
  });

  it('gives a probe mix of every kind, some delivered and some dropped', () => {
    const net = compileNetwork(c.topology);
    const probes = generateProbes(c, { count: 2000, seed: 3 });
    expect(new Set(probes.map((p) => p.kind))).toEqual(
      new Set(['same-switch', 'routed', 'vip', 'policy-allowed', 'policy-denied', 'node-to-pod']),
    );
    expect(new Set(probes.map((p) => p.proto))).toEqual(new Set(['tcp', 'udp', 'icmp']));
    const verdicts = new Set(
      probes.map((p) => simulate(net, { inport: p.inport, packet: p.packet, trace: false }).verdict),
    );
    expect(verdicts).toEqual(new Set(['delivered', 'dropped']));
  });
});

describe('bench sim', () => {
  it('reports finite positive figures in the shape of docs/architecture.md (with ovn-trace when OVN is installed)', async () => {
    const withOvn = requireOvn('bench sim');
    const disagreements: Disagreement[] = [];
    const report = await runSimBench(
      { ...TINY, probes: 2000, ovn: withOvn, ovnTraces: 10, ovnOneShots: 2 },
      { log: () => undefined, onDisagreement: (d) => disagreements.push(d) },
    );
    expect(report.name).toBe('sim');
    expect(report.params).toMatchObject({ ...TINY, probes: 2000, ovn: withOvn, counts: { ...TINY } });
    const keys = ['probes_per_s', 'compile_ms', 'delivered_share'];
    if (withOvn)
      keys.push(
        'ovn_load_ms',
        'ovn_daemon_start_ms',
        'ovn_trace_ms',
        'speedup_vs_ovn_trace',
        'sample_agree',
        'sample_total',
        'datapath_ms',
        'datapath_load_ms',
        'speedup_vs_datapath',
      );
    expect(Object.keys(report.metrics)).toEqual(expect.arrayContaining(keys));
    for (const [name, value] of Object.entries(report.metrics)) {
      expect(Number.isFinite(value), name).toBe(true);
      if (name !== 'sample_agree') expect(value, name).toBeGreaterThan(0);
    }
    expect(report.metrics.delivered_share).toBeLessThanOrEqual(1);
    if (withOvn) {
      const m = report.metrics;
      expect(m.sample_total).toBe(10);
      // Disagreements are reported, never fatal; the count is the rest of the sample.
      expect(m.sample_agree).toBe(10 - disagreements.length);
      expect(m.speedup_vs_ovn_trace).toBe(Math.round((m.ovn_trace_ms! * m.probes_per_s) / 1000));
    }
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });
});

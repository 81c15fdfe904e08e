// kovn trace: a probe of the quickstart stage by stage, in the state after a step, with its reply; on real
// OVN with ovn-trace's own text beside it; and the command's JSON.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { requireOvn } from '../backends/ovn/control-plane/index.ts';
import { loadScenario } from './load.ts';
import { OvnWorld } from './ovn-world.ts';
import { sessionAffinityScenario } from './session-affinity.fixture.ts';
import { TraceError, traceReportJSON, traceScenario } from './trace.ts';

const QUICKSTART = join(import.meta.dirname, 'quickstart.yaml');
const KOVN = join(import.meta.dirname, '..', 'cli', 'bin', 'kovn.js');
const debugToDb = { from: 'default/debug', to: 'data/db-0', protocol: 'TCP' as const, port: 5432, allowed: false };

/** A Subnet object with another gatewayNode (one that does not exist leaves the subnet without its reroute). */
function withGatewayNode<T extends { kind: string; object: unknown }>(o: T, node: string): T {
  const obj = o.object as { spec: Record<string, unknown> };
  return { ...o, object: { ...obj, spec: { ...obj.spec, gatewayNode: node } } };
}

describe('kovn trace on the simulator', () => {
  it('shows where the policy drops the first packet, and names the policy', async () => {
    const t = await traceScenario(loadScenario(QUICKSTART), debugToDb);
    expect(t.verdict).toBe('dropped');
    expect(t.reply).toBeUndefined();
    const last = t.stages.at(-1)!;
    expect(last).toMatchObject({ datapath: 'data', stage: 'ls_out_acl', action: 'drop' });
    expect(last.rule).toMatchObject({ kind: 'acl', name: 'data/db-from-web' });
    expect(t.reason).toContain('NetworkPolicy data/db-from-web');
    // The packet went through the router between the two subnets on its way.
    expect(t.stages.some((s) => s.datapath === 'ovn-cluster' && s.stage === 'lr_in_ip_routing')).toBe(true);
  });

  it('after step 1 (the policy deleted) the same probe is delivered and its reply comes back', async () => {
    const t = await traceScenario(loadScenario(QUICKSTART), debugToDb, { step: 1 });
    expect(t.verdict).toBe('delivered');
    expect(t.outport).toBe('db-0.data');
    expect(t.reply).toMatchObject({ verdict: 'delivered', outport: 'debug.default' });
    expect(t.reply!.stages[0]).toMatchObject({ datapath: 'data', pipeline: 'ingress', inport: 'db-0.data' });
  });

  it("shows egress leaving through the pod's own node (distributed) or the gateway node (centralized)", async () => {
    const s = loadScenario(join(import.meta.dirname, 'egress-gateway.yaml'));
    const out = (from: string) =>
      traceScenario(s, { from, to: '198.51.100.9', protocol: 'TCP', port: 443, allowed: true });
    // app runs on node-1 in the distributed ovn-default; collector runs on node-1 too, in edge, centralized on node-2.
    expect((await out('default/app')).outport).toBe('node-node-1');
    const c = await out('edge/collector');
    expect(c.outport).toBe('node-node-2');
    const policy = c.stages.find((x) => x.stage === 'lr_in_policy');
    expect(policy?.rule).toMatchObject({ kind: 'policy', priority: 29000 });
  });

  it('shows the retransmission of a SYN an affinity learn flow dropped, its note, and the reply to it', async () => {
    const s = sessionAffinityScenario();
    const t = await traceScenario(s, {
      from: 'default/client',
      to: 'svc/shop/web',
      protocol: 'TCP',
      port: 80,
      allowed: true,
    });
    expect(t.verdict).toBe('dropped');
    expect(t.stages.at(-1)).toMatchObject({ stage: 'ls_in_lb_aff_learn', action: 'drop' });
    expect(t.retransmission).toMatchObject({ verdict: 'delivered' });
    expect(t.retransmission!.stages.find((x) => x.stage === 'ls_in_lb')?.rule?.priority).toBe(150);
    expect(t.note).toMatch(
      /^delivered on its retransmission; the first SYN: dropped in ovn-default ls_in_lb_aff_learn/,
    );
    expect(t.reply).toMatchObject({ verdict: 'delivered', outport: 'client.default' });
    const j = traceReportJSON(t) as { retransmission?: { verdict: string }; note?: string };
    expect(j.retransmission?.verdict).toBe('delivered');
    expect(j.note).toBe(t.note);
  });

  it('a packet that only made a router ask for its next hop went nowhere: no outport', async () => {
    const s = loadScenario(join(import.meta.dirname, 'egress-gateway.yaml'));
    const t = await traceScenario(
      { ...s, objects: s.objects.map((o) => (o.kind === 'Subnet' ? withGatewayNode(o, 'node-9') : o)) },
      { from: 'edge/collector', to: '198.51.100.9', protocol: 'UDP', port: 514, allowed: false },
    );
    expect(t.verdict).toBe('dropped');
    expect(t.reason).toBe(
      'dropped in ovn-cluster lr_in_arp_request: next hop 100.64.0.1 unresolved (arp-request sent)',
    );
    expect(t.outport).toBeUndefined();
  });

  it('refuses a step the scenario does not have, and names a pod that does not exist', async () => {
    await expect(traceScenario(loadScenario(QUICKSTART), debugToDb, { step: 2 })).rejects.toThrow(TraceError);
    await expect(traceScenario(loadScenario(QUICKSTART), { ...debugToDb, to: 'data/db-1' })).rejects.toThrow(
      /no pod data\/db-1 \(did you mean data\/db-0/,
    );
  });

  it('prints the JSON of docs/architecture.md', { timeout: 60_000 }, async () => {
    const { stdout } = await promisify(execFile)('node', [
      KOVN,
      'trace',
      QUICKSTART,
      '--from',
      'default/debug',
      '--to',
      'data/db-0',
      '--protocol',
      'TCP',
      '--port',
      '5432',
      '--step',
      '1',
      '--json',
    ]);
    const j = JSON.parse(stdout) as { verdict: string; outport: string; stages: unknown[]; reply: { verdict: string } };
    expect(j.verdict).toBe('delivered');
    expect(j.outport).toBe('db-0.data');
    expect(j.stages.length).toBeGreaterThan(5);
    expect(j.reply.verdict).toBe('delivered');
  });
});

describe.skipIf(!requireOvn('kovn trace on real OVN'))('kovn trace on real OVN', () => {
  it("traces what the controller wrote to NB, with ovn-trace's own text of the first packet", {
    timeout: 120_000,
  }, async () => {
    const world = await OvnWorld.start();
    try {
      const t = await traceScenario(loadScenario(QUICKSTART), debugToDb, { world });
      expect(t.verdict).toBe('dropped');
      expect(t.reason).toContain('NetworkPolicy data/db-from-web');
      expect(t.ovnTrace).toMatch(/ls_out_acl/);
      expect(t.ovnTrace).toMatch(/drop;/);
    } finally {
      await world.close();
    }
  });
});

describe('kovn trace: egress', () => {
  it("names the node a probe to an outside host left by and whether that node's agent masquerades it", async () => {
    const s = loadScenario(join(import.meta.dirname, 'nat-outgoing-policy.yaml'));
    const fwd = await traceScenario(s, { from: 'edge/app', to: '192.0.2.9', protocol: 'ICMP', allowed: true });
    expect(fwd.verdict).toBe('delivered');
    expect(fwd.note).toMatch(
      /^left the cluster network at node-node-1 \(node node-1\), whose node agent does not masquerade 10\.97\.0\.2 → 192\.0\.2\.9 \(Subnet edge natOutgoingPolicyRules\[0\] \(forward\);/,
    );
    const nat = await traceScenario(s, { from: 'edge/batch', to: '192.0.2.7', protocol: 'ICMP', allowed: true });
    expect(nat.note).toMatch(
      /at node-node-2 .* masquerades 10\.97\.0\.200 → 192\.0\.2\.7 .*natOutgoingPolicyRules\[1\] \(nat\)/,
    );
    // Inside the cluster: no such note.
    const inside = await traceScenario(s, { from: 'edge/app', to: 'plain/p', protocol: 'ICMP', allowed: true });
    expect(inside.note).toBeUndefined();
  });
});

describe('kovn trace: external egress gateway', () => {
  it('names the gateway the node routes to, by the ip rule and table of the Subnet; without it, none', async () => {
    const s = loadScenario(join(import.meta.dirname, 'external-egress-gateway.yaml'));
    const probe = { from: 'legacy/app', to: '198.51.100.30', protocol: 'ICMP', allowed: true } as const;
    const t = await traceScenario(s, probe);
    expect(t.note).toMatch(
      /at node-node-1 .* does not masquerade 10\.110\.0\.2 → 198\.51\.100\.30 and routes it to the external egress gateway 192\.168\.0\.254 \(ip rule priority 1500, table 1000\)/,
    );
    const without = {
      ...s,
      objects: s.objects.map((o) => {
        const doc = o.object as { kind?: string; metadata?: { name?: string }; spec?: Record<string, unknown> };
        if (doc.kind !== 'Subnet' || doc.metadata?.name !== 'legacy') return o;
        const copy = structuredClone(doc);
        delete copy.spec?.externalEgressGateway;
        return { ...o, object: copy };
      }),
    };
    const u = await traceScenario(without, probe);
    expect(u.note).toMatch(/does not masquerade 10\.110\.0\.2 → 198\.51\.100\.30 \(Subnet legacy natOutgoing false;/);
  });
});

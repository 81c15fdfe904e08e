// kovn trace: a probe of the quickstart stage by stage, in the state after a step, with its reply; on real
// OVN with ovn-trace's own text beside it; and the command's JSON.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { requireOvn } from '../backends/ovn/control-plane/index.ts';
import { loadScenario } from './load.ts';
import { OvnWorld } from './ovn-world.ts';
import { TraceError, traceScenario } from './trace.ts';

const QUICKSTART = join(import.meta.dirname, 'quickstart.yaml');
const KOVN = join(import.meta.dirname, '..', 'cli', 'bin', 'kovn.js');
const debugToDb = { from: 'default/debug', to: 'data/db-0', protocol: 'TCP' as const, port: 5432, allowed: false };

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

// Rule port-sec-prefix-exact on real ovn-trace output (fixtures/: minimized difftest cases and
// variants, each a case and the text ovn-trace 23.03 printed for it, no --lb-dst: one backend).
// Where OVN is installed, each case is traced again: same path, same rule, and the case agrees
// (KOVN_UPDATE_TRACE_FIXTURES=1 rewrites the texts).
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatIPv4, formatMAC } from '../../model/addr/index.ts';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { parseTrace } from '../../backends/ovn/trace/index.ts';
import { caseFromJSON, type DiffCase, type DiffCaseJSON } from './case.ts';
import { compareObserved, observeSim } from './compare.ts';
import { flowsAtDrops, portSecDrops, portSecRule, widenPortSecurity } from './port-sec.ts';
import { evaluateCase } from './evaluate.ts';
import { simulateCase } from './simulate-case.ts';
import { createOvnWorld, type OvnWorld } from './world.ts';

const FIXTURES = [
  'port-sec-router-lb',
  'port-sec-router-lb-own-switch',
  'port-sec-outside-prefix',
  'port-sec-ingress-prefix',
];

const load = (name: string): { c: DiffCase; raw: string } => {
  const file = JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8')) as {
    case: DiffCaseJSON;
  };
  return { c: caseFromJSON(file.case), raw: readFileSync(new URL(`./fixtures/${name}.txt`, import.meta.url), 'utf8') };
};

/** The case with another port_security on one port. */
const withPortSecurity = (c: DiffCase, port: string, portSecurity: string[]): DiffCase => {
  const sp = new Map(c.topology.switchPort);
  sp.set(port, { ...sp.get(port)!, portSecurity });
  return { ...c, topology: { ...c.topology, switchPort: sp } };
};

const outPod0 = {
  rule: 'port-sec-prefix-exact',
  at: [{ datapath: 'ls0', stage: 'ls_out_apply_port_sec', port: 'pod0.ls0' }],
};

describe('port-sec-prefix-exact after a router load balancer (difftest seeds 3 and 5, minimized)', () => {
  it('seed 3: a one-backend router VIP sends the packet from ls1 to a subnet-secured pod', () => {
    const { c, raw } = load('port-sec-router-lb');
    expect(c.datapath).toBe('ls1');
    expect(portSecRule(c, { raw })).toEqual(outPod0);
  });

  it('seed 5: the packet comes back to its own switch through the router', () => {
    const { c, raw } = load('port-sec-router-lb-own-switch');
    expect(c.datapath).toBe('ls0');
    expect(portSecRule(c, { raw })).toEqual(outPod0);
  });

  it('checks the flow ovn-trace had at the drop: the backend, the pod MAC, routed', () => {
    const { c, raw } = load('port-sec-router-lb-own-switch');
    const trace = parseTrace(raw);
    const drops = portSecDrops(trace.root);
    expect(drops.map(({ datapath, stage, port }) => ({ datapath, stage, port }))).toEqual(outPod0.at);
    const flow = flowsAtDrops(trace, drops, { input: c.packet }).get(drops[0]!.line);
    expect(
      flow && [formatIPv4(flow['ip4.src']!), formatIPv4(flow['ip4.dst']!), formatMAC(flow['eth.dst']!), flow['ip.ttl']],
    ).toEqual(['10.16.0.11', '10.16.0.10', '0a:58:0a:00:00:10', 63]);
  });

  it('both cases now agree: the simulator delivers, passing that port security', () => {
    for (const name of ['port-sec-router-lb', 'port-sec-router-lb-own-switch']) {
      const { c, raw } = load(name);
      const ovn = { verdict: 'dropped' as const, outputs: [], partial: [portSecRule(c, { raw })!] };
      const sim = observeSim(simulateCase(c)[0]!.result);
      expect(sim.verdict, name).toBe('delivered');
      expect(compareObserved(sim, ovn), name).toBeUndefined();
    }
  });
});

describe('port-sec-prefix-exact stays narrow', () => {
  it('not where ovn-controller drops too: the backend outside the prefix (real trace)', () => {
    const { c, raw } = load('port-sec-outside-prefix');
    expect(portSecDrops(parseTrace(raw).root)).toHaveLength(1);
    expect(portSecRule(c, { raw })).toBeUndefined();
    // So a simulator that delivered would disagree.
    const delivered = observeSim(
      simulateCase(withPortSecurity(c, 'pod0.ls0', ['0a:58:0a:00:00:10 10.16.0.0/24']))[0]!.result,
    );
    expect(delivered.verdict).toBe('delivered');
    expect(compareObserved(delivered, { verdict: 'dropped', outputs: [] })).toBeDefined();
  });

  it('not where ovn-trace compares exactly as ovn-controller does: an exact entry, another MAC, no IP', () => {
    const { c, raw } = load('port-sec-router-lb-own-switch');
    for (const ps of [
      ['0a:58:0a:00:00:10 10.16.0.9'],
      ['0a:58:0a:00:00:99 10.16.0.0/24'],
      ['0a:58:0a:00:00:10 10.16.0.1/24'],
    ]) {
      expect(portSecRule(withPortSecurity(c, 'pod0.ls0', ps), { raw }), ps[0]).toBeUndefined();
    }
  });

  it('not on a drop whose bit no port security check set (a disabled port sets it unconditionally)', () => {
    const { c, raw } = load('port-sec-router-lb-own-switch');
    const disabled = raw.replace(
      /(egress\(dp="ls0", inport="ls0-lr0", outport="pod0\.ls0"\)[\s\S]*?)reg0\[15\] = check_out_port_sec\(\);/,
      '$1reg0[15] = 1;',
    );
    expect(disabled).not.toBe(raw);
    expect(portSecDrops(parseTrace(disabled).root)).toEqual([]);
    expect(portSecRule(c, { raw: disabled })).toBeUndefined();
  });
});

describe('port-sec-prefix-exact on ingress', () => {
  it('a subnet-secured pod sending from another address of its subnet', () => {
    const { c, raw } = load('port-sec-ingress-prefix');
    expect(portSecRule(c, { raw })).toEqual({
      rule: 'port-sec-prefix-exact',
      at: [{ datapath: 'ls0', stage: 'ls_in_apply_port_sec', port: 'pod0.ls0' }],
    });
    expect(portSecRule(withPortSecurity(c, 'pod0.ls0', ['0a:58:0a:00:00:10 10.16.1.0/24']), { raw })).toBeUndefined();
  });
});

describe('widenPortSecurity: the misjudged address listed exactly in the entry ovn-trace checks', () => {
  it("adds the routed, load-balanced destination to pod0.ls0's entry (seed 5 case)", () => {
    const { c, raw } = load('port-sec-router-lb-own-switch');
    const w = widenPortSecurity(c, { raw });
    expect(w?.entries).toEqual([
      {
        port: 'pod0.ls0',
        stage: 'ls_out_apply_port_sec',
        entry: '0a:58:0a:00:00:10 10.16.0.0/24',
        widened: '0a:58:0a:00:00:10 10.16.0.0/24 10.16.0.10',
      },
    ]);
    expect(w?.case.topology.switchPort.get('pod0.ls0')?.portSecurity).toEqual([
      '0a:58:0a:00:00:10 10.16.0.0/24 10.16.0.10',
    ]);
    // The given case is left as it was, and the simulator sees no difference (ovn-controller admits the same packets).
    expect(c.topology.switchPort.get('pod0.ls0')?.portSecurity).toEqual(['0a:58:0a:00:00:10 10.16.0.0/24']);
    const obs = (x: DiffCase) => simulateCase(x).map((r) => observeSim(r.result));
    expect(obs(w!.case).map(({ verdict, outputs }) => ({ verdict, outputs }))).toEqual(
      obs(c).map(({ verdict, outputs }) => ({ verdict, outputs })),
    );
  });

  it('adds the source of an ingress drop', () => {
    const { c, raw } = load('port-sec-ingress-prefix');
    expect(widenPortSecurity(c, { raw })?.entries.map((e) => [e.stage, e.widened])).toEqual([
      ['ls_in_apply_port_sec', '0a:58:0a:00:00:10 10.16.0.0/24 10.16.0.77'],
    ]);
  });

  it('nothing where the rule does not apply (the backend outside the prefix: OVN drops too)', () => {
    const { c, raw } = load('port-sec-outside-prefix');
    expect(widenPortSecurity(c, { raw })).toBeUndefined();
  });
});

describe.skipIf(!requireOvn('port-sec fixtures'))('port-sec fixtures against real OVN 23.03', () => {
  let world: OvnWorld;
  beforeAll(async () => {
    world = await createOvnWorld();
  });
  afterAll(async () => {
    await world?.close();
  });
  /** The flows taken, without the uuids a new NB gives them. */
  const path = (raw: string) =>
    parseTrace(raw).stages.map((st) => `${st.datapath} ${st.stage ?? st.table} ${st.match ?? ''}`);

  for (const name of FIXTURES) {
    it(name, async () => {
      const { c, raw } = load(name);
      await world.load(c.topology);
      const r = await world.trace({ datapath: c.datapath, inport: c.inport, packet: c.packet });
      if (process.env.KOVN_UPDATE_TRACE_FIXTURES === '1')
        writeFileSync(new URL(`./fixtures/${name}.txt`, import.meta.url), r.raw);
      expect(r.verdict).toBe('dropped');
      expect(path(r.raw)).toEqual(path(raw));
      expect(portSecRule(c, r)).toEqual(portSecRule(c, { raw }));
      const o = await evaluateCase(world, c);
      expect(o.diff === undefined ? '' : JSON.stringify(o.diff)).toBe('');
      // Where the rule applies, OVN is traced again on the widened case and compared in full.
      const rules = 'error' in o.ovn ? [] : (o.ovn.partial ?? []).map((p) => p.rule);
      const applies = portSecRule(c, r) !== undefined;
      expect(rules).toEqual(applies ? ['port-sec-widened'] : []);
      expect('error' in o.ovn ? 'error' : o.ovn.verdict).toBe(applies ? 'delivered' : 'dropped');
    });
  }
});

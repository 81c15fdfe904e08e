// runDifftest against fake OVN worlds (no OVN needed): one that answers as the simulator does,
// one that "drops every ICMP packet"; the runner must count, minimize and record accordingly.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Topology } from '../../model/topology/index.ts';
import { compileNetwork } from '../../sim/compile/network.ts';
import type { Choice } from '../../sim/pipeline/run.ts';
import { simulate } from '../../sim/simulate.ts';
import { fcSeed } from '../../test/fc.ts';
import type { OvnTraceRequest, OvnTraceResult } from '../../backends/ovn/trace/index.ts';
import { readFileSync } from 'node:fs';
import { caseFromJSON } from './case.ts';
import { checkRegression, readRegressions } from './regressions.ts';
import { runDifftest } from './run.ts';
import type { OvnWorld } from './world.ts';

/** Any real ovn-trace text (the fake's verdicts do not come from it; the quirk detectors read it). */
const RAW = readFileSync(new URL('../../backends/ovn/trace/fixtures/l2-same-switch.txt', import.meta.url), 'utf8');

/** A fake OVN: the simulator's own verdict, the LB backend as asked, optionally altered. */
function fakeWorld(
  alter: (req: OvnTraceRequest, r: OvnTraceResult) => OvnTraceResult = (_q, r) => r,
): OvnWorld & { loads: number } {
  let topology: Topology | undefined;
  const world = {
    loads: 0,
    async load(t: Topology) {
      topology = t;
      world.loads++;
    },
    async trace(req: OvnTraceRequest): Promise<OvnTraceResult> {
      const net = compileNetwork(topology!);
      const select = (ch: Choice) => {
        if (ch.kind !== 'lb-backend') return 0;
        const vip = [...net.switches.values(), ...net.routers.values()]
          .flatMap((d) => [...d.vips.values()].flat())
          .find((v) => `${v.lb.name}|${v.vipText}` === ch.key);
        return Math.max(0, vip?.backends.findIndex((b) => b.text === req.lbBackend) ?? 0);
      };
      const r = simulate(net, { inport: req.inport, packet: req.packet, select });
      const outputs = r.outputs.map((o) => ({
        outport: o.port,
        type: '',
        datapath: o.datapath,
        packet: o.packet,
        line: 0,
      }));
      const result: OvnTraceResult = {
        verdict: r.verdict,
        outputs,
        stages: [],
        raw: RAW,
        microflow: '',
        caveats: [],
        quirks: [],
        ends: [],
        selects: [],
        via: 'daemon',
      };
      return alter(req, result);
    },
    async close() {},
  };
  return world;
}

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('runDifftest (fake OVN worlds)', () => {
  it('counts every case as agreeing when OVN answers as the simulator, loading each topology once', async () => {
    const world = fakeWorld();
    const r = await runDifftest({ cases: 40, seed: fcSeed(), world, regressionsDir: null });
    expect(r).toMatchObject({ cases: 40, agree: 40, disagreements: [] });
    expect(world.loads).toBe(40);
  });

  it('reports, minimizes and records a disagreement (OVN that drops ICMP)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kovn-difftest-'));
    dirs.push(dir);
    const dropIcmp = fakeWorld((req, r) =>
      req.packet['icmp4.type'] !== undefined || req.packet['icmp6.type'] !== undefined
        ? { ...r, verdict: 'dropped', outputs: [] }
        : r,
    );
    const r = await runDifftest({
      cases: 60,
      seed: fcSeed(),
      world: dropIcmp,
      regressionsDir: dir,
      shrinkTimeMs: 20_000,
    });
    expect(r.disagreements.length).toBeGreaterThan(0);
    expect(r.agree + r.disagreements.length).toBe(60);
    const d = r.disagreements[0]!;
    expect(d.seed).toBe(fcSeed());
    expect(d.diff?.verdict).toEqual({ sim: 'delivered', ovn: 'dropped' });
    // Shrinking keeps the failure and makes the case no bigger.
    const input = caseFromJSON(d.input);
    const small = caseFromJSON(d.minimized!.case);
    expect(small.packet['icmp4.type'] ?? small.packet['icmp6.type']).toBeDefined();
    expect(small.topology.switchPort.size).toBeLessThanOrEqual(input.topology.switchPort.size);
    expect(d.minimized!.diff?.verdict).toEqual({ sim: 'delivered', ovn: 'dropped' });
    // The regression file holds OVN's (here: the fake's) verdict, and the simulator still differs from it.
    const files = await readRegressions(dir);
    expect(files.map((f) => f.path)).toContain(d.regression);
    const file = files.find((f) => f.path === d.regression)!.file;
    expect(file.expected.verdict).toBe('dropped');
    expect(checkRegression(file)?.verdict).toEqual({ sim: 'delivered', ovn: 'dropped' });
  });

  it('a case whose evaluation throws is reported as a failure naming the error, and the run goes on', async () => {
    let loads = 0;
    const world: OvnWorld = {
      load: async () => {
        loads++;
      },
      trace: async () => {
        throw new RangeError('Maximum call stack size exceeded');
      },
      close: async () => {},
    };
    const r = await runDifftest({ cases: 3, seed: fcSeed(), world, minimize: false, regressionsDir: null });
    expect(loads).toBe(3);
    expect(r.cases).toBe(3);
    expect(r.agree).toBe(0);
    expect(r.disagreements.map((d) => d.ovn)).toEqual(
      Array.from({ length: 3 }, () => ({
        error: { code: 'exception', message: 'RangeError: Maximum call stack size exceeded' },
      })),
    );
  });
});

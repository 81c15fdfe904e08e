// ECMP members matched one to one: the members ovn-trace shows it took, read from its
// lr_in_*_ecmp flows, select the simulator runs compared with it; on real OVN each
// --select-id maps to exactly one run of a two-member case, a different one per id.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import type { OvnTraceStage } from '../../backends/ovn/trace/index.ts';
import { caseFromJSON } from './case.ts';
import { ecmpMembersOf, ecmpMembersTaken, runsTakingMembers } from './ecmp.ts';
import { REGRESSIONS_DIR } from './regressions.ts';
import { type SimRun, simulateCase } from './simulate-case.ts';
import { createOvnWorld, type OvnWorld } from './world.ts';

const stage = (datapath: string, name: string, match: string, actions: string): OvnTraceStage => ({
  datapath,
  pipeline: 'ingress',
  table: 0,
  stage: name,
  match,
  actions: [actions],
  depth: 0,
  line: 0,
});

// As ovn-trace 23.03 prints them (seen in the traces of the regression cases below).
const passThrough = stage('lr0', 'lr_in_ip_routing_ecmp', 'reg8[0..15] == 0', 'next;');
const policyMember = stage(
  'lr0',
  'lr_in_policy_ecmp',
  'reg8[0..15] == 1 && reg8[16..31] == 2',
  'reg0 = 172.20.0.254; reg1 = 172.20.0.1; eth.src = 0a:00:00:00:ff:01; outport = "lr0-ext"; flags.loopback = 1; next;',
);
const routeMember6 = stage(
  'lr1',
  'lr_in_ip_routing_ecmp',
  'reg8[0..15] == 3 && reg8[16..31] == 1',
  'xxreg0 = fd00:0:0:0::a; xxreg1 = fd00::1; eth.src = 0a:00:00:00:00:02; outport = "lr1-ls"; next;',
);

const run = (...via: string[]): SimRun =>
  ({
    result: { choices: via.map((v, index) => ({ kind: 'ecmp-route', key: 'k', index, via: v })) },
    ecmp: [],
    members: [],
  }) as unknown as SimRun;

describe('ECMP members between ovn-trace and the simulator', () => {
  it('reads the members a trace took, next hops in the simulator’s form, and skips the pass-through', () => {
    expect(ecmpMembersTaken([passThrough, policyMember, routeMember6])).toEqual([
      'lr0|172.20.0.254|lr0-ext',
      'lr1|fd00::a|lr1-ls',
    ]);
    expect(ecmpMembersTaken([passThrough])).toEqual([]);
  });

  it('keeps only the runs that took the same member at a router both reached', () => {
    const a = run('lr0|172.20.0.254|lr0-ext');
    const b = run('lr0|10.17.0.10|lr0-ls1');
    const none = run();
    expect(runsTakingMembers([a, b], ['lr0|10.17.0.10|lr0-ls1'])).toEqual([b]);
    expect(runsTakingMembers([a, b], ['lr0|192.0.2.1|lr0-x'])).toEqual([]);
    // The trace took none: every run is compared.
    expect(runsTakingMembers([a, b], [])).toEqual([a, b]);
    // A loop met more often by the trace names the same member; a router the run never reached says nothing.
    expect(runsTakingMembers([a, b], ['lr0|172.20.0.254|lr0-ext', 'lr0|172.20.0.254|lr0-ext'])).toEqual([a]);
    expect(runsTakingMembers([none, a], ['lr9|10.0.0.1|lr9-a'])).toEqual([none, a]);
  });
});

describe.skipIf(!requireOvn('ECMP member matching'))('ECMP members on real OVN', () => {
  let world: OvnWorld;
  beforeAll(async () => {
    world = await createOvnWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  // A default route with two next hops (seed 21's ECMP case) and a reroute policy with two (the loop case).
  for (const name of ['case-7adb04edbd02.json', 'case-5212ca941e0f.json']) {
    it(`${name}: each --select-id matches exactly one simulator run, a different one per id`, async () => {
      const c = caseFromJSON(JSON.parse(readFileSync(`${REGRESSIONS_DIR}${name}`, 'utf8')).case);
      await world.load(c.topology);
      const runs = simulateCase(c);
      expect(runs.map((r) => ecmpMembersOf(r).length > 0)).toEqual([true, true]);
      const picked: number[] = [];
      for (const selectId of [1, 2]) {
        const traced = await world.trace({
          datapath: c.datapath,
          inport: c.inport,
          packet: c.packet,
          ct: 'new',
          selectId,
        });
        const taken = ecmpMembersTaken(traced.stages);
        expect(taken.length).toBeGreaterThan(0);
        const pool = runsTakingMembers(runs, taken);
        expect(pool).toHaveLength(1);
        picked.push(runs.indexOf(pool[0]!));
      }
      expect(new Set(picked).size).toBe(2);
    });
  }
});

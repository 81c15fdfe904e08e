// Simulator details a regression case's verdict alone does not pin down (the verdicts are checked in
// regressions.test.ts): here, where the packet is dropped, as OVN's own pipeline drops it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatResult } from '../../sim/result.ts';
import { caseFromJSON } from './case.ts';
import type { RegressionFile } from './regressions.ts';
import { simulateCase } from './simulate-case.ts';

const regression = (name: string): RegressionFile =>
  JSON.parse(readFileSync(new URL(`./regressions/${name}.json`, import.meta.url), 'utf8')) as RegressionFile;

describe('SNAT traffic back on a distributed gateway port (regression case-865302f12a13)', () => {
  const c = caseFromJSON(regression('case-865302f12a13').case);
  const [run] = simulateCase(c);

  it('skips all of lr_in_ip_input by the priority-120 SNAT-source flow, TTL check included', () => {
    const text = formatResult(run!.result);
    expect(text).toMatch(
      /lr_in_ip_input +nat \(inport == gateway port && ip\.src == external_ip\), priority 120: next/,
    );
    expect(text).not.toContain('TTL expired');
  });

  it('drops at lr_in_ip_routing: ip.ttl-- (OVS dec_ttl) on TTL 1 forwards nothing', () => {
    expect(run!.result.verdict).toBe('dropped');
    expect(run!.result.drops.map((d) => [d.datapath, d.stage, d.reason])).toEqual([
      ['lr0', 'lr_in_ip_routing', 'TTL 0 or 1 at ip.ttl-- (OVS dec_ttl forwards nothing)'],
    ]);
  });

  it('with one more hop of TTL the same packet reaches pod0.ls0 through the DNAT, SNATed', () => {
    const more = { ...c, packet: { ...c.packet, 'ip.ttl': 3 } };
    const r = simulateCase(more)[0]!.result;
    expect(r.outputs.map((o) => [o.port, o.packet['ip.ttl']])).toEqual([['pod0.ls0', 1]]);
  });
});

import { describe, expect, it } from 'vitest';
import { DEMO_PROBES, demoTopology, runDemo } from './demo.ts';

describe('demo scenario', () => {
  it('builds a valid Kube-OVN-shaped topology', () => {
    const t = demoTopology();
    expect([...t.switch.keys()].sort()).toEqual(['join', 'ovn-default', 'prod']);
    expect(t.switchPort.get('db-0.prod')?.addresses[0]).toMatch(/^([0-9a-f]{2}:){5}[0-9a-f]{2} 10\.17\.0\.2$/);
    expect(t.switchPort.get('web-0.default')?.addresses[0]).toMatch(/ 10\.16\.0\.2$/);
    expect(t.switchPort.get('web-1.default')?.addresses[0]).toMatch(/ 10\.16\.0\.3$/);
    expect(t.portGroup.get('db.prod')?.ports).toEqual(['db-0.prod']);
  });

  it('gives every probe its expected verdict on the simulator', () => {
    const results = runDemo();
    expect(results.map((r) => [r.from, r.to, r.protocol, r.port, r.allowed])).toEqual(
      DEMO_PROBES.map((p) => [p.from, p.to, p.protocol, p.port, p.expected]),
    );
    const denied = results.find((r) => r.port === 22)!;
    expect(denied.reason).toMatch(/ls_out_acl|acl/);
  });
});

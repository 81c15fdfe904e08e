import { describe, expect, it } from 'vitest';
import { IPAM, seededRandomBytes, toRecord } from '../../model/ipam/index.ts';
import { rebuildAllocations } from './rebuild.ts';

function ipam(): IPAM {
  const i = new IPAM({ random: seededRandomBytes(1) });
  const r = i.setSubnet({ name: 'ovn-default', cidrBlock: '10.16.0.0/16' });
  expect(r.ok).toBe(true);
  return i;
}

describe('rebuildAllocations', () => {
  it("two pods, one address: the IP object's owner keeps it, the other is reported naming both", () => {
    const r = rebuildAllocations({
      ipObjects: [{ owner: 'b.default', subnet: 'ovn-default', ips: ['10.16.0.5'], mac: '0a:58:0a:10:00:05' }],
      annotations: [
        { owner: 'a.default', subnet: 'ovn-default', ips: ['10.16.0.5'], mac: '0a:58:0a:10:00:aa' },
        { owner: 'b.default', subnet: 'ovn-default', ips: ['10.16.0.5'], mac: '0a:58:0a:10:00:05' },
      ],
      ports: [],
    });
    expect(r.records.map((x) => x.owner)).toEqual(['b.default', 'a.default']);
    const i = ipam();
    const issues = i.restore(r.records);
    expect(issues.map((x) => x.code)).toEqual(['duplicate-ip']);
    expect(issues[0]?.message).toMatch(/a\.default/);
    expect(issues[0]?.message).toMatch(/b\.default/);
    expect(i.snapshot().map((x) => [x.owner, x.ips])).toEqual([['b.default', ['10.16.0.5']]]);
  });

  it('reports every owner whose sources disagree, and takes IP object > annotation > NB port', () => {
    const r = rebuildAllocations({
      ipObjects: [{ owner: 'p.default', subnet: 'ovn-default', ips: ['10.16.0.7'] }],
      annotations: [
        { owner: 'p.default', subnet: 'ovn-default', ips: ['10.16.0.8'] },
        { owner: 'q.default', subnet: 'ovn-default', ips: ['10.16.0.9'], mac: '0a:58:0a:10:00:09' },
      ],
      ports: [
        { owner: 'q.default', subnet: 'ovn-default', ips: ['10.16.0.9'], mac: '0a:58:0a:10:00:09' },
        { owner: 'orphan.default', subnet: 'ovn-default', ips: ['10.16.0.10'] },
      ],
    });
    expect(Object.fromEntries(r.sources)).toEqual({
      'p.default': 'ip-object',
      'q.default': 'annotation',
      'orphan.default': 'nb-port',
    });
    expect(r.disagreements.map((d) => [d.owner, d.chosen, Object.keys(d.claims)])).toEqual([
      ['p.default', 'ip-object', ['ip-object', 'annotation']],
    ]);
    const i = ipam();
    expect(i.restore(r.records)).toEqual([]);
    // Nothing in use is handed out again: the next dynamic address skips all three.
    const next = i.allocate({ owner: 'new.default', subnet: 'ovn-default' });
    if (!next.ok) throw next.error;
    expect(['10.16.0.7', '10.16.0.9', '10.16.0.10']).not.toContain(toRecord(next.lease).ips[0]);
    expect(toRecord(next.lease).ips).toEqual(['10.16.0.2']);
    for (const ip of ['10.16.0.7', '10.16.0.9', '10.16.0.10']) {
      const taken = i.allocate({ owner: 'thief.default', subnet: 'ovn-default', ips: ip });
      expect(taken.ok, ip).toBe(false);
    }
  });
});

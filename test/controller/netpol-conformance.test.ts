/**
 * The translations against the NetworkPolicy conformance suite on the
 * simulator: every probe of every step (test/netpol-suite.ts builds the
 * network). Steps apply and delete objects and rebuild the network.
 */
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileNetwork } from '../../sim/index.ts';
import { DIR, documents, files, load, type Obj, objectKey, probe, topologyOf } from '../netpol-suite.ts';

describe('translations on the NetworkPolicy conformance suite (every step, every probe)', () => {
  it('finds the suite in place', () => {
    expect(statSync(DIR).isDirectory()).toBe(true);
    expect(files().length).toBeGreaterThanOrEqual(100);
  });

  it('gives every probe the expected verdict', () => {
    let probes = 0;
    let external = 0;
    const wrong: string[] = [];
    for (const file of files()) {
      const { objects, scenario } = documents(file);
      const steps: Obj[] = [{ expect: scenario.spec.expect ?? [] }, ...(scenario.spec.steps ?? [])];
      for (const [stepIndex, step] of steps.entries()) {
        for (const d of step.apply ?? []) objects.set(objectKey(d), d);
        for (const ref of step.delete ?? []) objects.delete(`${ref.kind}/${ref.namespace ?? ''}/${ref.name}`);
        const all = load(file, objects, scenario);
        const { topology, issues } = topologyOf(all);
        expect(issues, file).toEqual([]);
        const net = compileNetwork(topology);
        const byName = new Map(all.pods.map((p) => [`${p.ns}/${p.name}`, p]));
        for (const e of step.expect ?? []) {
          probes++;
          const r = probe(net, all, byName, e, probes);
          if (r === 'outside-to-outside') {
            external++;
            continue;
          }
          if (r.allowed !== e.allowed)
            wrong.push(
              `${file.split('/').slice(-2).join('/')} step ${stepIndex}: ${e.from} → ${e.to} ${e.protocol}/${e.port}: want ${e.allowed}, ${r.reason ?? 'allowed'}`,
            );
        }
      }
    }
    console.log(`netpol translation: ${probes - wrong.length}/${probes} probes agree (every step)`);
    expect(wrong.length, wrong.slice(0, 10).join('\n')).toBe(0);
    // No probe between two outside hosts in the suite; every probe was run.
    expect(external).toBe(0);
    expect(probes).toBe(39_326);
  });
});

import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleScenario, loadScenario, readScenarioText, ScenarioLoadError } from './load.ts';

const NETPOL = resolve(import.meta.dirname, '..', '..', 'shared', 'conformance', 'netpol');

const text = (s: string) => assembleScenario(readScenarioText('t.yaml', s), 't');

function failure(s: string): ScenarioLoadError {
  try {
    text(s);
  } catch (e) {
    if (e instanceof ScenarioLoadError) return e;
    throw e;
  }
  throw new Error('loaded');
}

describe('scenario files', () => {
  it('loads every file of the NetworkPolicy conformance suite, in place', () => {
    let files = 0;
    let probes = 0;
    for (const sub of ['netpol-analyzer', 'upstream-e2e']) {
      for (const f of readdirSync(join(NETPOL, sub)).filter((n) => n.endsWith('.yaml'))) {
        const s = loadScenario(join(NETPOL, sub, f));
        files++;
        probes += s.expect.length + s.steps.reduce((n, st) => n + st.expect.length, 0);
        expect(s.objects.length, f).toBeGreaterThan(0);
        expect([...s.warnings, ...s.steps.flatMap((st) => st.warnings ?? [])], f).toEqual([]);
      }
    }
    expect(files).toBe(101);
    expect(probes).toBe(39_326);
  });

  it('objects, a List flattened, the Scenario with steps, unknown kinds reported once with where', () => {
    const s = text(`
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: prod}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b}
---
apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: {name: demo}
spec:
  cluster: {defaultSubnet: 10.16.0.0/16, nodes: 2}
  expect:
  - {from: prod/a, to: 8.8.8.8, protocol: ICMP, allowed: true}
  steps:
  - apply: [{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: prod}}]
    delete: [{kind: NetworkPolicy, namespace: prod, name: deny}]
    expect: [{from: prod/p, to: prod/a, protocol: TCP, port: 80, allowed: false}]
`);
    expect(s.name).toBe('demo');
    expect(s.objects.map((o) => o.kind)).toEqual(['Namespace']);
    expect(s.cluster).toEqual({ defaultSubnet: '10.16.0.0/16', nodes: 2 });
    expect(s.expect).toEqual([{ from: 'prod/a', to: '8.8.8.8', protocol: 'ICMP', allowed: true }]);
    expect(s.steps[0]?.apply.map((o) => o.kind)).toEqual(['Pod']);
    expect(s.steps[0]?.delete).toEqual([{ kind: 'NetworkPolicy', namespace: 'prod', name: 'deny' }]);
    // One warning per object, each saying where it is (the List's item at line 6, the document at line 8).
    expect(s.warnings.map((w) => [w.code, w.kind, w.name, w.scope])).toEqual([
      ['UnsupportedKind', 'ConfigMap', 'a', undefined],
      ['UnsupportedKind', 'ConfigMap', 'b', undefined],
    ]);
    expect(s.warnings.map((w) => /\(t\.yaml, document (\d+), line (\d+)\)$/.exec(w.message)?.slice(1))).toEqual([
      ['0', '6'],
      ['1', '8'],
    ]);
    expect(s.warnings[0]!.message).toContain('kind ConfigMap (v1) is not one kovn reads');
  });

  it('errors name the file, the document, the line and the field', () => {
    const e1 = failure(
      'apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {}\n',
    );
    expect(e1).toMatchObject({ code: 'shape', field: 'metadata.name', source: { doc: 1, line: 7 } });
    expect(e1.message).toBe('t.yaml: document 1, line 7, metadata.name: every object needs metadata.name');
    const e2 = failure(
      'apiVersion: kovn.io/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  expect:\n  - {from: a/b, to: c/d, protocol: TCP, port: 99999, allowed: true}\n',
    );
    expect(e2).toMatchObject({ field: 'spec.expect[0].port', source: { doc: 0, line: 6 } });
    const e3 = failure('apiVersion: kovn.io/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  expects: []\n');
    expect(e3).toMatchObject({ field: 'spec.expects', source: { line: 5 } });
    expect(e3.message).toMatch(/unknown field/);
    const e4 = failure('a: [1, 2\n');
    expect(e4).toMatchObject({ code: 'yaml', source: { doc: 0 } });
    const e5 = failure(
      'kind: Scenario\napiVersion: kovn.io/v1alpha1\n---\nkind: Scenario\napiVersion: kovn.io/v1alpha1\n',
    );
    expect(e5).toMatchObject({ code: 'two-scenarios', source: { doc: 1 } });
    const e6 = failure('apiVersion: v1\nkind: Pod\nmetadata: {name: a, name: b}\n');
    expect(e6.code).toBe('yaml');
    // Found by the fuzzer: an alias without its anchor threw a bare ReferenceError.
    expect(failure('*nowhere').code).toBe('yaml');
  });

  it('a probe may spoof its source address or MAC (UDP and ICMP only: judged by the first packet)', () => {
    const probe = (p: string) =>
      `apiVersion: kovn.io/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  expect:\n  - ${p}\n`;
    const ok = text(probe('{from: a/b, to: c/d, protocol: UDP, port: 53, allowed: false, spoof: {ip: a/v, mac: a/v}}'));
    expect(ok.expect[0]?.spoof).toEqual({ ip: 'a/v', mac: 'a/v' });
    const tcp = failure(probe('{from: a/b, to: c/d, protocol: TCP, port: 80, allowed: false, spoof: {ip: a/v}}'));
    expect(tcp).toMatchObject({ field: 'spec.expect[0].spoof' });
    expect(tcp.message).toMatch(/only UDP and ICMP probes spoof/);
    const empty = failure(probe('{from: a/b, to: c/d, protocol: ICMP, allowed: false, spoof: {}}'));
    expect(empty.message).toMatch(/names ip, mac or both/);
    const unknown = failure(probe('{from: a/b, to: c/d, protocol: ICMP, allowed: false, spoof: {port: 1}}'));
    expect(unknown).toMatchObject({ field: 'spec.expect[0].spoof.port' });
  });

  it('a probe to an outside host may name the node it leaves by (via) and whether it is masqueraded (snat)', () => {
    const probe = (p: string) =>
      `apiVersion: kovn.io/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  expect:\n  - ${p}\n`;
    const ok = text(probe('{from: a/b, to: 1.1.1.1, protocol: ICMP, allowed: true, via: n1, snat: false}'));
    expect(ok.expect[0]).toMatchObject({ via: 'n1', snat: false });
    const via = failure(probe('{from: a/b, to: 1.1.1.1, protocol: ICMP, allowed: true, via: 3}'));
    expect(via).toMatchObject({ field: 'spec.expect[0].via' });
    const snat = failure(probe('{from: a/b, to: 1.1.1.1, protocol: ICMP, allowed: true, snat: "no"}'));
    expect(snat).toMatchObject({ field: 'spec.expect[0].snat' });
  });

  it('a missing path is a read error naming it', () => {
    expect(() => loadScenario('/nonexistent/scenario.yaml')).toThrow(ScenarioLoadError);
  });
});

/**
 * Fuzz target of the scenario loader: any text ⇒ a scenario or a
 * ScenarioLoadError naming file, document, line and field.
 */
import fc from 'fast-check';
import { mutatedText } from '../test/fuzz/mutate.ts';
import { fuzzTarget } from '../test/fuzz/target.ts';
import { assembleScenario, readScenarioText, ScenarioLoadError } from './load.ts';

const probe = fc
  .record({
    from: fc.constantFrom('x/a', 'y/b', '8.8.8.8', 'svc/x/web'),
    to: fc.constantFrom('x/a', 'y/b', '203.0.113.7'),
    protocol: fc.constantFrom('TCP', 'UDP', 'SCTP', 'ICMP'),
    port: fc.integer({ min: 1, max: 65535 }),
    allowed: fc.boolean(),
  })
  .map((p) =>
    p.protocol === 'ICMP'
      ? `{from: ${p.from}, to: ${p.to}, protocol: ICMP, allowed: ${p.allowed}}`
      : `{from: ${p.from}, to: ${p.to}, protocol: ${p.protocol}, port: ${p.port}, allowed: ${p.allowed}}`,
  );

const object = fc
  .tuple(
    fc.constantFrom('Pod', 'Namespace', 'Service', 'NetworkPolicy', 'ConfigMap', 'List'),
    fc.constantFrom('a', 'b-1'),
  )
  .map(([kind, name]) =>
    kind === 'List'
      ? `apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: ${name}}}\n`
      : `apiVersion: v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n  namespace: x\n`,
  );

const scenario = fc
  .tuple(fc.array(probe, { maxLength: 3 }), fc.boolean())
  .map(
    ([probes, steps]) =>
      `apiVersion: kovn.io/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  cluster: {defaultSubnet: 10.16.0.0/16, nodes: 2}\n  expect:\n${probes.map((p) => `  - ${p}`).join('\n') || '  []'}\n${steps ? `  steps:\n  - delete: [{kind: Pod, namespace: x, name: a}]\n    expect: []\n` : ''}`,
  );

const file = fc
  .tuple(fc.array(object, { maxLength: 3 }), fc.option(scenario))
  .map(([objs, sc]) => [...objs, ...(sc ? [sc] : [])].join('---\n'));

export const targets = [
  fuzzTarget({
    name: 'scenario/load',
    arbitrary: mutatedText(file, fc.string({ maxLength: 12 })),
    run(text: string) {
      try {
        assembleScenario(readScenarioText('fuzz.yaml', text), 'fuzz');
        return 'accepted';
      } catch (e) {
        if (!(e instanceof ScenarioLoadError)) throw e;
        if (e.source.line < 0 || e.source.doc < 0) throw new Error(`bad location in ${e.message}`);
        return 'rejected';
      }
    },
  }),
];

/**
 * Fuzz targets of the scenario loader: any text, YAML or JSON, ⇒ a scenario
 * or a ScenarioLoadError naming file, document, line and field. For JSON, the
 * loader's own scan agrees with JSON.parse on what is valid JSON.
 */
import fc from 'fast-check';
import { isPlain } from '../kube/objects/decode.ts';
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

/** Metadata lines that exercise what kubectl's YAML reading adds: merge keys, anchors, YAML 1.1 scalars, tags. */
const extra = fc.oneof(
  { weight: 6, arbitrary: fc.constant('') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '  labels: &l {app: web, tier: on}\n  annotations: {<<: *l, tier: "off"}\n',
      '  labels: {<<: [{a: "1"}, {b: "2"}], c: "3"}\n',
      '  annotations: {n: 0x1F, o: 017, t: 2024-05-01, y: yes, s: !!str 12}\n',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '  annotations: {b: !!binary aGk=}\n',
      '  annotations: {i: .inf, big: 12345678901234567890}\n',
      '  labels: {[k]: v}\n',
      `  labels: {x: ${'['.repeat(200)}${']'.repeat(200)}}\n`,
    ),
  },
);

const object = fc
  .tuple(
    fc.constantFrom('Pod', 'Namespace', 'Service', 'NetworkPolicy', 'ConfigMap', 'List'),
    fc.constantFrom('a', 'b-1'),
    extra,
  )
  .map(([kind, name, more]) =>
    kind === 'List'
      ? `apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: ${name}}}\n`
      : `apiVersion: v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n  namespace: x\n${more}`,
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

/** The same kinds of objects as JSON text: one object, a List, or a stream of them. */
const jsonObject = fc
  .record({
    kind: fc.constantFrom('Pod', 'Namespace', 'Service', 'ConfigMap'),
    name: fc.constantFrom('a', 'b-1', '__proto__'),
    labels: fc.dictionary(fc.constantFrom('app', 'tier', 'a\\u0061'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  })
  .map(({ kind, name, labels }) => ({ apiVersion: 'v1', kind, metadata: { name, namespace: 'x', labels } }));
const jsonFile = fc
  .tuple(fc.array(jsonObject, { minLength: 1, maxLength: 3 }), fc.constantFrom('list', 'stream', 'one'), fc.boolean())
  .map(([objs, shape, pretty]) => {
    const show = (v: unknown) => JSON.stringify(v, null, pretty ? 2 : undefined);
    if (shape === 'list') return show({ apiVersion: 'v1', kind: 'List', items: objs });
    return shape === 'one' ? show(objs[0]) : objs.map(show).join('\n');
  });

/** A ScenarioLoadError with a sound location is a rejection; anything else escapes as a finding. */
function rejection(e: unknown): ScenarioLoadError {
  if (!(e instanceof ScenarioLoadError)) throw e;
  if (e.source.line < 0 || e.source.doc < 0) throw new Error(`bad location in ${e.message}`);
  return e;
}

export const targets = [
  fuzzTarget({
    name: 'scenario/load',
    arbitrary: mutatedText(file, fc.string({ maxLength: 12 })),
    run(text: string) {
      try {
        assembleScenario(readScenarioText('fuzz.yaml', text), 'fuzz');
        return 'accepted';
      } catch (e) {
        rejection(e);
        return 'rejected';
      }
    },
  }),
  fuzzTarget({
    name: 'scenario/load-json',
    arbitrary: mutatedText(jsonFile, fc.string({ maxLength: 12 })),
    run(text: string) {
      let parsed: { ok: true; value: unknown } | { ok: false } = { ok: false };
      try {
        parsed = { ok: true, value: JSON.parse(text) };
      } catch {
        // not one JSON value: the loader may still read a stream of several
      }
      try {
        const docs = readScenarioText('fuzz.json', text);
        if (parsed.ok && isPlain(parsed.value) && parsed.value.kind !== 'Scenario') {
          const values = docs.objects.map((o) => o.object);
          const kind = parsed.value.kind;
          const expected = typeof kind === 'string' && kind.endsWith('List') ? parsed.value.items : [parsed.value];
          if (Array.isArray(expected) && JSON.stringify(values) !== JSON.stringify(expected))
            throw new Error('the loader read other values than JSON.parse');
        }
        assembleScenario(docs, 'fuzz');
        return 'accepted';
      } catch (e) {
        const err = rejection(e);
        // What JSON.parse reads, the scan must read too (a repeated key or an inexact integer aside).
        const excused = /appears twice|beyond 2\^53|nested more than/;
        if (err.code === 'json' && parsed.ok && !excused.test(err.message))
          throw new Error(`valid JSON refused: ${err.message}`);
        return 'rejected';
      }
    },
  }),
];

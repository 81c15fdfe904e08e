/**
 * YAML read as kubectl reads it (kube-yaml.ts), through the loader's public
 * entry point so the same cases run against any version of it.
 */
import { describe, expect, it } from 'vitest';
import { readScenarioText, ScenarioLoadError } from './load.ts';

const objects = (text: string) => readScenarioText('t.yaml', text).objects.map((o) => o.object);
const pod = (name: string, metadata: string) => `{apiVersion: v1, kind: Pod, metadata: {name: ${name}, ${metadata}}}`;

function failure(text: string): ScenarioLoadError {
  try {
    readScenarioText('t.yaml', text);
  } catch (e) {
    if (e instanceof ScenarioLoadError) return e;
    throw e;
  }
  throw new Error('loaded');
}

const labels = (o: unknown) => (o as { metadata: { labels: unknown } }).metadata.labels;

describe('YAML as kubectl reads it', () => {
  it('merge keys << resolve as go-yaml v2 (kubectl) resolves them', () => {
    const list = objects(`
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: base
    labels: &base {app: web, tier: front}
    annotations: &extra {tier: extra, team: net}
- ${pod('after', 'labels: {<<: *base, tier: back}')}
- ${pod('before', 'labels: {tier: back, <<: *base}')}
- ${pod('list', 'labels: {<<: [*extra, *base]}')}
- apiVersion: v1
  kind: Pod
  metadata:
    name: block
    labels:
      <<: *base
      app: api
- ${pod('nested', 'labels: {<<: {<<: *base, zone: a}, app: db}')}
- ${pod('twice', 'labels: {<<: *base, <<: *extra}')}
`);
    expect(Object.fromEntries(list.map((o) => [(o.metadata as { name: string }).name, labels(o)]))).toEqual({
      base: { app: 'web', tier: 'front' },
      // A key after << overrides the merged value ...
      after: { app: 'web', tier: 'back' },
      // ... a key before it is overridden (go-yaml sets the merged keys where << stands; the
      // `yaml` package's own merge option keeps the key, as the YAML 1.1 merge spec says).
      before: { app: 'web', tier: 'front' },
      // In a list the earlier mapping wins.
      list: { app: 'web', tier: 'extra', team: 'net' },
      block: { app: 'api', tier: 'front' },
      nested: { app: 'db', tier: 'front', zone: 'a' },
      // Two << keys merge in turn, the later over the earlier (the `yaml` package keeps the first).
      twice: { app: 'web', tier: 'extra', team: 'net' },
    });
    // A quoted "<<" is an ordinary key.
    expect(labels(objects(pod('q', 'labels: {"<<": x}'))[0])).toEqual({ '<<': 'x' });
    for (const bad of ['labels: {<<: x}', 'labels: {<<: [x]}', 'labels: &l [a], annotations: {<<: *l}']) {
      const e = failure(pod('bad', bad));
      expect(e.code, bad).toBe('yaml');
      expect(e.message).toMatch(/merge key << takes a mapping/);
    }
  });

  it('scalars mean what they mean to kubectl: YAML 1.1 booleans and integers, timestamps stay strings', () => {
    const [subnet] = objects(`
apiVersion: kubeovn.io/v1
kind: Subnet
metadata: {name: s}
spec:
  private: yes
  natOutgoing: On
  enableLb: off
  vlanId: 0x1F
  octal: 017
  grouped: 1_000
  created: 2024-05-01
  stamp: 2024-05-01T10:00:00Z
  sexagesimal: 1:20
  none: ~
  quoted: "yes"
  tagged: !!str yes
  fromString: !!int "3"
  tooBig: 1e400
`);
    expect((subnet as { spec: unknown }).spec).toEqual({
      private: true,
      natOutgoing: true,
      enableLb: false,
      vlanId: 31,
      octal: 15,
      grouped: 1000,
      created: '2024-05-01',
      stamp: '2024-05-01T10:00:00Z',
      sexagesimal: '1:20',
      none: null,
      quoted: 'yes',
      tagged: 'yes',
      fromString: 3,
      // Go's ParseFloat overflows: go-yaml keeps the text.
      tooBig: '1e400',
    });
  });

  it('tags that have no JSON form are refused, naming file, document and line', () => {
    const at = (value: string) =>
      failure(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\na:\n  b: ${value}\n`);
    for (const [value, shown] of [
      ['!!binary aGVsbG8=', '!!binary'],
      ['!!set {x, y}', '!!set'],
      ['!!omap [x: 1]', '!!omap'],
      ['!!pairs [x: 1]', '!!pairs'],
      ['!!timestamp 2024-05-01', '!!timestamp'],
      ['!foo bar', '!foo'],
      ['!!seq {x: 1}', '!!seq'],
    ]) {
      const e = at(value as string);
      expect(e, value).toMatchObject({ code: 'tag', source: { file: 't.yaml', doc: 1, line: 6 } });
      expect(e.message).toContain(shown);
    }
    expect(at('!!int abc').message).toMatch(/"abc" is not a valid !!int/);
    const custom = failure(
      '%TAG !e! tag:example.com,2000:\n---\napiVersion: v1\nkind: Pod\nmetadata: !e!meta {name: p}\n',
    );
    expect(custom).toMatchObject({ code: 'tag', source: { line: 5 } });
  });

  it('numbers JSON or JavaScript cannot carry are refused', () => {
    for (const v of ['.inf', '-.Inf', '.nan', '12345678901234567890', '-0x7FFFFFFFFFFFFFFF']) {
      const e = failure(`apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {replicas: ${v}}\n`);
      expect(e, v).toMatchObject({ code: 'value', source: { line: 4 } });
    }
  });

  it('keys become the strings sigs.k8s.io/yaml makes of them; keys it cannot make are refused', () => {
    const [cm] = objects(
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {80: a, yes: b, "no": c, 0x10: d}\n',
    );
    expect((cm as { data: unknown }).data).toEqual({ 80: 'a', true: 'b', no: 'c', 16: 'd' });
    for (const key of ['~', '[a]', '{a: 1}', '1.5']) {
      expect(failure(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {${key}: x}\n`).code, key).toBe(
        'yaml',
      );
    }
    // Two spellings of one key are one key twice.
    expect(failure('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {yes: 1, true: 2}\n').code).toBe(
      'yaml',
    );
    // "__proto__" is a key like any other, never the object's prototype.
    const [p] = objects('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {__proto__: {polluted: 1}}\n');
    const data = (p as { data: Record<string, unknown> }).data;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['__proto__']);
  });

  it('aliases are expanded; an alias bomb, a self-containing alias or a missing anchor is refused', () => {
    const [p] = objects('apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: &l {a: b}, annotations: *l}\n');
    expect((p as { metadata: { annotations: unknown } }).metadata.annotations).toEqual({ a: 'b' });
    const lol = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 9; i++) {
      const [name, prev] = [String.fromCharCode(97 + i), String.fromCharCode(96 + i)];
      lol.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    }
    expect(failure(`${lol.join('\n')}\n`)).toMatchObject({
      code: 'yaml',
      message: expect.stringMatching(/alias bomb/),
    });
    expect(failure('a: &a [*a]\n').message).toMatch(/alias \*a is inside the node it names/);
    expect(failure('*nowhere').code).toBe('yaml');
  });

  it('nesting thousands deep gives the typed error naming the line, in flow and block styles', () => {
    const head = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n';
    const indented = (n: number) => Array.from({ length: n }, (_, i) => `${' '.repeat(i + 2)}k:\n`).join('');
    for (const n of [5_000, 100_000]) {
      for (const [style, body, line] of [
        ['flow list', `  x: ${'['.repeat(n)}${']'.repeat(n)}\n`, 5],
        ['flow map', `  x: ${'{a: '.repeat(n)}1${'}'.repeat(n)}\n`, 5],
        ['block list', `  x:\n    ${'- '.repeat(n)}x\n`, 6],
      ] as const) {
        const e = failure(`${head}${body}`);
        expect(e, `${style} ${n}`).toMatchObject({ code: 'too-deep', source: { doc: 0, line } });
      }
    }
    // Block mappings need an indent per level (a text of n²/2 bytes): 2,000 levels.
    expect(failure(`${head}${indented(2_000)}`)).toMatchObject({ code: 'too-deep' });
    // The limit: 128 nested collections, counting the document's own mapping.
    const nested = (n: number) => `${head}  x: ${'['.repeat(n)}${']'.repeat(n)}\n`;
    expect(objects(nested(126))).toHaveLength(1);
    expect(failure(nested(127)).code).toBe('too-deep');
    // Aliases can nest deeper than the text does: the expanded value counts.
    const chain = ['a0: &a0 [x]'];
    for (let i = 1; i <= 20; i++) chain.push(`a${i}: &a${i} [[[[[[[[[*a${i - 1}]]]]]]]]]`);
    expect(failure(`${chain.join('\n')}\n`)).toMatchObject({ code: 'too-deep' });
  });
});

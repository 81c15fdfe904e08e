/** `.json` files (kube-json.ts) through the loader's public entry point. */
import { describe, expect, it } from 'vitest';
import { readScenarioText, ScenarioLoadError } from './load.ts';

const objects = (text: string) => readScenarioText('t.json', text).objects;

function failure(text: string): ScenarioLoadError {
  try {
    readScenarioText('t.json', text);
  } catch (e) {
    if (e instanceof ScenarioLoadError) return e;
    throw e;
  }
  throw new Error('loaded');
}

const pod = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name } });

describe('JSON files', () => {
  it('a kubectl get -o json List, and a stream of objects one document each', () => {
    const list = JSON.stringify(
      { apiVersion: 'v1', kind: 'List', items: [JSON.parse(pod('a')), JSON.parse(pod('b'))] },
      null,
      4,
    );
    expect(objects(list).map((o) => o.object.metadata)).toEqual([{ name: 'a' }, { name: 'b' }]);
    const stream = objects(`\uFEFF${pod('a')}\n${pod('b')}\n\n  ${pod('c')}`);
    expect(stream.map((o) => [(o.object.metadata as { name: string }).name, o.source.doc, o.source.line])).toEqual([
      ['a', 0, 1],
      ['b', 1, 2],
      ['c', 2, 4],
    ]);
    // JSON keeps strings strings: no YAML 1.1 reading of "yes" or "0x1F".
    const [cm] = objects(
      '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "yes", "b": "0x1F"}}',
    );
    expect(cm?.object.data).toEqual({ a: 'yes', b: '0x1F' });
  });

  it('syntax errors, repeated keys and integers beyond 2^53 name the line', () => {
    const head = '{\n  "apiVersion": "v1",\n  "kind": "Pod",\n';
    for (const [tail, code, message] of [
      ['  "metadata": {"name": "a",}\n}', 'json', /expected a key in double quotes, found "}"/],
      ['  "metadata": {"name": "a"}', 'json', /expected ',' or '}', found the end of the file/],
      ['  "metadata": {"name": \'a\'}\n}', 'json', /expected a value, found "'"/],
      ['  "metadata": {"name": "a\\q"}\n}', 'json', /invalid escape \\q/],
      ['  "metadata": {"name": "a", "name": "b"}\n}', 'json', /the key "name" appears twice/],
      ['  "metadata": {"name": "a", "n\\u0061me": "b"}\n}', 'json', /the key "name" appears twice/],
      ['  "metadata": {"name": "a", "uid": 12345678901234567890}\n}', 'value', /beyond 2\^53/],
    ] as const) {
      const e = failure(`${head}${tail}`);
      expect(e, tail).toMatchObject({ code, source: { file: 't.json', doc: 0, line: 4 } });
      expect(e.message).toMatch(message);
    }
    expect(failure(`${pod('a')}\n${pod('b')} x`)).toMatchObject({ code: 'json', source: { doc: 2, line: 2 } });
  });

  it('nesting thousands deep gives the typed error, not a stack overflow', () => {
    for (const n of [5_000, 100_000]) {
      expect(failure(`{"a": ${'['.repeat(n)}${']'.repeat(n)}}`), `${n}`).toMatchObject({ code: 'too-deep' });
      expect(failure(`${'{"a": '.repeat(n)}1${'}'.repeat(n)}`), `${n}`).toMatchObject({ code: 'too-deep' });
    }
  });

  it('"__proto__" is a key like any other', () => {
    const [o] = objects(
      '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"__proto__": {"x": 1}}}',
    );
    const data = o?.object.data as Record<string, unknown>;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['__proto__']);
  });
});

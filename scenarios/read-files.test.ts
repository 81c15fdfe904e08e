/**
 * Reading files and folders (read-files.ts through loadManifests): what an
 * input is, which files a folder gives, and the size limits.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countProbes, loadManifests, loadScenario, READ_LIMITS, requireProbes, ScenarioLoadError } from './load.ts';

const root = mkdtempSync(join(tmpdir(), 'kovn-read-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
/** A fresh folder with these files. */
function folder(files: Record<string, string>): string {
  const dir = join(root, `d${n++}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function failure(load: () => unknown): ScenarioLoadError {
  try {
    load();
  } catch (e) {
    if (e instanceof ScenarioLoadError) return e;
    throw e;
  }
  throw new Error('loaded');
}

const pod = (name: string) => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: default}\n`;
const names = (s: { objects: readonly { object: Readonly<Record<string, unknown>> }[] }) =>
  s.objects.map((o) => (o.object.metadata as { name: string }).name);

describe('inputs', () => {
  it('an input with neither a Kubernetes object nor a Scenario is an error naming it', () => {
    const dir = folder({
      'empty.yaml': '',
      'comments.yaml': '# nothing\n',
      'dashes.yml': '---\n---\n',
      'e.json': ' \n',
    });
    for (const f of ['empty.yaml', 'comments.yaml', 'dashes.yml', 'e.json']) {
      const e = failure(() => loadScenario(join(dir, f)));
      expect(e, f).toMatchObject({ code: 'empty', source: { file: join(dir, f) } });
      expect(e.message).toMatch(/no Kubernetes object and no Scenario/);
    }
    // The folder as a whole holds nothing either.
    expect(failure(() => loadScenario(dir)).code).toBe('empty');
    // One empty file among others is fine.
    expect(names(loadManifests([join(dir, 'empty.yaml'), folder({ 'a.yaml': pod('a') })]))).toEqual(['a']);
  });

  it('a folder without manifest files is an error naming the folder', () => {
    const dir = folder({ 'README.md': '# pods\n', 'pods.txt': pod('a'), 'a.yaml.bak': pod('b') });
    const e = failure(() => loadManifests([folder({ 'a.yaml': pod('a') }), dir]));
    expect(e).toMatchObject({ code: 'empty', source: { file: dir } });
    expect(e.message).toBe(`${dir}: a folder without .yaml, .yml or .json files`);
  });

  it('.yaml, .yml and .json in any case are read from folders, sorted by name', () => {
    const list = JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'j1' } },
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'j2' } },
      ],
    });
    const dir = folder({
      'a.YAML': pod('a'),
      'b.Yml': pod('b'),
      'c.json': list,
      'd.JSON': JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'd' } }),
      'e.yml': pod('e'),
      'f.txt': pod('f'),
      'g.jsonl': pod('g'),
    });
    expect(names(loadScenario(dir))).toEqual(['a', 'b', 'j1', 'j2', 'd', 'e']);
    // A file given by name is read whatever its name (YAML unless it ends in .json).
    expect(names(loadManifests([join(dir, 'f.txt')]))).toEqual(['f']);
    // The scenario's name drops the extension in any case.
    expect(loadScenario(join(dir, 'd.JSON')).name).toBe('d');
  });

  it('a file over the limit is refused from its size, before it is read', () => {
    // A sparse file of 1 TiB: reading it would take hours and all memory.
    const huge = join(folder({}), 'dump.yaml');
    writeFileSync(huge, pod('a'));
    truncateSync(huge, 2 ** 40);
    const e = failure(() => loadScenario(huge));
    expect(e).toMatchObject({ code: 'too-large', source: { file: huge } });
    expect(e.message).toBe(
      `${huge}: larger than kovn's limit of 16 MiB for one YAML file (it has 1024 GiB); a larger cluster can be read as JSON (kubectl get -o json), up to 128 MiB`,
    );
    expect(READ_LIMITS).toEqual({
      yamlFileBytes: 16 * 2 ** 20,
      jsonFileBytes: 128 * 2 ** 20,
      totalBytes: 128 * 2 ** 20,
    });
  });

  it('a file whose size the file system does not know is read up to the limit and no further', () => {
    // A link to /dev/zero in a folder: endless bytes, no size.
    const dir = folder({ 'a.yaml': pod('a') });
    symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
    const e = failure(() => loadScenario(dir));
    expect(e).toMatchObject({ code: 'too-large', source: { file: join(dir, 'zero.yaml') } });
    expect(e.message).toMatch(/not a regular file and gave more bytes than that/);
  });

  it('JSON and YAML files have their own limits, and all files together one more', () => {
    const limits = { yamlFileBytes: 100, jsonFileBytes: 400, totalBytes: 500 };
    const big = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'x'.repeat(150) } } };
    const dir = folder({ 'p.json': JSON.stringify(big), 'p.yaml': JSON.stringify(big) });
    expect(names(loadManifests([join(dir, 'p.json')], { limits }))).toEqual(['p']);
    expect(failure(() => loadManifests([join(dir, 'p.yaml')], { limits })).message).toMatch(
      /limit of 100 bytes for one YAML file \(it has 2\d\d bytes\)/,
    );
    const e = failure(() => loadManifests([join(dir, 'p.json'), join(dir, 'p.json'), join(dir, 'p.json')], { limits }));
    expect(e.message).toMatch(
      /limit of 500 bytes for all files of one input together \(\d+ bytes read before this one\)/,
    );
  });

  it('a scenario without probes: fine as manifests, an error for sim run (requireProbes)', () => {
    const dir = folder({
      'plain.yaml': pod('a'),
      'scenario.yaml': `${pod('b')}---\napiVersion: kovn.io/v1alpha1\nkind: Scenario\nmetadata: {name: nothing}\nspec: {}\n`,
    });
    const plain = loadScenario(join(dir, 'plain.yaml'));
    expect(countProbes(plain)).toBe(0);
    const s = loadScenario(join(dir, 'scenario.yaml'));
    const e = failure(() => requireProbes(s, join(dir, 'scenario.yaml')));
    expect(e).toMatchObject({ code: 'no-probes', source: { file: join(dir, 'scenario.yaml') } });
    expect(e.message).toMatch(/scenario "nothing" has no spec.expect and no step with expect/);
    const probed = loadScenario(
      folder({
        's.yaml': `apiVersion: kovn.io/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  steps:\n  - expect: [{from: a/b, to: 8.8.8.8, protocol: ICMP, allowed: true}]\n`,
      }),
    );
    expect(countProbes(probed)).toBe(1);
    expect(() => requireProbes(probed, 's')).not.toThrow();
  });
});

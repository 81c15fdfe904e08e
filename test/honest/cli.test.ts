/**
 * Honest answers through the `kovn` command itself: a file with one field or
 * annotation kovn does not act on per kind (and a kind it does not handle),
 * through `--json`: each is a warning naming object and field, and exactly
 * the probes that may depend on one are `unsure`; `--strict` exits 3; every
 * shipped scenario has no warning under `--strict`; `--report` never
 * overwrites an input and fails before the run; numbers are checked; names
 * from the input never reach the terminal raw.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ONE_OF_EACH } from './one-of-each.ts';
import { join3, kovn, pod, scenarioDoc, scratch } from './run-yaml.ts';

const tmp = scratch('honest-cli');
afterAll(() => tmp.done());

interface RunJSON {
  results: { from: string; to: string; ok: boolean; unsure?: string }[];
  warnings: { code: string; kind: string; namespace: string; name: string; field: string; message: string }[];
}

describe('kovn sim run --json: what is not acted on is a warning, and the probes it may change are unsure', () => {
  it('one field or annotation of each kind', async () => {
    const file = tmp.file('one-of-each.yaml', ONE_OF_EACH);
    const r = await kovn(['sim', 'run', file, '--json']);
    const out = JSON.parse(r.stdout) as RunJSON;
    expect(r.code).toBe(1); // unsure probes never pass
    const warned = out.warnings.map((w) => [w.code, w.kind, w.namespace, w.name, w.field]);
    expect(warned).toEqual(
      expect.arrayContaining([
        ['UnsupportedField', 'Subnet', '', 'under', 'spec.enableExternalLBAddress'],
        ['UnsupportedField', 'Vpc', '', 'v1', 'spec.enableExternal'],
        ['UnsupportedField', 'IP', '', 'ipobj', 'spec.attachIps'],
        ['UnsupportedField', 'Vip', '', 'vip1', 'spec.attachSubnets'],
        [
          'UnsupportedAnnotation',
          'Namespace',
          '',
          'quiet',
          'metadata.annotations[ovn.kubernetes.io/network_policy_enforcement]',
        ],
        ['UnsupportedAnnotation', 'Node', '', 'n1', 'metadata.annotations[ovn.kubernetes.io/tunnel_interface]'],
        ['UnsupportedField', 'Service', 'default', 'local', 'spec.internalTrafficPolicy'],
        [
          'UnsupportedAnnotation',
          'NetworkPolicy',
          'np',
          'lax',
          'metadata.annotations[ovn.kubernetes.io/network_policy_for]',
        ],
        ['UnsupportedAnnotation', 'Pod', 'default', 'ngw', 'metadata.annotations[ovn.kubernetes.io/north_gateway]'],
        ['UnsupportedAnnotation', 'Pod', 'default', 'rated', 'metadata.annotations[ovn.kubernetes.io/ingress_rate]'],
      ]),
    );
    expect(out.warnings).toHaveLength(10);
    for (const w of out.warnings) expect(w.message.length).toBeGreaterThan(10);
    const unsure = Object.fromEntries(out.results.map((x) => [`${x.from} ${x.to}`, x.unsure]));
    // May change the verdict: unsure, naming what.
    expect(unsure['default/plain u/u1']).toContain('Subnet under');
    expect(unsure['vv/v1p 10.60.0.1']).toContain('Vpc v1');
    expect(unsure['default/plain default/ngw']).toContain('north_gateway');
    expect(unsure['quiet/q svc/default/local']).toContain('internalTrafficPolicy');
    expect(unsure['default/plain np/guarded']).toContain('NetworkPolicy np/lax');
    // Changes no verdict (a rate, a Namespace annotation Kube-OVN reads elsewhere, an attachment address): sure.
    expect(unsure['default/plain default/rated']).toBeUndefined();
    expect(unsure['default/rated quiet/q']).toBeUndefined();
    // Acted on (the pool, its address set): sure.
    expect(unsure['default/plain pooled/pp']).toBeUndefined();
    // The Vip is acted on: 10.16.8.8 is reserved, no pod holds it (its attachSubnets change no verdict here).
    expect(unsure['default/rated 10.16.8.8']).toBeUndefined();
    expect(out.results.filter((x) => x.unsure === undefined).every((x) => x.ok)).toBe(true);
  });

  it('--strict refuses any answer with a warning (exit 3); connectivity and trace too', async () => {
    const file = tmp.file('strict.yaml', ONE_OF_EACH);
    expect((await kovn(['sim', 'run', file, '--strict', '--json'])).code).toBe(3);
    expect((await kovn(['sim', 'connectivity', file, '--strict', '--json'])).code).toBe(3);
    const t = await kovn([
      'trace',
      file,
      '--from',
      'default/plain',
      '--to',
      'default/rated',
      '--protocol',
      'TCP',
      '--port',
      '80',
      '--strict',
      '--json',
    ]);
    expect(t.code).toBe(3);
    expect((JSON.parse(t.stdout) as { warnings: unknown[] }).warnings).toHaveLength(10);
    // Without --strict the same trace is delivered: exit 0.
    const plain = await kovn([
      'trace',
      file,
      '--from',
      'default/plain',
      '--to',
      'default/rated',
      '--protocol',
      'TCP',
      '--port',
      '80',
    ]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('10 warnings');
  });

  it('the terminal table and summary count the warnings and mark unsure probes', async () => {
    const file = tmp.file('table.yaml', ONE_OF_EACH);
    const r = await kovn(['sim', 'run', file]);
    expect(r.stdout).toMatch(/^10 warnings: /m);
    expect(r.stdout).toMatch(/^UNSURE\s+0\s+default\/plain\s+u\/u1/m);
    expect(r.stdout).toMatch(/4\/9 probes as expected on sim, 5 unsure, 10 warnings$/m);
  });
});

describe('every shipped scenario is answered with no warning', () => {
  const dir = join(import.meta.dirname, '..', '..', 'scenarios');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  it.each(files)('%s --strict', async (f) => {
    const r = await kovn(['sim', 'run', join(dir, f), '--strict', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as RunJSON).warnings).toEqual([]);
  });
});

describe('the command line fails early and clearly', () => {
  it('--report never overwrites an input, and an unwritable path fails before the run', async () => {
    const file = tmp.file(
      'input.yaml',
      readFileSync(join(import.meta.dirname, '..', '..', 'scenarios', 'quickstart.yaml'), 'utf8'),
    );
    const before = readFileSync(file, 'utf8');
    const self = await kovn(['sim', 'run', file, '--report', file]);
    expect(self.code).toBe(1);
    expect(self.stderr).toContain('that is an input of this run');
    expect(readFileSync(file, 'utf8')).toBe(before);
    const inFolder = await kovn(['sim', 'run', tmp.dir, '--report', join(tmp.dir, 'input.yaml')]);
    expect(inFolder.stderr).toContain('that is an input of this run');
    const nowhere = await kovn(['sim', 'run', file, '--report', '/nonexistent-dir/x.html']);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('cannot be written');
    expect(nowhere.stdout).toBe(''); // nothing ran
    expect(existsSync('/nonexistent-dir')).toBe(false);
  });

  it.each([
    [['sim', 'run', 'scenarios/quickstart.yaml', '--seed', 'abc'], '--seed takes a whole number'],
    [
      ['trace', 'scenarios/quickstart.yaml', '--from', 'a/b', '--to', 'c/d', '--protocol', 'TCP', '--port', '70000'],
      '--port takes a whole number 1..65535',
    ],
    [['difftest', '--cases', 'abc'], '--cases takes a whole number'],
    [['bench', 'controller', '--pods', '1.5'], '--pods takes a whole number'],
  ])('%j is refused: %s', async (args, message) => {
    const r = await kovn(args);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(message);
  });

  it('a name with an escape sequence is shown escaped, never written raw to the terminal', async () => {
    const file = tmp.file(
      'ansi.yaml',
      join3(
        'apiVersion: v1\nkind: Pod\nmetadata: {name: "evil\\u001b]0;owned\\u0007\\u001b[2J", namespace: default}\nspec: {containers: [{name: c, image: x}]}\n',
        pod('a'),
        pod('b'),
        scenarioDoc('ansi', ['{from: default/a, to: default/b, protocol: TCP, port: 80, allowed: true}']),
      ),
    );
    const r = await kovn(['sim', 'run', file]);
    expect(r.stdout).toContain('InvalidObject Pod default/evil\\u001b]0;owned\\u0007\\u001b[2J');
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).not.toContain('\u0007');
    const probe = await kovn([
      'trace',
      file,
      '--from',
      'default/a\u001b[2J',
      '--to',
      'default/b',
      '--protocol',
      'TCP',
      '--port',
      '80',
    ]);
    expect(probe.code).toBe(1);
    expect(probe.stderr).toContain('\\u001b[2J');
    expect(probe.stderr).not.toContain('\u001b');
  });
});

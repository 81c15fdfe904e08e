/**
 * The HTML report in a real headless browser (Debian's chromium): written by
 * `kovn sim run --report`, opened from a file with no network, laid out (the
 * page's own check finds every drawn element with an area), every VPC,
 * subnet, pod and Service of the scenario drawn with its data-kind and
 * data-name, and the numbers on the page those of the run's JSON.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { applyObjects, expandObjects } from '../scenarios/expand.ts';
import { loadScenario } from '../scenarios/load.ts';
import { ONE_OF_EACH } from './honest/one-of-each.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const KOVN = join(ROOT, 'cli', 'bin', 'kovn.js');
const CHROMIUM = ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--virtual-time-budget=3000'];
const dir = mkdtempSync(join(tmpdir(), 'kovn-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a scenario holds, read from its objects (not from the report's code). */
async function expected(file: string) {
  const s = loadScenario(file);
  const first = await expandObjects(
    s.objects.map((o) => o.object),
    { ...(s.cluster.nodes ? { nodes: s.cluster.nodes } : {}) },
  );
  // Every step's objects too (what the report draws is what any step held).
  const objs = [...first.objects];
  for (const st of s.steps)
    objs.push(
      ...(
        await applyObjects(
          first,
          st.apply.map((o) => o.object),
          { mode: 'apply' },
        )
      ).objects,
    );
  first.workloads.stop();
  const named = (kind: string, ns: boolean) =>
    objs
      .filter((o) => o.kind === kind)
      .map((o) => (ns ? `${o.metadata.namespace ?? 'default'}/${o.metadata.name}` : o.metadata.name));
  return {
    vpc: ['ovn-cluster', ...named('Vpc', false)],
    subnet: ['ovn-default', 'join', ...named('Subnet', false)],
    pod: named('Pod', true),
    service: named('Service', true),
  };
}

const elements = (dom: string, kind: string) =>
  [...dom.matchAll(new RegExp(`data-kind="${kind}" data-name="([^"]+)"`, 'g'))].map((m) =>
    m[1]!.replace(/&amp;/g, '&'),
  );

describe('the HTML report in headless Chromium', () => {
  it('lists the warnings above the results and marks unsure probes, as the JSON says', {
    timeout: 120_000,
  }, async () => {
    const file = join(dir, 'one-of-each.yaml');
    writeFileSync(file, ONE_OF_EACH);
    const html = join(dir, 'one-of-each.html');
    const { stdout } = await run('node', [KOVN, 'sim', 'run', file, '--json', '--report', html]).catch(
      (e: { stdout: string }) => ({ stdout: e.stdout }), // exit 1: unsure probes do not pass
    );
    const json = JSON.parse(stdout) as { results: { unsure?: string }[]; warnings: { code: string }[] };
    const dom = (await run('chromium', [...CHROMIUM, '--dump-dom', `file://${html}`], { maxBuffer: 64 << 20 })).stdout;
    const section = /<section id="warnings" data-count="(\d+)"/.exec(dom);
    expect(Number(section?.[1])).toBe(json.warnings.length);
    expect(dom.indexOf('id="warnings"')).toBeLessThan(dom.indexOf('id="results"'));
    expect([...dom.matchAll(/<li data-code="([A-Za-z]+)"/g)].map((m) => m[1])).toEqual(
      json.warnings.map((w) => w.code),
    );
    const unsure = json.results.filter((r) => r.unsure !== undefined).length;
    expect(unsure).toBe(5);
    expect((dom.match(/data-unsure="true"/g) ?? []).length).toBe(unsure);
    expect(/id="summary"[^>]*data-unsure="(\d+)" data-warnings="(\d+)"/.exec(dom)?.slice(1).map(Number)).toEqual([
      unsure,
      json.warnings.length,
    ]);
  });

  it.each(['quickstart.yaml', 'vpc-routes.yaml', 'multi-step.yaml'])(
    '%s: drawn, complete, and as the JSON says',
    {
      timeout: 120_000,
    },
    async (name) => {
      const file = join(ROOT, 'scenarios', name);
      const html = join(dir, name.replace('.yaml', '.html'));
      const { stdout } = await run('node', [KOVN, 'sim', 'run', file, '--json', '--report', html]);
      const json = JSON.parse(stdout) as {
        results: { step: number; from: string; to: string; allowed: boolean; ok: boolean }[];
      };
      const dom = (await run('chromium', [...CHROMIUM, '--dump-dom', `file://${html}`], { maxBuffer: 64 << 20 }))
        .stdout;
      // Laid out: the page's own check ran after load and found every drawn element with an area.
      const check = /data-render-check="([^"]+)"/.exec(dom);
      expect(check).not.toBeNull();
      const { elements: drawn, empty } = JSON.parse(check![1]!.replace(/&quot;/g, '"')) as {
        elements: number;
        empty: number;
      };
      expect(empty).toBe(0);
      expect(drawn).toBe((dom.match(/data-kind="/g) ?? []).length);
      // Every VPC (and its router), subnet, pod and Service of the scenario has its element.
      const want = await expected(file);
      expect(elements(dom, 'vpc').sort()).toEqual(expect.arrayContaining(want.vpc));
      expect(elements(dom, 'router').sort()).toEqual(elements(dom, 'vpc').sort());
      expect(elements(dom, 'subnet')).toEqual(expect.arrayContaining(want.subnet));
      expect(elements(dom, 'pod').sort()).toEqual([...new Set(want.pod)].sort());
      expect(elements(dom, 'service').sort()).toEqual(want.service.sort());
      // The numbers: the summary and every row's verdict are the JSON's.
      const summary = /id="summary"[^>]*data-total="(\d+)" data-ok="(\d+)" data-failed="(\d+)"/.exec(dom)!;
      expect(summary.slice(1).map(Number)).toEqual([
        json.results.length,
        json.results.filter((r) => r.ok).length,
        json.results.filter((r) => !r.ok).length,
      ]);
      const rows = [...dom.matchAll(/data-probe="(\d+)" data-ok="(true|false)" data-allowed="(true|false)"/g)];
      expect(rows).toHaveLength(json.results.length);
      for (const [, i, ok, allowed] of rows) {
        const r = json.results[Number(i)]!;
        expect([ok === 'true', allowed === 'true']).toEqual([r.ok, r.allowed]);
      }
      // Every probe's trace (or, for one decided before any packet, why) one click away.
      expect((dom.match(/<summary>trace<\/summary>/g) ?? []).length).toBe(json.results.length);
      if (name === 'quickstart.yaml') {
        const png = join(dir, 'quickstart.png');
        await run('chromium', [...CHROMIUM, `--screenshot=${png}`, '--window-size=1400,1100', `file://${html}`]);
        expect(statSync(png).size).toBeGreaterThan(20_000);
      }
    },
  );
});

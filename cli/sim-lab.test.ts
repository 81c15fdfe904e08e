/**
 * The acceptance of the lab backend at the command line: `kovn sim run
 * scenarios/quickstart.yaml --backend lab` passes with the same verdicts as
 * `--backend sim`, and leaves no run dir and no namespace behind. Kill -9
 * and signals of a lab run are in scenarios/lab/world.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../backends/ovn/control-plane/exec.ts';
import { runProcesses, waitNoneRunning } from '../backends/ovn/control-plane/testing/index.ts';
import { labAvailable, linksOf, netnsOf } from '../scenarios/lab/testing.ts';
import { runDirs, startKovn } from './testing/index.ts';

let TMP = '';
// Made in beforeAll, so that a file whose tests are all skipped leaves nothing.
beforeAll(() => {
  TMP = mkdtempSync(join(tmpdir(), 'sim-lab-test-'));
});
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

interface Out {
  readonly backend: string;
  readonly results: readonly { step: number; from: string; to: string; port?: number; allowed: boolean; ok: boolean }[];
}

async function run(backend: string): Promise<{ code: number | null; out: Out; runIds: string[] }> {
  const k = startKovn(['sim', 'run', 'scenarios/quickstart.yaml', '--backend', backend, '--json'], { tmp: TMP });
  // The lab's run id is its run dir's suffix (scenarios/lab/names.ts): seen while the run lives.
  const runIds = new Set<string>();
  let done = false;
  void k.exited.then(() => (done = true));
  while (!done) {
    for (const d of runDirs(TMP)) if (/kovn-lab-/.test(d)) runIds.add(d.split('-').pop() ?? '');
    await sleep(50);
  }
  const { code } = await k.exited;
  await k.closed;
  return { code, out: JSON.parse(k.stdout()) as Out, runIds: [...runIds] };
}

describe.skipIf(!labAvailable('kovn sim run --backend lab'))('kovn sim run --backend lab', () => {
  it('quickstart: exit 0, the same verdict per probe as --backend sim, nothing left', async () => {
    const sim = await run('sim');
    const lab = await run('lab');
    expect([sim.code, lab.code]).toEqual([0, 0]);
    expect(lab.out.backend).toBe('lab');
    const verdicts = (o: Out) => o.results.map((r) => [r.step, r.from, r.to, r.port, r.allowed]);
    expect(verdicts(lab.out)).toEqual(verdicts(sim.out));
    expect(lab.out.results.every((r) => r.ok)).toBe(true);
    expect(runDirs(TMP)).toEqual([]);
    expect(lab.runIds).toHaveLength(1);
    expect([...netnsOf(lab.runIds[0]!), ...linksOf(lab.runIds[0]!)]).toEqual([]);
  });

  it('sim connectivity: every pair the same on lab as on sim', async () => {
    const pairs = async (backend: string) => {
      const args = ['sim', 'connectivity', 'scenarios/default-network.yaml', '--ports', 'TCP/80,UDP/53'];
      const k = startKovn([...args, '--backend', backend, '--json'], { tmp: TMP });
      expect((await k.exited).code).toBe(0);
      await k.closed;
      const out = JSON.parse(k.stdout()) as {
        pairs: { from: string; to: string; protocol: string; allowed: boolean }[];
      };
      return out.pairs.map((p) => `${p.from} -> ${p.to} ${p.protocol}: ${p.allowed}`);
    };
    const sim = await pairs('sim');
    expect(sim).toHaveLength(12);
    expect(await pairs('lab')).toEqual(sim);
  });

  for (const signal of ['SIGKILL', 'SIGINT'] as const) {
    it(`${signal} mid-run: no namespace, run dir or process of the run is left after a few seconds`, async () => {
      const tmp = mkdtempSync(join(TMP, 'kill-'));
      const k = startKovn(['sim', 'run', 'scenarios/quickstart.yaml', '--backend', 'lab'], { tmp });
      // Mid-run: once the run has pods (their namespaces exist).
      const runId = await pollUntil(
        async () => {
          const dir = runDirs(tmp).find((d) => /kovn-lab-/.test(d));
          const id = dir?.split('-').pop();
          return id !== undefined && netnsOf(id).some((n) => /-p\d+$/.test(n)) ? id : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 50, onTimeout: () => new Error(`no pod namespace: ${k.stderr()}`) },
      );
      // kovn's descendants (vswitchd, ovn-controller, the daemons' process, the agents, the run guard) and what names the dir.
      const before = runProcesses(k.pid, tmp);
      expect(before.length).toBeGreaterThan(5);
      k.child.kill(signal);
      await k.exited;
      await waitNoneRunning(before, tmp, { since: performance.now(), boundMs: 10_000 });
      const left = () => [...netnsOf(runId), ...linksOf(runId), ...runDirs(tmp)];
      await pollUntil(async () => (left().length === 0 ? true : undefined), {
        timeoutMs: 10_000,
        onTimeout: () => new Error(`left after ${signal}: ${left().join(', ')}`),
      });
    });
  }
});

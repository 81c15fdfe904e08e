import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from './exec.ts';
import { requireOvn } from './index.ts';
import { procOf, type Proc, running, waitNoneRunning } from './testing/index.ts';

const FIXTURE = fileURLToPath(new URL('./exit-cleanup.fixture.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The fixtures' TMPDIR: their run dirs, and what their guards sweep, stay in it. */
let TMP = '';
// Made in beforeAll, so that a file whose tests are all skipped or filtered out leaves nothing.
beforeAll(() => {
  TMP = mkdtempSync(join(tmpdir(), 'registry-test-'));
});
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

type How = 'exit' | 'throw' | 'signal' | 'abort';

interface Fixture {
  readonly pid: number;
  readonly daemons: Proc[];
  readonly guard: Proc;
  readonly dir: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startFixture(how: How): Promise<Fixture> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, how], {
    cwd: ROOT,
    env: { ...process.env, TMPDIR: TMP },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const line = await pollUntil(async () => (out.includes('\n') ? out.split('\n')[0] : undefined), {
    timeoutMs: 60_000,
    abort: () => (child.exitCode !== null && !out.includes('\n') ? new Error(`fixture failed: ${err}`) : undefined),
    onTimeout: () => new Error(`fixture printed no pids: ${err}`),
  });
  const { pids, dir, guard } = JSON.parse(line) as { pids: number[]; dir: string; guard: number };
  const procs = [...pids, guard].map((p) => procOf(p));
  // A process that already ended (how 'exit') is taken as it was: pid and an impossible start time.
  const [daemons, guardProc] = [procs.slice(0, -1), procs.at(-1)];
  return {
    pid: child.pid as number,
    daemons: daemons.map((p, i) => p ?? { pid: pids[i] as number, start: 'gone', comm: '?' }),
    guard: guardProc ?? { pid: guard, start: 'gone', comm: 'guard' },
    dir,
    exited,
  };
}

describe.skipIf(!requireOvn('registry'))('daemons and run dirs never outlive the process that made them', () => {
  for (const [how, signal] of [
    ['exit', undefined],
    ['throw', undefined],
    ['signal', 'SIGTERM'],
    ['signal', 'SIGINT'],
    ['signal', 'SIGHUP'],
  ] as const) {
    it(`${how}${signal ? ` (${signal})` : ''}: the exit hooks end every daemon and remove the dir`, async () => {
      const f = await startFixture(how);
      expect(f.daemons).toHaveLength(4);
      if (signal !== undefined) process.kill(f.pid, signal);
      await f.exited;
      // Removed before the process ended, by the exit hooks themselves.
      expect(existsSync(f.dir)).toBe(false);
      await waitNoneRunning(f.daemons, f.dir, { since: performance.now(), boundMs: 10_000 });
    });
  }

  for (const how of ['SIGKILL', 'abort'] as const) {
    it(`${how === 'abort' ? "abort() (V8's out-of-memory end)" : 'SIGKILL'}: the run guard ends every daemon and removes the dir`, async () => {
      const f = await startFixture(how === 'abort' ? 'abort' : 'signal');
      expect(f.daemons.every((d) => d.start !== 'gone')).toBe(true);
      process.kill(f.pid, how === 'SIGKILL' ? 'SIGKILL' : 'SIGUSR2');
      expect((await f.exited).signal).toBe(how === 'SIGKILL' ? 'SIGKILL' : 'SIGABRT');
      await waitNoneRunning([...f.daemons, f.guard], f.dir, { since: performance.now(), boundMs: 10_000 });
      expect(existsSync(f.dir)).toBe(false);
    });
  }

  it("a later run removes the dir and ends the daemons of a run whose owner and guard are gone, never a live run's", async () => {
    const dead = await startFixture('signal');
    const live = await startFixture('signal');
    // The guard dies first, so that nothing cleans up after the owner.
    process.kill(dead.guard.pid, 'SIGKILL');
    await waitNoneRunning([dead.guard], undefined, { since: performance.now(), boundMs: 10_000 });
    process.kill(dead.pid, 'SIGKILL');
    await dead.exited;
    expect(dead.daemons.every(running)).toBe(true);
    expect(existsSync(dead.dir)).toBe(true);

    const next = await startFixture('exit');
    await next.exited;
    await waitNoneRunning(dead.daemons, dead.dir, { since: performance.now(), boundMs: 10_000 });
    await pollUntil(async () => (existsSync(dead.dir) ? undefined : true), {
      timeoutMs: 10_000,
      onTimeout: () => new Error(`${dead.dir} is still there`),
    });
    // The live run kept its dir and its daemons.
    expect(existsSync(live.dir)).toBe(true);
    expect(live.daemons.every(running)).toBe(true);
    process.kill(live.pid, 'SIGTERM');
    await live.exited;
    expect(existsSync(live.dir)).toBe(false);
  });
});

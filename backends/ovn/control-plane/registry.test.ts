import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pollUntil } from './exec.ts';
import { requireOvn } from './index.ts';

const FIXTURE = fileURLToPath(new URL('./exit-cleanup.fixture.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Running = exists and not a zombie. The fixture's daemons are its children;
 * once it dies they are reparented to init, which may reap them later.
 */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function runFixture(how: 'exit' | 'throw' | 'signal', signal?: NodeJS.Signals): Promise<number[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, how], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await pollUntil(async () => (out.includes('\n') ? out.split('\n')[0] : undefined), {
    timeoutMs: 60_000,
    abort: () => (child.exitCode !== null && !out.includes('\n') ? new Error(`fixture failed: ${err}`) : undefined),
    onTimeout: () => new Error(`fixture printed no pids: ${err}`),
  });
  const { pids, dir } = JSON.parse(line) as { pids: number[]; dir: string };
  if (signal !== undefined) child.kill(signal);
  await exited;
  await rm(dir, { recursive: true, force: true });
  return pids;
}

describe.skipIf(!requireOvn('registry'))('daemons never outlive the process that started them', () => {
  for (const [how, signal] of [
    ['exit', undefined],
    ['throw', undefined],
    ['signal', 'SIGTERM'],
    ['signal', 'SIGINT'],
  ] as const) {
    it(`${how}${signal ? ` (${signal})` : ''}: every daemon is killed`, async () => {
      const pids = await runFixture(how, signal);
      expect(pids).toHaveLength(3);
      expect(pids.every((p) => p > 0)).toBe(true);
      const left = await pollUntil(async () => (pids.some(running) ? undefined : pids.filter(running)), {
        timeoutMs: 10_000,
        onTimeout: () => new Error(`still running: ${pids.filter(running).join(', ')}`),
      });
      expect(left).toEqual([]);
    });
  }
});

/**
 * Runs the `kovn` executable (cli/bin/kovn.js, what `npx kovn` runs) as a
 * child process for tests of how it ends: signals, closed pipes, faults.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'cli', 'bin', 'kovn.js');

export interface Kovn {
  readonly child: ChildProcess;
  readonly pid: number;
  /** What it wrote so far. */
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** The process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The process ended and its stdout and stderr are closed (all output read). */
  readonly closed: Promise<void>;
}

export interface KovnOptions {
  /** TMPDIR for the run (its run dirs and tsx's cache go there). */
  readonly tmp: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Close our end of its stdout at once: its first write fails with EPIPE. */
  readonly closedStdout?: boolean;
  /** Run inside this network namespace (`ip netns exec`, which execs node: the pid is kovn's). */
  readonly netns?: string;
}

/**
 * @example
 * const k = startKovn(['sim', 'run', 'scenarios/quickstart.yaml'], { tmp });
 * expect((await k.exited).code).toBe(0);
 * await k.closed; // k.stdout() is complete
 */
export function startKovn(args: readonly string[], opts: KovnOptions): Kovn {
  const argv = [process.execPath, BIN, ...args];
  const [cmd, ...rest] = opts.netns === undefined ? argv : ['ip', 'netns', 'exec', opts.netns, ...argv];
  const child = spawn(cmd as string, rest, {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...opts.env, TMPDIR: opts.tmp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  if (opts.closedStdout) child.stdout?.destroy();
  else child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return { child, pid: child.pid as number, stdout: () => out, stderr: () => err, exited, closed };
}

/** The run dirs (`kovn-*`) in a TMPDIR. */
export function runDirs(tmp: string): string[] {
  return readdirSync(tmp)
    .filter((e) => e.startsWith('kovn-'))
    .map((e) => join(tmp, e));
}

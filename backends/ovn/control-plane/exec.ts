/**
 * Running OVN/OVS tools: one-shot commands with a bound on their runtime,
 * the environment every daemon gets, log tails for error messages, and a
 * bounded poll.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { binaryPath, type OvnBinary } from './binaries.ts';
import { ControlPlaneError, type ControlPlaneErrorCode } from './errors.ts';

/**
 * OVS/OVN default their run, db and log directories to /var/run/openvswitch
 * and friends; pointing them at the temp dir keeps a test's files (and any
 * default socket a tool looks for) inside it.
 *
 * @example
 * execFile('ovn-nbctl', ['show'], { env: daemonEnv(cp.dir) }); // finds <dir>/ovnnb_db.sock by default
 */
export function daemonEnv(dir: string): NodeJS.ProcessEnv {
  return { ...process.env, OVS_RUNDIR: dir, OVN_RUNDIR: dir, OVS_DBDIR: dir, OVS_LOGDIR: dir };
}

export interface ToolResult {
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunToolOptions {
  /** Sets OVS_RUNDIR and friends (see {@link daemonEnv}). */
  readonly dir?: string;
  /** Kill the tool after this long; default 30 s. */
  readonly timeoutMs?: number;
  /** Error code to throw on failure; default 'command-failed'. */
  readonly errorCode?: ControlPlaneErrorCode;
}

/**
 * Runs an OVN/OVS tool to completion.
 *
 * @example
 * const { stdout } = await runTool('ovn-nbctl', ['--db=unix:/tmp/kovn-cp-a1/nb.sock', 'ls-list']);
 */
export function runTool(name: OvnBinary, args: readonly string[], opts: RunToolOptions = {}): Promise<ToolResult> {
  const file = binaryPath(name);
  const env = opts.dir === undefined ? process.env : daemonEnv(opts.dir);
  const timeout = opts.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    execFile(file, [...args], { env, timeout, maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const how = error.killed ? `killed after ${timeout} ms` : `exit ${String(error.code ?? error.signal)}`;
        const detail = stderr.trim() || stdout.trim();
        reject(
          new ControlPlaneError(
            opts.errorCode ?? 'command-failed',
            `${name} ${args.join(' ')}: ${how}${detail ? `: ${detail}` : ''}`,
            { cause: error },
          ),
        );
        return;
      }
      resolve({ stdout, stderr });
    });
  });
}

/** The last `lines` lines of a log file, or a note that it is unreadable. */
export function logTail(file: string, lines = 20): string {
  try {
    const text = readFileSync(file, 'utf8').trimEnd();
    return text.split('\n').slice(-lines).join('\n');
  } catch (e) {
    return `(no log at ${file}: ${(e as Error).message})`;
  }
}

export interface PollOptions {
  /** Give up after this long; default 20 s. */
  readonly timeoutMs?: number;
  /** Pause between attempts; default 50 ms. */
  readonly intervalMs?: number;
  /** Builds the error thrown when the bound expires; gets the last error `attempt` threw. */
  readonly onTimeout: (lastError: unknown) => Error;
  /** Checked before each attempt: an Error ends the poll at once (e.g. the daemon died). */
  readonly abort?: () => Error | undefined;
}

/**
 * Calls `attempt` until it returns a value other than `undefined`; errors it
 * throws count as "not yet". When the bound expires, throws `onTimeout(...)`.
 *
 * @example
 * await pollUntil(async () => (existsSync(sock) ? true : undefined), {
 *   onTimeout: () => new ControlPlaneError('not-ready', `${sock}: never appeared`),
 * });
 */
export async function pollUntil<T>(attempt: () => Promise<T | undefined>, opts: PollOptions): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const intervalMs = opts.intervalMs ?? 50;
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const aborted = opts.abort?.();
    if (aborted !== undefined) throw aborted;
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (e) {
      lastError = e;
    }
    if (performance.now() >= deadline) throw opts.onTimeout(lastError);
    await sleep(intervalMs);
  }
}

/**
 * The run guard's client: one guard process per process that starts
 * daemons or makes run dirs, started on first use (guard-main.mjs says what
 * the guard does). This side only tells it what the run owns, a line per
 * fact, written as it happens, so that whatever the guard knows at our death
 * is what we had.
 *
 * The guard is spawned detached (its own session): a Ctrl-C or a hangup of
 * our terminal does not reach it, and it ends only at EOF of the pipe,
 * which the kernel closes when we die by any means. The pipe is close-on-exec
 * in our children (libuv creates it so), so no daemon holds it open.
 */
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { OVN_BINARIES } from './binaries.ts';
import { selfOwner } from './proc.mjs';

const GUARD_MAIN = fileURLToPath(new URL('./guard-main.mjs', import.meta.url));

/** undefined: not started yet; null: none (no /proc, or it could not start). */
let pipe: Socket | null | undefined;
let guardPid: number | undefined;

function start(): Socket | null {
  const owner = selfOwner();
  if (owner === undefined) return null;
  // The guard is plain JavaScript: no loader options (a tsx --import) are passed on.
  const env = { ...process.env, NODE_OPTIONS: '' };
  const child = spawn(
    process.execPath,
    ['--max-old-space-size=64', GUARD_MAIN, JSON.stringify(owner), OVN_BINARIES.join(',')],
    { stdio: ['pipe', 'ignore', 'ignore'], detached: true, env },
  );
  const stdin = child.stdin as Socket | null;
  if (stdin === null) return null;
  // A guard that failed to start or died: the in-process exit hooks still
  // run, and a later run's guard sweeps what is left.
  child.once('error', () => (pipe = null));
  stdin.on('error', () => (pipe = null));
  // Neither the guard nor its pipe may keep our event loop alive.
  child.unref();
  stdin.unref();
  guardPid = child.pid;
  return stdin;
}

function send(line: string): void {
  if (pipe === undefined) pipe = start();
  pipe?.write(`${line}\n`);
}

/**
 * Tells the guard about a daemon of the run.
 *
 * @example
 * guardWatch(child.pid, startTimeOf(child.pid));
 */
export function guardWatch(pid: number, start: string): void {
  send(`pid ${pid} ${start}`);
}

/** The daemon was stopped: the guard forgets it. */
export function guardForget(pid: number): void {
  if (pipe) send(`gone ${pid}`);
}

/** A run dir (holding an owner marker): the guard removes it if we die first. */
export function guardDir(dir: string): void {
  send(`dir ${dir}`);
}

/** The run dir was removed by us. */
export function guardUndir(dir: string): void {
  if (pipe) send(`undir ${dir}`);
}

/** The guard's pid, once started (for tests). */
export function runGuardPid(): number | undefined {
  return guardPid;
}

/**
 * Every daemon this process starts, and every run dir it makes, is tracked
 * here until it is gone: when the process exits (normally, on an uncaught
 * exception, or on SIGINT/SIGTERM/SIGHUP) the daemons, and the OVN/OVS tools
 * still writing into the dirs, are SIGKILLed and the dirs removed,
 * synchronously. Where no JavaScript runs at death (SIGKILL,
 * V8's out-of-memory abort) the run guard (run-guard.ts), told of each one
 * here, does the same from outside.
 *
 * Most daemons are our children; ovn-trace must run --detach and so is not,
 * and lingers as a zombie until init reaps it (here init reaps every ~2 s,
 * and some containers never do). "Alive" therefore means: the pid exists, is
 * not a zombie, and has the start time we recorded (so a recycled pid is
 * never mistaken for, or killed as, our daemon).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ControlPlaneError } from './errors.ts';
import { OVN_BINARIES } from './binaries.ts';
import { isRunning, killAllSync, procStat, processesNaming, removeDirSync } from './proc.mjs';
import { guardDir, guardForget, guardUndir, guardWatch } from './run-guard.ts';

export interface TrackedPid {
  readonly pid: number;
  readonly name: string;
  /** Field 22 of /proc/<pid>/stat, or '' where /proc is unavailable. */
  readonly startTime: string;
  /** For our own children: settles once Node has reaped the process. */
  readonly reaped?: Promise<unknown>;
}

const tracked = new Map<number, TrackedPid>();
const runDirs = new Set<string>();
let hooksInstalled = false;

/** Registers a freshly started daemon; returns its identity for later checks. */
export function track(pid: number, name: string, reaped?: Promise<unknown>): TrackedPid {
  installExitHooks();
  const stat = procStat(pid);
  const startTime = typeof stat === 'object' ? stat.start : '';
  const t: TrackedPid = reaped === undefined ? { pid, name, startTime } : { pid, name, startTime, reaped };
  tracked.set(pid, t);
  if (startTime !== '') guardWatch(pid, startTime);
  return t;
}

/**
 * Registers a run dir this process made (holding its owner marker): removed
 * at exit, or by the guard if we die first, unless {@link releaseRunDir}
 * was called.
 */
export function trackRunDir(dir: string): void {
  installExitHooks();
  runDirs.add(dir);
  guardDir(dir);
}

/** The dir was removed (or is to be kept): nobody removes it any more. */
export function releaseRunDir(dir: string): void {
  if (runDirs.delete(dir)) guardUndir(dir);
}

/** True while the tracked process runs (not a zombie, same start time). */
export function isAlive(t: TrackedPid): boolean {
  return isRunning(t.pid, t.startTime);
}

function send(t: TrackedPid, signal: NodeJS.Signals): void {
  if (!isAlive(t)) return;
  try {
    process.kill(t.pid, signal);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

/**
 * Our own children are gone once reaped (then `kill -0` fails too); a
 * detached daemon is gone once it is not alive: its zombie, if any, is the
 * init process's to reap.
 */
async function waitGone(t: TrackedPid, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  let reaped = t.reaped === undefined;
  void t.reaped?.then(() => (reaped = true));
  while (!reaped || isAlive(t)) {
    if (performance.now() >= deadline) return false;
    await sleep(5);
  }
  return true;
}

/**
 * Stops a tracked pid and waits until it is gone: `signal` first (default
 * SIGTERM, which OVS daemons handle by removing their pidfile and sockets),
 * then SIGKILL after `graceMs`.
 */
export async function stopPid(t: TrackedPid, opts: { signal?: NodeJS.Signals; graceMs?: number } = {}): Promise<void> {
  const signal = opts.signal ?? 'SIGTERM';
  send(t, signal);
  if (!(await waitGone(t, opts.graceMs ?? 5_000)) && signal !== 'SIGKILL') {
    send(t, 'SIGKILL');
  }
  if (!(await waitGone(t, 5_000))) {
    throw new ControlPlaneError('stop-failed', `${t.name} (pid ${t.pid}): still running after SIGKILL`);
  }
  tracked.delete(t.pid);
  guardForget(t.pid);
}

/**
 * Pids started by this process and not yet stopped (for tests and diagnostics).
 *
 * @example
 * expect(trackedPids().map((t) => t.pid)).not.toContain(oldPid);
 */
export function trackedPids(): readonly TrackedPid[] {
  return [...tracked.values()];
}

const EXIT_WAIT_MS = 2_000;

const PROGRAMS: ReadonlySet<string> = new Set(OVN_BINARIES);

/**
 * SIGKILLs every tracked daemon and every OVN/OVS process whose command line
 * names a run dir, waits (at most 2 s) until none runs, then removes every
 * run dir: the dirs go only once nothing can write into them. The second
 * set is not tracked by pid: one-shot tools (`ovsdb-tool create` writes the
 * db and its lock file) and a detached daemon until its launcher returned.
 * Left running, they write into a dir while it is removed, the removal
 * fails (ENOTEMPTY) and the dir stays without its owner marker, which
 * neither the run guard nor a later run's sweep then removes.
 * Synchronous on purpose: 'exit' listeners cannot await.
 */
export function endRunSync(): void {
  const targets = [...tracked.values()].map((t) => ({ pid: t.pid, start: t.startTime }));
  tracked.clear();
  const dirs = [...runDirs];
  killAllSync([...targets, ...processesNaming(dirs, PROGRAMS)], EXIT_WAIT_MS);
  for (const dir of dirs) removeDirSync(dir);
  runDirs.clear();
}

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', endRunSync);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      endRunSync();
      process.removeListener(signal, onSignal);
      // Only re-raise when we were the sole listener: otherwise whoever else
      // listens (a test runner) decides how the process ends.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

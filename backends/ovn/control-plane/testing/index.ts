/**
 * Process checks for fault tests: which processes belong to a run (the
 * descendants of its process, and any process whose command line names its
 * dir, as the detached ovn-trace daemon does) and whether they still run.
 * A process is identified by pid and start time, so a reused pid is never
 * taken for one of ours. It reads /proc itself, not through proc.mjs: it
 * checks what the exit hooks and the run guard did, so it does not share
 * their reading of /proc.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { pollUntil } from '../exec.ts';

export interface Proc {
  readonly pid: number;
  /** Field 22 of /proc/<pid>/stat. */
  readonly start: string;
  readonly comm: string;
}

function stat(pid: number): { state: string; ppid: number; start: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: f[0] ?? '', ppid: Number(f[1]), start: f[19] ?? '' };
  } catch {
    return undefined;
  }
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** True while the process runs: it exists, is not a zombie, and has the same start time. */
export function running(p: Pick<Proc, 'pid' | 'start'>): boolean {
  const s = stat(p.pid);
  return s !== undefined && s.state !== 'Z' && s.state !== 'X' && s.start === p.start;
}

/** The process as {@link Proc}, or undefined when it does not run. */
export function procOf(pid: number): Proc | undefined {
  const s = stat(pid);
  if (s === undefined || s.state === 'Z' || s.state === 'X') return undefined;
  return { pid, start: s.start, comm: read(`/proc/${pid}/comm`).trim() };
}

function allProcs(): { proc: Proc; ppid: number; args: string[] }[] {
  const out: { proc: Proc; ppid: number; args: string[] }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const s = stat(pid);
    if (s === undefined || s.state === 'Z' || s.state === 'X') continue;
    const comm = read(`/proc/${pid}/comm`).trim();
    out.push({ proc: { pid, start: s.start, comm }, ppid: s.ppid, args: read(`/proc/${pid}/cmdline`).split('\0') });
  }
  return out;
}

/**
 * The running processes of a run: `root` and its descendants, and every
 * process whose command line names `dir` (or a path inside it).
 *
 * @example
 * const before = runProcesses(kovn.pid, dir); // kovn, the guard, ovsdb-servers, northd, ovn-trace
 */
export function runProcesses(root: number | undefined, dir: string | undefined): Proc[] {
  const all = allProcs();
  const found = new Map<number, Proc>();
  const naming = (a: string) => dir !== undefined && (a === dir || a.includes(`${dir}/`));
  for (const p of all) if (p.args.some(naming)) found.set(p.proc.pid, p.proc);
  if (root !== undefined) {
    const queue = [root];
    while (queue.length > 0) {
      const pid = queue.shift() as number;
      for (const p of all) {
        if (p.proc.pid === pid && !found.has(pid)) found.set(pid, p.proc);
        if (p.ppid === pid && !found.has(p.proc.pid)) {
          found.set(p.proc.pid, p.proc);
          queue.push(p.proc.pid);
        }
      }
    }
  }
  return [...found.values()];
}

/**
 * Polls until none of `procs` runs and no process names `dir`; resolves
 * with the milliseconds from `since` (a `performance.now()` reading, e.g.
 * taken at the kill) until then, or rejects with what still runs `boundMs`
 * after `since` (a generous bound: the caller asserts a stated requirement).
 *
 * @example
 * const t0 = performance.now();
 * process.kill(pid, 'SIGKILL');
 * const ms = await waitNoneRunning(before, dir, { since: t0, boundMs: 30_000 });
 */
export async function waitNoneRunning(
  procs: readonly Proc[],
  dir: string | undefined,
  opts: { readonly since: number; readonly boundMs: number },
): Promise<number> {
  let left: Proc[] = [];
  await pollUntil(
    async () => {
      const named = runProcesses(undefined, dir).filter((p) => !procs.some((q) => q.pid === p.pid));
      left = [...procs.filter(running), ...named];
      return left.length === 0 ? true : undefined;
    },
    {
      timeoutMs: opts.boundMs - (performance.now() - opts.since),
      intervalMs: 5,
      onTimeout: () =>
        new Error(
          `still running after ${Math.round(performance.now() - opts.since)} ms: ${left.map((p) => `${p.comm} ${p.pid}`).join(', ')}`,
        ),
    },
  );
  return performance.now() - opts.since;
}

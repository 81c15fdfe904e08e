// The run guard: a small process that outlives the kovn process it watches,
// so that daemons and temp dirs never outlive a run, however the run ends.
// Plain JavaScript on purpose: it starts with a bare `node` (no TypeScript
// loader, no loader cache in TMPDIR) and imports only proc.mjs, plain
// JavaScript too, which the exit hooks share (start times, liveness, the
// owner marker, ending processes and dirs).
//
// Started by run-guard.ts with stdin a pipe from its owner and argv
//   <owner JSON: {"pid","start","boot","pidns"}> <comma-separated program names>
// Lines on stdin:
//   pid <pid> <start>   a daemon of the run (start: field 22 of /proc/<pid>/stat)
//   gone <pid>          that daemon was stopped by its owner
//   dir <path>          a temp dir of the run, holding kovn-owner.json
//   undir <path>        that dir was removed by its owner
//
// At start it sweeps TMPDIR: every kovn-* dir whose kovn-owner.json names an
// owner that is gone (pid exited, or reused by another process: the start
// time differs; another boot) loses its processes and is removed. A dir
// without a marker, or with an owner in another pid namespace, is never
// touched.
//
// At EOF on stdin (the owner exited, normally, by a signal, by SIGKILL or by
// V8's out-of-memory abort: the kernel closes the pipe in every case) it
// SIGKILLs every daemon still alive with its recorded start time and every
// process of the named programs whose command line names one of the run's
// dirs (the detached ovn-trace daemon before its pidfile was read, one-shot
// tools), waits until they are gone, removes the dirs whose marker names its
// owner, and exits.
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning, killAllSync, processesNaming, readOwnerMarker, removeDirSync, selfOwner } from './proc.mjs';

const WAIT_GONE_MS = 2_000;

const owner = JSON.parse(process.argv[2] ?? '{}');
const programs = new Set((process.argv[3] ?? '').split(',').filter(Boolean));
/** pid → start time */
const pids = new Map();
const dirs = new Set();
/** This guard's boot and pid namespace; undefined without /proc: nothing can be judged. */
const here = selfOwner();

/** 'gone', 'alive', or 'unknown' (another pid namespace: never judged). */
function ownerState(o) {
  if (typeof o !== 'object' || o === null || !Number.isInteger(o.pid)) return 'unknown';
  if (here === undefined || o.pidns !== here.pidns) return 'unknown';
  if (o.boot !== here.boot) return 'gone';
  return isRunning(o.pid, String(o.start)) ? 'alive' : 'gone';
}

function sameOwner(a, b) {
  return typeof a === 'object' && a !== null && a.pid === b.pid && String(a.start) === String(b.start);
}

/** Dirs of runs whose owner is gone: their processes end, the dirs go. */
function sweepStale() {
  const base = tmpdir();
  let entries = [];
  try {
    entries = readdirSync(base);
  } catch {
    return;
  }
  const stale = entries
    .filter((e) => e.startsWith('kovn-'))
    .map((e) => join(base, e))
    .filter((d) => {
      const m = readOwnerMarker(d);
      return m !== undefined && ownerState(m) === 'gone';
    });
  if (stale.length === 0) return;
  killAllSync(processesNaming(stale, programs), WAIT_GONE_MS);
  for (const d of stale) removeDirSync(d);
}

function endRun() {
  const runDirs = [...dirs];
  const targets = [...pids].map(([pid, start]) => ({ pid, start }));
  killAllSync([...targets, ...processesNaming(runDirs, programs)], WAIT_GONE_MS);
  for (const d of runDirs) if (sameOwner(readOwnerMarker(d), owner)) removeDirSync(d);
  process.exit(0);
}

function onLine(line) {
  const [verb, arg, start] = line.split(' ');
  // A start time is required: isRunning takes '' as "any process with that pid".
  if (verb === 'pid' && arg !== undefined && start) pids.set(Number(arg), start);
  else if (verb === 'gone') pids.delete(Number(arg));
  else if (verb === 'dir' && arg !== undefined) dirs.add(line.slice(4));
  else if (verb === 'undir') dirs.delete(line.slice(6));
}

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let nl = buffered.indexOf('\n');
  while (nl >= 0) {
    onLine(buffered.slice(0, nl));
    buffered = buffered.slice(nl + 1);
    nl = buffered.indexOf('\n');
  }
});
process.stdin.on('end', endRun);
process.stdin.on('error', endRun);

sweepStale();

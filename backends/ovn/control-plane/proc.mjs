// What the exit hooks (registry.ts), run dirs (run-dir.ts) and the run guard
// (guard-main.mjs) all need to know of a process, once: its start time and
// whether it still runs (from /proc), who owns a run dir (the owner marker),
// and how a run's processes and dirs are ended synchronously.
// Plain JavaScript importing only Node's modules, because the guard runs it
// with a bare `node`; proc.d.mts gives its types to the TypeScript side.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const OWNER_MARKER = 'kovn-owner.json';

/**
 * A run dir's list of the network namespaces the run made (one name a line,
 * appended before each is made): they go with the dir, however the run ends.
 */
export const NETNS_LIST = 'kovn-netns';

export function procStat(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (e) {
    return e.code === 'ENOENT' || e.code === 'ESRCH' ? 'gone' : 'no-proc';
  }
  // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', start: fields[19] ?? '' };
}

function signalExists(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

export function isRunning(pid, start) {
  const stat = procStat(pid);
  if (stat === 'gone') return false;
  if (stat === 'no-proc') return signalExists(pid);
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return start === '' || stat.start === start;
}

export function selfOwner() {
  try {
    const stat = procStat('self');
    if (typeof stat !== 'object') return undefined;
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return { pid: process.pid, start: stat.start, boot, pidns: readlinkSync('/proc/self/ns/pid') };
  } catch {
    return undefined;
  }
}

export function writeOwnerMarker(dir, owner) {
  writeFileSync(join(dir, OWNER_MARKER), `${JSON.stringify(owner)}\n`);
}

export function readOwnerMarker(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, OWNER_MARKER), 'utf8'));
  } catch {
    return undefined;
  }
}

function readOr(path, fallback) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
}

/** True when `arg` names `dir` itself or a path inside it. */
function names(arg, dir) {
  for (let i = arg.indexOf(dir); i >= 0; i = arg.indexOf(dir, i + 1)) {
    const next = arg[i + dir.length];
    if (next === undefined || next === '/') return true;
  }
  return false;
}

export function processesNaming(inDirs, programs) {
  const found = [];
  if (inDirs.length === 0) return found;
  let entries = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    if (!programs.has(readOr(`/proc/${pid}/comm`, '').trim())) continue;
    const args = readOr(`/proc/${pid}/cmdline`, '').split('\0');
    if (!args.some((a) => inDirs.some((d) => names(a, d)))) continue;
    const s = procStat(pid);
    if (typeof s === 'object' && s.state !== 'Z' && s.state !== 'X') found.push({ pid, start: s.start });
  }
  return found;
}

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function killAllSync(targets, waitMs) {
  for (const t of targets) {
    if (!isRunning(t.pid, t.start)) continue;
    try {
      process.kill(t.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const deadline = performance.now() + waitMs;
  while (targets.some((t) => isRunning(t.pid, t.start)) && performance.now() < deadline) sleepSync(5);
}

export function removeDirSync(dir) {
  removeNetnsOfSync(dir);
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // nothing more to do here: the guard, or a later run's sweep, tries again
  }
}

// The namespaces a run dir lists are deleted (`ip netns del`; one already gone
// is fine). Deleting a namespace also destroys the veth pairs with an end in it.
export function removeNetnsOfSync(dir) {
  let names = [];
  try {
    names = readFileSync(join(dir, NETNS_LIST), 'utf8')
      .split('\n')
      .filter((n) => /^[\w.-]+$/.test(n));
  } catch {
    return;
  }
  for (const n of new Set(names)) spawnSync('ip', ['netns', 'del', n], { stdio: 'ignore', timeout: 5_000 });
}

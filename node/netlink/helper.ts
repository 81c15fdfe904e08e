/**
 * Starting the in-namespace helper (ns-helper.cjs): `nsenter` enters the
 * namespace through the descriptor the daemon holds (passed as fd 3, so the
 * helper works on exactly the namespace the veth's peer was created in, even
 * if its path has been unmounted or reused meanwhile), then executes a bare
 * `node` on the plain-JavaScript helper.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Timers, systemTimers } from '../../backends/ovn/ovsdb/index.ts';
import type { HelperJob, HelperReply } from './helper-protocol.ts';
import { NetlinkError } from './types.ts';

/** One helper run: the job, and the open descriptor of the namespace to run it in. */
export interface HelperRequest {
  /** The namespace to enter; absent: the helper runs in the daemon's own (host links). */
  readonly netnsFd?: number;
  /** The daemon's own namespace, given to the helper as fd 4 (a release job moves a link there). */
  readonly hostNetnsFd?: number;
  readonly job: HelperJob;
  /** For messages: the namespace's path as the caller gave it. */
  readonly netns: string;
}

/** Runs a job in a namespace; throws NetlinkError HELPER when the helper itself fails (not the kernel). */
export type RunHelper = (req: HelperRequest) => Promise<HelperReply>;

export interface SpawnHelperOptions {
  /** Default: this process's node. */
  readonly node?: string;
  /** Default: `nsenter` on PATH (util-linux). */
  readonly nsenter?: string;
  /** Default: ns-helper.cjs beside this file. */
  readonly script?: string;
  /**
   * How long a helper may take before it is killed and the call fails with
   * HELPER (default 10,000 ms; it takes well under a second even on a busy
   * machine), so that a stuck helper cannot hold an ADD forever.
   */
  readonly timeoutMs?: number;
  /** Default: Node's timers. */
  readonly timers?: Timers;
}

/** Where the helper script is, for a bundle that must ship it beside itself. */
export const NS_HELPER_SCRIPT = fileURLToPath(new URL('./ns-helper.cjs', import.meta.url));

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * A RunHelper that spawns `nsenter --net=/proc/self/fd/3 -- node ns-helper.cjs`
 * (or the bare `node` for the daemon's own namespace).
 *
 * @example
 * const run = spawnHelper();
 * const reply = await run({ netnsFd: fd, netns: '/run/netns/p', job: { op: 'inspect', ifName: 'eth0' } });
 */
export function spawnHelper(opts: SpawnHelperOptions = {}): RunHelper {
  const node = opts.node ?? process.execPath;
  const nsenter = opts.nsenter ?? 'nsenter';
  const script = opts.script ?? NS_HELPER_SCRIPT;
  const timers = opts.timers ?? systemTimers;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return (req) => {
    const where = req.netnsFd === undefined ? 'the host namespace' : req.netns;
    const what = `netlink helper (${req.job.op} ${req.job.ifName} in ${where})`;
    const enter = req.netnsFd === undefined ? [] : [nsenter, '--net=/proc/self/fd/3', '--'];
    const [cmd, ...args] = [...enter, node, script];
    // A bare environment: a test runner's NODE_OPTIONS (loaders) would slow every start.
    const child = spawn(cmd!, args, {
      stdio: ['pipe', 'pipe', 'pipe', req.netnsFd ?? 'ignore', req.hostNetnsFd ?? 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' },
    });
    // A helper that ends before reading its job makes the write fail (EPIPE); its exit says why.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(JSON.stringify(req.job));
    return replyOf(child, { what, cmd: cmd!, timers, timeoutMs });
  };
}

/** The helper's one-line reply, or a HELPER error: it could not start, ended without one, or took too long. */
function replyOf(
  child: ChildProcess,
  o: { what: string; cmd: string; timers: Timers; timeoutMs: number },
): Promise<HelperReply> {
  return new Promise<HelperReply>((resolve, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = o.timers.setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, o.timeoutMs);
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      o.timers.clearTimeout(timer);
      reject(new NetlinkError('HELPER', `${o.what}: cannot start ${o.cmd}: ${e.message}`, e));
    });
    child.on('close', (code, signal) => {
      o.timers.clearTimeout(timer);
      if (timedOut) {
        reject(new NetlinkError('HELPER', `${o.what} did not answer within ${o.timeoutMs} ms (killed)`));
        return;
      }
      const text = Buffer.concat(out).toString('utf8').trim();
      try {
        resolve(JSON.parse(text.slice(text.lastIndexOf('\n') + 1)) as HelperReply);
      } catch (e) {
        const how = signal === null ? `exited with ${code}` : `was killed by ${signal}`;
        const stderr = Buffer.concat(err).toString('utf8').trim().slice(-500);
        reject(new NetlinkError('HELPER', `${o.what} ${how} without a reply: ${stderr || '(no stderr)'}`, e));
      }
    });
  });
}

/**
 * Starting the in-namespace helper (ns-helper.cjs): `nsenter` enters the
 * namespace through the descriptor the daemon holds (passed as fd 3, so the
 * helper works on exactly the namespace the veth's peer was created in, even
 * if its path has been unmounted or reused meanwhile), then executes a bare
 * `node` on the plain-JavaScript helper.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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
}

/** Where the helper script is, for a bundle that must ship it beside itself. */
export const NS_HELPER_SCRIPT = fileURLToPath(new URL('./ns-helper.cjs', import.meta.url));

/**
 * A RunHelper that spawns `nsenter --net=/proc/self/fd/3 -- node ns-helper.cjs`.
 *
 * @example
 * const run = spawnHelper();
 * const reply = await run({ netnsFd: fd, netns: '/run/netns/p', job: { op: 'inspect', ifName: 'eth0' } });
 */
export function spawnHelper(opts: SpawnHelperOptions = {}): RunHelper {
  const node = opts.node ?? process.execPath;
  const nsenter = opts.nsenter ?? 'nsenter';
  const script = opts.script ?? NS_HELPER_SCRIPT;
  return (req) =>
    new Promise<HelperReply>((resolve, reject) => {
      const where = req.netnsFd === undefined ? 'the host namespace' : req.netns;
      const what = `netlink helper (${req.job.op} ${req.job.ifName} in ${where})`;
      // A bare environment: a test runner's NODE_OPTIONS (loaders) would slow every start.
      const enter = req.netnsFd === undefined ? [] : [nsenter, '--net=/proc/self/fd/3', '--'];
      const [cmd, ...args] = [...enter, node, script];
      const child = spawn(cmd!, args, {
        stdio: ['pipe', 'pipe', 'pipe', req.netnsFd ?? 'ignore', req.hostNetnsFd ?? 'ignore'],
        env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' },
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout?.on('data', (b: Buffer) => out.push(b));
      child.stderr?.on('data', (b: Buffer) => err.push(b));
      child.on('error', (e) => reject(new NetlinkError('HELPER', `${what}: cannot start ${cmd}: ${e.message}`, e)));
      child.on('close', (code, signal) => {
        const text = Buffer.concat(out).toString('utf8').trim();
        try {
          resolve(JSON.parse(text.slice(text.lastIndexOf('\n') + 1)) as HelperReply);
        } catch (e) {
          const how = signal === null ? `exited with ${code}` : `was killed by ${signal}`;
          const stderr = Buffer.concat(err).toString('utf8').trim().slice(-500);
          reject(new NetlinkError('HELPER', `${what} ${how} without a reply: ${stderr || '(no stderr)'}`, e));
        }
      });
      child.stdin?.end(JSON.stringify(req.job));
    });
}

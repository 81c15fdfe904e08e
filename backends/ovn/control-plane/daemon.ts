/**
 * One OVS/OVN daemon: an explicit pidfile, unixctl socket and log file in
 * its directory, `--no-chdir`, and OVS_RUNDIR and friends pointed there.
 *
 * By default the daemon runs in the foreground as our child, so that once
 * stop() resolves the pid has been reaped and `kill -0` fails. ovn-trace
 * serves queries only with --detach; then the launcher exits once the daemon
 * called daemonize_complete() (for ovn-trace: after reading the DB) and the
 * daemon is found through its pidfile.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { binaryPath, type OvnBinary } from './binaries.ts';
import { ControlPlaneError } from './errors.ts';
import { daemonEnv, logTail, pollUntil } from './exec.ts';
import { isAlive, stopPid, track, type TrackedPid } from './registry.ts';

/** A running daemon, stopped by pid. */
export interface ProcessHandle {
  readonly name: string;
  /** The daemon's pid (the latest one after a restart). */
  readonly pid: number;
  readonly pidfile: string;
  /** The unixctl socket, for `ovs-appctl -t <ctl>` / `ovn-appctl -t <ctl>`. */
  readonly ctl: string;
  readonly logFile: string;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the pid is gone. */
  stop(): Promise<void>;
  /** Hard kill for fault tests (default SIGKILL: no cleanup); resolves once the pid is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface DaemonSpec {
  readonly dir: string;
  /** File stem: `<dir>/<name>.pid`, `.ctl`, `.log`. */
  readonly name: string;
  readonly binary: OvnBinary;
  /** Daemon-specific arguments, after the common ones. */
  readonly args: readonly string[];
  /** Run with --detach instead of as our child (ovn-trace needs it). */
  readonly detach?: boolean;
  /** Bound on coming up (default 30 s). */
  readonly startTimeoutMs?: number;
  /**
   * False for daemons without `--unixctl` (ovn-controller 23.03): their socket
   * is `<dir>/<binary>.<pid>.ctl` (OVN_RUNDIR is the dir). Default true.
   */
  readonly unixctlOption?: boolean;
  /**
   * Address-space limit (RLIMIT_AS, through util-linux prlimit, which execs
   * the daemon: same pid). For daemons that can grow without bound on bad
   * input (ovn-controller expanding a match): they fail alone instead of
   * the kernel's OOM killer picking among everything on the machine.
   */
  readonly memoryLimitBytes?: number;
  /**
   * Run inside this network namespace (`ip netns exec`, which execs the
   * daemon: same pid). The lab's ovs-vswitchd runs in a namespace of its run,
   * so its devices (br-int's tap, the host ends of veths) go with it.
   */
  readonly netns?: string;
}

const IP = ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'].find((p) => existsSync(p)) ?? 'ip';

const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p));

/** Unix socket paths are limited to 107 bytes (sun_path). */
export const MAX_SOCKET_PATH = 107;

export function checkSocketPath(path: string, what: string): void {
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_SOCKET_PATH) {
    throw new ControlPlaneError(
      'start-failed',
      `${what}: socket path ${path} is ${bytes} bytes, over the ${MAX_SOCKET_PATH}-byte limit; use a shorter directory`,
    );
  }
}

function readPid(pidfile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(pidfile, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the last 64 KiB of a daemon's stderr for error messages. */
function captureStderr(child: ChildProcess): () => string {
  let text = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    text = (text + chunk).slice(-65_536);
  });
  // Neither the pipe nor the child may keep the event loop (a test worker) alive.
  (child.stderr as Socket | null)?.unref();
  child.unref();
  return () => text;
}

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

function describeExit(exit: Exit): string {
  return exit.code === null ? `killed by ${exit.signal}` : `exit ${exit.code}`;
}

/**
 * A daemon that can be started, stopped and started again with the same
 * files. Created stopped; call {@link start}.
 */
export class DaemonProcess implements ProcessHandle {
  readonly name: string;
  readonly pidfile: string;
  readonly logFile: string;
  readonly #ctl: string;
  #current: TrackedPid | undefined;
  #lastPid = 0;
  #stderr: () => string = () => '';

  constructor(readonly spec: DaemonSpec) {
    this.name = spec.name;
    this.pidfile = `${spec.dir}/${spec.name}.pid`;
    this.#ctl = `${spec.dir}/${spec.name}.ctl`;
    this.logFile = `${spec.dir}/${spec.name}.log`;
  }

  get pid(): number {
    return this.#current?.pid ?? this.#lastPid;
  }

  get ctl(): string {
    return this.spec.unixctlOption === false ? `${this.spec.dir}/${this.spec.binary}.${this.pid}.ctl` : this.#ctl;
  }

  get running(): boolean {
    return this.#current !== undefined && isAlive(this.#current);
  }

  /**
   * Starts the daemon; resolves once its pidfile names it (and, detached,
   * once the launcher returned). `args` replaces the spec's arguments for
   * this start (a restart pins a port the first start let the kernel choose).
   */
  async start(args: readonly string[] = this.spec.args): Promise<void> {
    checkSocketPath(this.#ctl, this.name);
    const unixctl = this.spec.unixctlOption === false ? [] : [`--unixctl=${this.#ctl}`];
    const common = ['--no-chdir', `--pidfile=${this.pidfile}`, ...unixctl, `--log-file=${this.logFile}`];
    const file = binaryPath(this.spec.binary);
    const all = [...(this.spec.detach ? ['--detach'] : []), ...common, ...args];
    const pid = this.spec.detach ? await this.#startDetached(file, all) : await this.#startChild(file, all);
    this.#lastPid = pid;
  }

  async #startChild(file: string, args: readonly string[]): Promise<number> {
    const limit = this.spec.memoryLimitBytes;
    const inNetns = this.spec.netns === undefined ? [] : [IP, 'netns', 'exec', this.spec.netns];
    const [cmd, ...argv] = [
      ...(limit !== undefined && PRLIMIT !== undefined ? [PRLIMIT, `--as=${limit}`, '--'] : []),
      ...inNetns,
      file,
      ...args,
    ] as [string, ...string[]];
    const child = spawn(cmd, argv, { env: daemonEnv(this.spec.dir), stdio: ['ignore', 'ignore', 'pipe'] });
    this.#stderr = captureStderr(child);
    let exit: Exit | undefined;
    const reaped = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    void reaped.then((e) => (exit = e));
    const spawned = await new Promise<Error | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined));
      child.once('error', resolve);
    });
    if (spawned !== undefined || child.pid === undefined) {
      throw this.startError(`cannot spawn ${file}: ${spawned?.message ?? 'no pid'}`);
    }
    const pid = child.pid;
    this.#current = track(pid, this.name, reaped);
    // The pidfile is written early (daemonize_start); until then the daemon is not set up.
    await pollUntil(async () => (readPid(this.pidfile) === pid ? true : undefined), {
      timeoutMs: this.spec.startTimeoutMs ?? 30_000,
      intervalMs: 5,
      abort: () =>
        exit === undefined ? undefined : this.startError(`pid ${pid} ${describeExit(exit)} while starting`),
      onTimeout: () => this.startError(`pidfile never named pid ${pid}`),
    }).catch(async (e: unknown) => {
      await this.kill();
      throw e;
    });
    return pid;
  }

  async #startDetached(file: string, args: readonly string[]): Promise<number> {
    const launcher = spawn(file, [...args], { env: daemonEnv(this.spec.dir), stdio: ['ignore', 'ignore', 'pipe'] });
    this.#stderr = captureStderr(launcher);
    const timer = setTimeout(() => launcher.kill('SIGKILL'), this.spec.startTimeoutMs ?? 30_000);
    const exit = await new Promise<Exit | Error>((resolve) => {
      launcher.once('error', resolve);
      launcher.once('exit', (code, signal) => resolve({ code, signal }));
    }).finally(() => clearTimeout(timer));
    if (exit instanceof Error) throw this.startError(`cannot spawn ${file}: ${exit.message}`);
    const pid = readPid(this.pidfile);
    if (exit.code !== 0 || pid === undefined) {
      throw this.startError(`launcher ${describeExit(exit)}${pid === undefined ? ', no pid in pidfile' : ''}`);
    }
    this.#current = track(pid, this.name);
    if (!isAlive(this.#current)) throw this.startError(`pid ${pid} exited right after starting`);
    return pid;
  }

  /** An error naming the daemon, with its stderr and the tail of its log. */
  startError(what: string, code: 'start-failed' | 'not-ready' = 'start-failed'): ControlPlaneError {
    const stderr = this.#stderr().trim();
    const err = stderr ? `\n--- stderr (tail) ---\n${stderr.split('\n').slice(-20).join('\n')}` : '';
    return new ControlPlaneError(
      code,
      `${this.spec.binary} ${this.name} in ${this.spec.dir}: ${what}${err}\n--- ${this.logFile} (tail) ---\n${logTail(this.logFile)}`,
    );
  }

  async stop(): Promise<void> {
    await this.#end('SIGTERM');
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await this.#end(signal);
  }

  async #end(signal: NodeJS.Signals): Promise<void> {
    const current = this.#current;
    if (current === undefined) return;
    await stopPid(current, { signal, graceMs: 5_000 });
    this.#current = undefined;
  }
}

/**
 * Base of the handles that wrap one {@link DaemonProcess} (an ovsdb-server,
 * the ovn-trace daemon): the ProcessHandle fields come from the daemon.
 */
export abstract class DaemonHandle implements ProcessHandle {
  constructor(readonly daemon: DaemonProcess) {}

  get name(): string {
    return this.daemon.name;
  }
  get pid(): number {
    return this.daemon.pid;
  }
  get pidfile(): string {
    return this.daemon.pidfile;
  }
  get ctl(): string {
    return this.daemon.ctl;
  }
  get logFile(): string {
    return this.daemon.logFile;
  }
  get running(): boolean {
    return this.daemon.running;
  }

  abstract stop(): Promise<void>;
  abstract kill(signal?: NodeJS.Signals): Promise<void>;
}

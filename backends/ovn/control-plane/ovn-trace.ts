/**
 * ovn-trace as a daemon (`--detach`, queried with `ovn-appctl -t <ctl>
 * trace ...`), so a trace does not pay for loading the southbound DB.
 *
 * What OVN 23.03 allows, read in utilities/ovn-trace.c (unchanged on main):
 * - The daemon's `trace` command accepts only --detailed, --summary,
 *   --minimal and --all; anything else is answered "unknown option".
 * - --ct and --lb-dst exist only on the command line, and are consumed:
 *   each ct action takes the next --ct state and never rewinds, and --lb-dst
 *   is cleared once used. So per-trace ct states and LB backends cannot go
 *   through a daemon; `trace()` with `ct` or `lbDst` runs a one-shot
 *   `ovn-trace --db=<sb> --ct=... --lb-dst=...` instead (counted in `stats`).
 * - The daemon reads the southbound DB once, when it first connects, and
 *   never again. After the SB changes, call `reload()`: a stale daemon gives
 *   stale answers. It also dies on an assertion (check_in_port_sec) when the
 *   microflow has no inport or one it does not know; trace() then reports
 *   the failure and restarts it.
 * - Errors in the datapath or microflow come back as ordinary reply text;
 *   a real trace starts with "# <flow>", so anything else is an error.
 */
import { DaemonHandle, DaemonProcess, type ProcessHandle } from './daemon.ts';
import { ControlPlaneError } from './errors.ts';
import { logTail, runTool } from './exec.ts';

export interface TraceArgs {
  /** Logical datapath name (e.g. the switch name). */
  datapath: string;
  /** OVN match-language microflow, e.g. `inport=="p1" && eth.src==00:00:00:00:00:01`. */
  microflow: string;
  /** ct_state flags per ct action, in order, e.g. ['new'] or ['est,rpl'] → `--ct=new`. Forces a one-shot run. */
  ct?: string[];
  /** `ip` or `ip:port` for --lb-dst. Forces a one-shot run. */
  lbDst?: string;
  /** Output options: --detailed (default), --summary, --minimal, --all. */
  extraArgs?: string[];
}

export interface OvnTraceDaemon extends ProcessHandle {
  /**
   * The trace text; throws ControlPlaneError('trace-failed') when ovn-trace
   * rejects the query or dies on it (then the daemon is restarted first).
   */
  trace(args: TraceArgs): Promise<string>;
  /** Restarts the daemon so that it reads the current southbound DB. */
  reload(): Promise<void>;
  /** How many traces went to the daemon and how many needed a one-shot ovn-trace. */
  readonly stats: { readonly daemonTraces: number; readonly oneShotTraces: number };
}

export interface OvnTraceOptions {
  dir: string;
  /** Southbound remote, e.g. `unix:<dir>/sb.sock`. */
  sbRemote: string;
  /** File stem for pidfile/ctl/log; default 'ovn-trace'. */
  name?: string;
}

function checkOutput(text: string, args: TraceArgs): string {
  if (text.startsWith('# ')) return text;
  throw new ControlPlaneError(
    'trace-failed',
    `ovn-trace ${args.datapath} ${JSON.stringify(args.microflow)}: ${text.trim() || '(empty reply)'}`,
  );
}

class TraceDaemon extends DaemonHandle implements OvnTraceDaemon {
  readonly stats = { daemonTraces: 0, oneShotTraces: 0 };

  constructor(readonly opts: OvnTraceOptions) {
    super(
      new DaemonProcess({
        dir: opts.dir,
        name: opts.name ?? 'ovn-trace',
        binary: 'ovn-trace',
        args: [`--db=${opts.sbRemote}`],
        detach: true,
      }),
    );
  }

  async trace(args: TraceArgs): Promise<string> {
    const format = args.extraArgs ?? [];
    if ((args.ct?.length ?? 0) > 0 || args.lbDst !== undefined) return this.#oneShot(args, format);
    let stdout: string;
    try {
      ({ stdout } = await runTool('ovn-appctl', ['-t', this.ctl, 'trace', ...format, args.datapath, args.microflow], {
        timeoutMs: 60_000,
        errorCode: 'trace-failed',
      }));
    } catch (e) {
      throw await this.#daemonError(args, e);
    }
    this.stats.daemonTraces++;
    return checkOutput(stdout, args);
  }

  async #oneShot(args: TraceArgs, format: readonly string[]): Promise<string> {
    const ct = (args.ct ?? []).map((flags) => `--ct=${flags}`);
    const lb = args.lbDst === undefined ? [] : [`--lb-dst=${args.lbDst}`];
    const { stdout } = await runTool(
      'ovn-trace',
      [`--db=${this.opts.sbRemote}`, ...ct, ...lb, ...format, args.datapath, args.microflow],
      { dir: this.opts.dir, timeoutMs: 120_000, errorCode: 'trace-failed' },
    );
    this.stats.oneShotTraces++;
    return checkOutput(stdout, args);
  }

  /**
   * 23.03 aborts on an assertion when the microflow has no inport, or one it
   * does not know (a port added after the daemon read the SB). The failed
   * trace is reported and the daemon restarted, so the next trace works.
   */
  async #daemonError(args: TraceArgs, cause: unknown): Promise<ControlPlaneError> {
    const message = cause instanceof Error ? cause.message : String(cause);
    if (this.daemon.running) return new ControlPlaneError('trace-failed', message, { cause });
    const tail = logTail(this.logFile);
    await this.reload();
    return new ControlPlaneError(
      'trace-failed',
      `ovn-trace daemon ${this.name} died tracing ${args.datapath} ${JSON.stringify(args.microflow)}` +
        ` (no inport, or a port it does not know: did the SB change? it re-reads the SB only on reload());` +
        ` restarted as pid ${this.pid}\n--- ${this.logFile} (tail) ---\n${tail}`,
      { cause },
    );
  }

  async reload(): Promise<void> {
    if (this.daemon.running) await this.daemon.stop();
    await this.daemon.start();
  }

  stop(): Promise<void> {
    return this.daemon.stop();
  }

  kill(signal?: NodeJS.Signals): Promise<void> {
    return this.daemon.kill(signal);
  }
}

/**
 * Starts ovn-trace as a daemon on the southbound DB; resolves once it has
 * read the DB (ovn-trace detaches only then).
 *
 * @example
 * const tracer = await startOvnTrace({ dir: cp.dir, sbRemote: cp.sb.remote });
 * const text = await tracer.trace({ datapath: 'ls', microflow: 'inport=="p1" && eth.dst==00:00:00:00:00:02' });
 * // text includes 'output to "p2"'
 * await tracer.stop();
 */
export async function startOvnTrace(opts: OvnTraceOptions): Promise<OvnTraceDaemon> {
  const tracer = new TraceDaemon(opts);
  await tracer.daemon.start();
  return tracer;
}

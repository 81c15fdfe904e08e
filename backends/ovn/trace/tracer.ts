/**
 * OvnTracer: a packet at a logical port → ovn-trace's verdict, over a
 * running southbound DB. Chooses per trace between
 * - a daemon (`ovn-trace --detach`, queried with `ovn-appctl trace`), one per
 *   uniform ct state, started with `--ct=<state>` repeated `ctBudget` times,
 *   because the daemon's trace command takes no --ct and ct states are
 *   consumed across traces (normalize.ts `ct-states-consumed`); and
 * - a one-shot `ovn-trace --db=...` for what a daemon cannot do: a list of
 *   per-action ct states, an --lb-dst, a --select-id.
 * A load-balanced packet whose backend ovn-trace would pick at random is
 * traced again with --lb-dst, and checked against the exact trace (rules
 * `lb-random-backend`, `lb-dst-early-dnat`).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { ControlPlaneError, runTool } from '../control-plane/index.ts';
import { DaemonProcess } from '../control-plane/daemon.ts';
import { OvsdbServerProcess } from '../control-plane/ovsdb-server.ts';
import { logTail, pollUntil } from '../control-plane/exec.ts';
import { isIPv4, type Packet } from '../../../model/packet/packet.ts';
import { OvnTracerError } from './errors.ts';
import { parseFlowLine } from './flow-line.ts';
import { microflowFor } from './microflow.ts';
import { firstDivergence, normalizeVerdict, type Caveat } from './normalize.ts';
import { parseTrace, type OvnTrace, type OvnTraceStage } from './parse.ts';
import { lbSelectorOf } from './transforms.ts';
import { traceVerdict, type PathEnd, type QuirkHit, type TraceOutput } from './verdict.ts';

/** ct_state flags as ovn-trace's --ct takes them, comma-separated: 'new', 'est,rpl', 'rel'. */
export type CtState = string;

export interface OvnTraceRequest {
  /** Logical switch or router the packet enters. */
  readonly datapath: string;
  readonly inport: string;
  readonly packet: Packet;
  /** One state for every ct action (default 'new': a first packet), or one per ct action in order. */
  readonly ct?: CtState | readonly CtState[];
  /** The LB backend (`ip` or `ip:port`, `[ip6]:port`) ovn-trace should pick when a VIP has several. */
  readonly lbBackend?: string;
  /** ECMP member for `select` (ovn-trace --select-id); default: ovn-trace's random pick, reported in `selects`. */
  readonly selectId?: number;
  /** See VerdictOptions.semantics; default 'ovn'. */
  readonly semantics?: 'ovn' | 'ovn-trace';
  /**
   * Register values the packet starts with, as microflow terms ANDed to it: what a
   * flow ovn-trace does not run would have loaded (lb-affinity.ts affinityRetrace).
   */
  readonly registers?: string;
}

export interface OvnTraceResult {
  readonly verdict: 'delivered' | 'dropped';
  readonly outputs: readonly TraceOutput[];
  readonly stages: readonly OvnTraceStage[];
  /** ovn-trace's text the verdict was read from. */
  readonly raw: string;
  readonly microflow: string;
  /** Parts of the verdict ovn-trace could not show; empty when complete. */
  readonly caveats: readonly Caveat[];
  readonly quirks: readonly QuirkHit[];
  readonly ends: readonly PathEnd[];
  readonly selects: readonly { readonly field: string; readonly id: number; readonly random: boolean }[];
  /** The backend ovn-trace used when a VIP had several (ask the simulator for the same). */
  readonly lbBackend?: string;
  readonly via: 'daemon' | 'one-shot';
}

export interface OvnTracerOptions {
  /** Directory for the daemons' pid/ctl/log files (keep it short: unix socket paths). */
  readonly dir: string;
  /** Southbound remote, e.g. `unix:<dir>/sb.sock`. */
  readonly sbRemote: string;
  /** ct states per daemon start (default 4096). */
  readonly ctBudget?: number;
}

const CT_FLAGS = /^(new|est|rel|rpl|inv|trk|snat|dnat)(,(new|est|rel|rpl|inv|trk|snat|dnat))*$/;
const DEFAULT_CT = '/* default (use --ct to customize) */';
/** Restart a daemon when fewer ct states than this are left (more than any one trace uses). */
const reserveOf = (budget: number): number => Math.min(256, Math.floor(budget / 4));

function checkCt(ct: readonly string[]): void {
  for (const s of ct)
    if (!CT_FLAGS.test(s)) throw new OvnTracerError('trace-failed', `bad ct state ${JSON.stringify(s)}`);
}

/** ct actions a trace used, counted from the sub-trees that may take a --ct state (an upper bound). */
function ctUsed(text: string): number {
  return (text.match(/^\s*(ct_next\(|ct_lb|ct_[ds]nat|ct_commit_nat).*\n\s*-+$/gm) ?? []).length;
}

/** Tracers in one process may share a directory: each names its daemons apart. */
let tracerCount = 0;

class CtDaemon {
  remaining = 0;
  readonly proc: DaemonProcess;
  constructor(
    readonly opts: OvnTracerOptions,
    readonly state: string,
    readonly tracerId: number,
  ) {
    const budget = opts.ctBudget ?? 4096;
    this.proc = new DaemonProcess({
      dir: opts.dir,
      name: `trace${tracerId}-${state.replace(/,/g, '-')}`,
      binary: 'ovn-trace',
      args: [`--db=${opts.sbRemote}`, ...Array.from({ length: budget }, () => `--ct=${state}`)],
      detach: true,
    });
  }

  async restart(): Promise<void> {
    if (this.proc.running) await this.proc.stop();
    await this.proc.start();
    this.remaining = this.opts.ctBudget ?? 4096;
  }
}

/**
 * More datapath pipelines than this in one trace is a forwarding loop OVS
 * would have cut short; the same bound as the simulator's MAX_PASSES (one
 * pass is one pipeline), so both sides call the same cases loops.
 */
export const MAX_TRACE_PIPELINES = 256;

/**
 * Rule ovs-translation-limit: ovn-trace follows a forwarding loop until the
 * TTL runs out (or forever, for what it generates on the way); OVS stops
 * translating at 64 nested resubmits or 4096 resubmits and drops the packet.
 */
function checkLoop(req: OvnTraceRequest, mf: string, raw: string): void {
  const heads = [...raw.matchAll(/^\s*(?:ingress|egress)\(dp="/gm)];
  if (heads.length > MAX_TRACE_PIPELINES) {
    // The text up to the first pipeline past the bound: what led into the loop, shallow enough to read.
    const prefix = raw.slice(0, heads[MAX_TRACE_PIPELINES]!.index);
    throw new OvnTracerError(
      'forwarding-loop',
      `${req.datapath} ${mf}: ovn-trace went through ${heads.length} datapath pipelines (more than ${MAX_TRACE_PIPELINES}): a forwarding loop`,
      { raw: prefix },
    );
  }
}

function firstRandomLb(trace: OvnTrace, p: Packet): { index: number; first: string } | undefined {
  const family = isIPv4(p) ? 4 : 6;
  for (const [index, s] of trace.stages.entries()) {
    for (const a of s.actions) {
      const list = /^ct_lb(_mark)?\(backends=([^;)]*)/.exec(a)?.[2];
      if (list === undefined) continue;
      const same = list
        .split(',')
        .map((t) => lbSelectorOf(t.trim()))
        .filter((d) => d.family === family);
      if (same.length > 1) return { index, first: same[0]?.text ?? '' };
    }
  }
  return undefined;
}

/**
 * @example
 * const tracer = await OvnTracer.start({ dir: cp.dir, sbRemote: cp.sb.remote });
 * const r = await tracer.trace({ datapath: 'sw0', inport: 'p1', packet: tcpPacket({...}) });
 * r.verdict // 'delivered'; r.outputs[0].outport // 'p2'
 * await tracer.stop();
 */
export class OvnTracer {
  readonly #daemons = new Map<string, CtDaemon>();
  readonly stats = { daemonTraces: 0, oneShotTraces: 0, daemonStarts: 0 };
  readonly #id = ++tracerCount;

  private constructor(readonly opts: OvnTracerOptions) {}

  static async start(opts: OvnTracerOptions): Promise<OvnTracer> {
    const t = new OvnTracer(opts);
    await t.#daemon('new');
    return t;
  }

  async trace(req: OvnTraceRequest): Promise<OvnTraceResult> {
    const base = microflowFor(req.packet, req.inport).text;
    const mf = req.registers === undefined ? base : `${base} && ${req.registers}`;
    const ct = req.ct ?? 'new';
    checkCt(typeof ct === 'string' ? [ct] : ct);
    const oneShot = typeof ct !== 'string' || req.selectId !== undefined;
    const raw = oneShot ? await this.#oneShot(req, mf, ct, undefined) : await this.#viaDaemon(req, mf, ct as string);
    checkLoop(req, mf, raw);
    const exact = parseTrace(raw);
    const random = firstRandomLb(exact, req.packet);
    if (random === undefined) return this.#result(req, mf, ct, exact, raw, oneShot ? 'one-shot' : 'daemon', undefined);
    const backend = req.lbBackend ?? random.first;
    const rawLb = await this.#oneShot(req, mf, ct, backend);
    checkLoop(req, mf, rawLb);
    const withLb = parseTrace(rawLb);
    const d = firstDivergence(exact.stages, withLb.stages, random.index);
    if (d !== undefined) {
      const at = (s?: OvnTraceStage) =>
        s === undefined ? 'nothing' : `${s.datapath} ${s.stage ?? s.table} uuid ${s.uuid ?? '-'}`;
      throw new OvnTracerError(
        'lb-dst-diverged',
        `${req.datapath} ${mf}: with --lb-dst=${backend} ovn-trace took ${at(d.other)} where the exact trace took ${at(d.exact)} (stage ${d.index}, before the load balancer): the early DNAT of --lb-dst changed a decision`,
      );
    }
    return this.#result(req, mf, ct, withLb, rawLb, 'one-shot', backend);
  }

  #result(
    req: OvnTraceRequest,
    microflow: string,
    ct: CtState | readonly CtState[],
    trace: OvnTrace,
    raw: string,
    via: 'daemon' | 'one-shot',
    lbBackend: string | undefined,
  ): OvnTraceResult {
    const traced = parseFlowLine(trace.flow);
    const semantics = req.semantics ?? 'ovn';
    const v = traceVerdict(trace, {
      input: req.packet,
      traced,
      semantics,
      ...(lbBackend === undefined ? {} : { lbDst: lbBackend }),
    });
    const n = normalizeVerdict(v, { input: req.packet, traced, stages: trace.stages, ct });
    const lb = lbBackend === undefined ? {} : { lbBackend };
    return { ...n, stages: trace.stages, raw, microflow, via, ...lb };
  }

  async #daemon(state: string): Promise<CtDaemon> {
    let d = this.#daemons.get(state);
    if (d === undefined) {
      d = new CtDaemon(this.opts, state, this.#id);
      this.#daemons.set(state, d);
    }
    if (!d.proc.running || d.remaining < reserveOf(this.opts.ctBudget ?? 4096)) {
      await d.restart();
      this.stats.daemonStarts++;
    }
    return d;
  }

  async #viaDaemon(req: OvnTraceRequest, mf: string, state: string): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      const d = await this.#daemon(state);
      const text = await this.#ask(d, req, mf);
      d.remaining -= ctUsed(text);
      if (!text.includes(DEFAULT_CT)) return text;
      // The daemon ran out of ct states in this trace: restart it and trace again.
      d.remaining = 0;
      if (attempt > 0)
        throw new OvnTracerError(
          'ct-budget',
          `${req.datapath} ${mf}: a fresh daemon ran out of ct states (ctBudget ${this.opts.ctBudget ?? 4096})`,
        );
    }
  }

  async #ask(d: CtDaemon, req: OvnTraceRequest, mf: string): Promise<string> {
    let stdout: string;
    try {
      ({ stdout } = await runTool('ovn-appctl', ['-t', d.proc.ctl, 'trace', req.datapath, mf], {
        timeoutMs: 120_000,
        errorCode: 'trace-failed',
      }));
    } catch (e) {
      // ovn-appctl exits 2 when the daemon answered with an error (a query it refused): alive, not an abort.
      if ((e as { cause?: { code?: unknown } }).cause?.code === 2) throw e;
      // An aborting daemon closes its socket before it is gone (OVS's fatal-signal handler logs the backtrace
      // first): seen in a CI run as a plain ovn-appctl failure with the process still alive. Give it a moment.
      // Still running when the grace ends: the failure is the call's own, rethrown as it came.
      await pollUntil(async () => (d.proc.running ? undefined : true), {
        timeoutMs: ABORT_GRACE_MS,
        intervalMs: 20,
        onTimeout: () => e as Error,
      });
      const tail = logTail(d.proc.logFile, 5);
      await d.restart();
      this.stats.daemonStarts++;
      throw aborted(req, mf, `${tail}\n${(e as Error).message}`, e);
    }
    this.stats.daemonTraces++;
    // A reply that is not a trace is the daemon's answer, not an abort: no grace wait.
    return checkText(stdout, req, mf);
  }

  async #oneShot(
    req: OvnTraceRequest,
    mf: string,
    ct: CtState | readonly CtState[],
    lbDst: string | undefined,
  ): Promise<string> {
    const cts = typeof ct === 'string' ? Array.from({ length: 512 }, () => ct) : ct;
    const args = [`--db=${this.opts.sbRemote}`, ...cts.map((s) => `--ct=${s}`)];
    if (lbDst !== undefined) args.push(`--lb-dst=${lbDst}`);
    if (req.selectId !== undefined) args.push(`--select-id=${req.selectId}`);
    try {
      const { stdout } = await runTool('ovn-trace', [...args, req.datapath, mf], {
        dir: this.opts.dir,
        timeoutMs: 300_000,
        errorCode: 'trace-failed',
      });
      this.stats.oneShotTraces++;
      return checkText(stdout, req, mf);
    } catch (e) {
      if (e instanceof ControlPlaneError && /assertion|Aborted|SIGABRT/.test(e.message))
        throw aborted(req, mf, e.message, e);
      throw e;
    }
  }

  /**
   * Rule gateway-ct-snat-stops, traced through: `req` over a copy of the
   * southbound DB in which every `l3gateway` port binding reads as a `patch`
   * port. ovn-trace reads that type for one thing only, the datapath's
   * has_local_l3gateway flag, whose one use is the early return of a bare
   * `ct_snat;` (execute_ct_nat); peers are linked alike for both types
   * (read_ports). On the copy ovn-trace goes on after the `ct_snat;` as OVS
   * does for a packet with no SNAT entry ("assuming no un-snat entry"): the
   * first packet of a connection. The copy is served by its own ovsdb-server
   * for this one trace, so northd and the chassis never see it.
   */
  async traceGatewaysAsPatches(req: OvnTraceRequest): Promise<OvnTraceResult> {
    const name = `trace${this.#id}-gw`;
    const db = `${this.opts.dir}/${name}.db`;
    const { stdout } = await runTool('ovsdb-client', ['backup', this.opts.sbRemote, 'OVN_Southbound'], {
      dir: this.opts.dir,
      timeoutMs: 60_000,
      errorCode: 'trace-failed',
    });
    writeFileSync(db, stdout);
    const server = new OvsdbServerProcess({ dir: this.opts.dir, name, db });
    const copy = new OvnTracer({ ...this.opts, sbRemote: server.remote });
    try {
      const update = {
        op: 'update',
        table: 'Port_Binding',
        where: [['type', '==', 'l3gateway']],
        row: { type: 'patch' },
      };
      await runTool('ovsdb-tool', ['transact', db, JSON.stringify(['OVN_Southbound', update])], {
        dir: this.opts.dir,
        errorCode: 'trace-failed',
      });
      await server.start();
      return await copy.trace(req);
    } finally {
      await copy.stop();
      if (server.running) await server.stop();
      rmSync(db, { force: true });
      rmSync(`${this.opts.dir}/.${name}.db.~lock~`, { force: true });
    }
  }

  /** Restarts every daemon so they read the current southbound DB (rule `daemon-reads-sb-once`). */
  async reload(): Promise<void> {
    for (const d of this.#daemons.values()) {
      if (d.proc.running || d.remaining > 0) {
        await d.restart();
        this.stats.daemonStarts++;
      }
    }
  }

  /** Stops every daemon this tracer started. */
  async stop(): Promise<void> {
    await Promise.all([...this.#daemons.values()].map((d) => d.proc.stop()));
  }

  /** Pids of the running daemons (for tests and leak checks). */
  get pids(): number[] {
    return [...this.#daemons.values()].filter((d) => d.proc.running).map((d) => d.proc.pid);
  }
}

/** How long a daemon whose unixctl call failed is watched for exiting (an abort) before the failure is its own. */
const ABORT_GRACE_MS = 2_000;

function checkText(text: string, req: OvnTraceRequest, mf: string): string {
  if (text.startsWith('# ')) return text;
  throw new OvnTracerError('trace-failed', `ovn-trace ${req.datapath} ${mf}: ${text.trim() || '(empty reply)'}`);
}

function aborted(req: OvnTraceRequest, mf: string, detail: string, cause: unknown): OvnTracerError {
  return new OvnTracerError(
    'ovn-trace-aborted',
    `ovn-trace aborted tracing ${req.datapath} ${mf} (see normalize.ts nd-na-router-abort): ${detail}`,
    { cause },
  );
}

/**
 * `kovn sim ...` and `kovn trace`: the simulator's commands. Every answer
 * carries its warnings (what kovn did not act on or refused); `--strict`
 * refuses an answer that has any (exit 3), so CI never passes on ignored
 * objects. Exit codes: 0 all as expected, 1 a probe failed or is unsure
 * (run) or the packet was dropped (trace), 3 `--strict` with warnings.
 */
import type { Command } from 'commander';
import {
  type ControllerSettings,
  SETTING_FLAGS,
  settingsFromFlags,
  settingsFromScenario,
} from '../controller/config.ts';
import { type Warning, warningJSON } from '../kube/objects/warnings.ts';
import type { ProbeIndex } from '../scenarios/probe.ts';
import type { ProbeWorld } from '../scenarios/run.ts';
import { DEFAULT_MAX_PAIRS } from '../scenarios/connectivity-plan.ts';
import { type ClusterFlags, clusterOptions, scenarioFor } from './cluster-source.ts';
import { wholeNumber } from './options.ts';
import { type Count, Progress } from './progress.ts';
import { checkReportPath } from './report-path.ts';
import { registerServe } from './serve.ts';
import { resultJSON, resultsTable, shown, summaryLine, traceLines, warningLines } from './sim-output.ts';

/** Notes (pods left out, ports not resolved) shown on stderr at most; the rest are counted. */
const MAX_NOTES_SHOWN = 30;

/** `--strict`: any warning refuses the answer. */
export const STRICT_EXIT = 3;

/** Kube-OVN's controller flags given on the command line, over the scenario's own settings. */
export function settingsOf(opts: Record<string, unknown>, base: ControllerSettings): ControllerSettings {
  const flags: Record<string, string> = {};
  for (const flag of Object.values(SETTING_FLAGS)) {
    const v = opts[camel(flag)];
    if (typeof v === 'string') flags[flag] = v;
  }
  const r = settingsFromFlags(flags, base);
  if (r.issues.length > 0) throw new Error(r.issues.map((i) => i.message).join('; '));
  return r.settings;
}

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The options every command that runs the controller takes: the MAC seed, --strict and kube-ovn-controller's flags. */
export function controllerOptions(cmd: Command): Command {
  cmd.option('--seed <n>', 'MAC randomness seed', wholeNumber('--seed', 0, 2 ** 32 - 1), 1);
  cmd.option('--strict', `exit ${STRICT_EXIT} when there is any warning (something not acted on or refused)`);
  for (const flag of Object.values(SETTING_FLAGS)) cmd.option(`--${flag} <value>`, `kube-ovn-controller's --${flag}`);
  return cmd;
}

type BackendName = 'sim' | 'ovn' | 'lab';

/** `lab` answers with real packets: `sim run` and `sim connectivity` take it; `trace` (stage by stage) does not. */
function checkBackend(backend: string, lab = true): asserts backend is BackendName {
  const allowed: readonly string[] = lab ? ['sim', 'ovn', 'lab'] : ['sim', 'ovn'];
  if (!allowed.includes(backend))
    throw new Error(`--backend: expected ${allowed.join(', ')}, got ${JSON.stringify(backend)}`);
}

/** Progress on stderr (cli/progress.ts) on the real clock; the timer shows a phase that reports nothing for a while. */
function progressOnStderr(): (what: string, count?: Count) => void {
  const p = new Progress({
    now: () => performance.now(),
    write: (line) => process.stderr.write(line),
    tty: process.stderr.isTTY === true,
  });
  setInterval(() => p.tick(), 250).unref();
  return (what, count) => p.report(what, count);
}

/** Long loops of probes never wait on I/O: every so often they let signals, timers and output run. */
const YIELD_EVERY = 1000;
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const print = (lines: readonly string[]) => {
  for (const line of lines) process.stdout.write(`${line}\n`);
};

/** The exit code `--strict` asks for, else `otherwise`. */
const exitCode = (strict: boolean | undefined, warnings: readonly Warning[], otherwise: number) =>
  strict && warnings.length > 0 ? STRICT_EXIT : otherwise;

/** Runs `f` in a world of the backend, closed afterwards (on a signal, cli/lifecycle.ts ends the process). */
async function withWorld<T>(
  backend: BackendName,
  progress: (what: string) => void,
  f: (world: ProbeWorld) => Promise<T>,
): Promise<T> {
  let world: ProbeWorld;
  if (backend === 'ovn') {
    progress('starting a local OVN control plane');
    const { OvnWorld } = await import('../scenarios/ovn-world.ts');
    world = await OvnWorld.start();
  } else if (backend === 'lab') {
    progress('starting the lab: OVN control plane, ovs-vswitchd (userspace datapath), ovn-controller');
    const { LabWorld } = await import('../scenarios/lab/index.ts');
    world = await LabWorld.start();
  } else world = new (await import('../scenarios/run.ts')).SimWorld();
  try {
    return await f(world);
  } finally {
    await world.close();
  }
}

/** `kovn trace`: one probe of a scenario, stage by stage, and its reply. */
export function registerTrace(program: Command): void {
  const cmd = program
    .command('trace [scenario]')
    .description('one probe of a scenario, stage by stage (and its reply), in the state after a step')
    .requiredOption('--from <pod>', 'the probe source: ns/name, or an outside address')
    .requiredOption('--to <dest>', 'the destination: ns/name, svc/ns/name, a cluster IP or an outside address')
    .requiredOption('--protocol <p>', 'TCP, UDP, SCTP or ICMP')
    .option('--port <n>', 'destination port (not for ICMP)', wholeNumber('--port', 1, 65535))
    .option('--step <n>', 'the state after this step (0: the scenario objects)', wholeNumber('--step', 0), 0)
    .option('--backend <backend>', "sim, or ovn (a local NB/SB/northd; ovn-trace's own text beside)", 'sim')
    .option(
      '--json',
      'print {"verdict","outport"?,"stages":[...],"retransmission"?,"note"?,"reply"?,"ovnTrace"?,"ovnRetransmission"?,"unsure"?,"warnings":[...]}',
    );
  controllerOptions(cmd);
  clusterOptions(cmd, 'the objects (the scenario, if given, for its steps and settings)');
  cmd.action(traceAction);
}

type TraceOptions = Record<string, unknown> &
  ClusterFlags & {
    from: string;
    to: string;
    protocol: string;
    port?: number;
    step: number;
    backend: string;
    json?: boolean;
    seed: number;
    strict?: boolean;
  };

async function traceAction(file: string | undefined, opts: TraceOptions): Promise<void> {
  const { loadScenario } = await import('../scenarios/load.ts');
  const { traceScenario, traceReportJSON } = await import('../scenarios/trace.ts');
  checkBackend(opts.backend, false);
  const probe = traceProbe(opts);
  const files = file === undefined ? [] : [file];
  const scenario = await scenarioFor(opts, files, () => loadScenario(file!));
  const settings = settingsOf(opts, settingsFromScenario(scenario.cluster));
  const progress = progressOnStderr();
  const t = await withWorld(opts.backend, progress, (world) =>
    traceScenario(scenario, probe, { world, step: opts.step, settings, seed: opts.seed, onProgress: progress }),
  );
  // The verdict is the retransmission's where one was sent (docs/architecture.md, Verdict).
  const last = t.retransmission ?? t;
  const dropped = last.verdict === 'dropped' || t.reply?.verdict === 'dropped';
  process.exitCode = exitCode(opts.strict, t.warnings, dropped ? 1 : 0);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(traceReportJSON(t))}\n`);
    return;
  }
  const label = `${probe.from} -> ${probe.to} ${probe.protocol}${probe.port !== undefined ? `/${probe.port}` : ''}`;
  const { formatTrace } = await import('../sim/trace.ts');
  print(traceLines(t, label, `step ${opts.step}, ${opts.backend}`, formatTrace));
}

/** The probe `--from`, `--to`, `--protocol` and `--port` describe. */
function traceProbe(opts: TraceOptions) {
  const protocol = opts.protocol.toUpperCase();
  if (!['TCP', 'UDP', 'SCTP', 'ICMP'].includes(protocol))
    throw new Error(`--protocol: expected TCP, UDP, SCTP or ICMP, got ${JSON.stringify(opts.protocol)}`);
  if (protocol !== 'ICMP' && opts.port === undefined) throw new Error(`--port: ${protocol} needs a port 1..65535`);
  if (protocol === 'ICMP' && opts.port !== undefined) throw new Error('--port: ICMP has no port');
  return {
    from: opts.from,
    to: opts.to,
    protocol: protocol as 'TCP' | 'UDP' | 'SCTP' | 'ICMP',
    ...(protocol !== 'ICMP' ? { port: opts.port! } : {}),
    allowed: true,
  };
}

export function registerSim(program: Command): void {
  const sim = program.command('sim').description('run scenarios on a backend (default: the in-process simulator)');
  registerRun(sim);
  registerConnectivity(sim);
  registerDemo(sim);
  registerServe(sim);
}

function registerRun(sim: Command): void {
  const run = sim
    .command('run <scenario>')
    .description('a scenario (a YAML file or a folder) through the controller onto a backend; every probe checked')
    .option(
      '--backend <backend>',
      'sim (the simulator), ovn (a local NB/SB/northd, verdicts from ovn-trace) or lab (real packets between network namespaces; root)',
      'sim',
    )
    .option(
      '--json',
      'print {"backend","results":[{"step","from","to","protocol","port","expected","allowed","ok","reason"?,"unsure"?}],"warnings":[...]}',
    )
    .option('--report <file>', 'also write the run as one self-contained HTML page (topology, results, traces)');
  controllerOptions(run);
  clusterOptions(run, "the objects (the scenario's probes, steps and settings still from the file)");
  run.action(runAction);
}

type RunOptions = Record<string, unknown> &
  ClusterFlags & {
    backend: string;
    json?: boolean;
    seed: number;
    report?: string;
    strict?: boolean;
  };

async function runAction(file: string, opts: RunOptions): Promise<void> {
  const { loadScenario, requireProbes } = await import('../scenarios/load.ts');
  const { runScenario } = await import('../scenarios/run.ts');
  checkBackend(opts.backend);
  // Before the run: a report path that cannot be written, or that is an input, fails now, not after it.
  if (opts.report) checkReportPath(opts.report, [file]);
  const progress = progressOnStderr();
  progress(`loading ${file}`);
  const scenario = await scenarioFor(opts, [file], () => loadScenario(file));
  requireProbes(scenario, file);
  const settings = settingsOf(opts, settingsFromScenario(scenario.cluster));
  const { InventoryCollector, renderReport } = await import('../scenarios/report.ts');
  const inventory = new InventoryCollector();
  const out = await withWorld(opts.backend, progress, (world) =>
    runScenario(scenario, {
      world,
      seed: opts.seed,
      settings,
      onProgress: progress,
      ...(opts.report ? { traces: true, onConverged: async (_step: number, ix: ProbeIndex) => inventory.add(ix) } : {}),
    }),
  );
  if (opts.report) {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      opts.report,
      renderReport({
        scenario: scenario.name,
        backend: opts.backend,
        results: out.results,
        inventory: inventory.inventory,
        warnings: out.warnings,
      }),
    );
    process.stderr.write(`kovn: report written to ${opts.report}\n`);
  }
  const failed = out.results.some((r) => !r.ok);
  process.exitCode = exitCode(opts.strict, out.warnings, failed ? 1 : 0);
  if (opts.json) {
    const results = out.results.map(resultJSON);
    process.stdout.write(
      `${JSON.stringify({ backend: opts.backend, results, warnings: out.warnings.map(warningJSON) })}\n`,
    );
    return;
  }
  print(warningLines(out.warnings));
  print(resultsTable(out.results));
  print([summaryLine(out.results, out.warnings, opts.backend)]);
}

function registerConnectivity(sim: Command): void {
  const conn = sim
    .command('connectivity [manifests...]')
    .description('every ordered pair of pods of plain manifests (files or folders), on the given or declared ports')
    .option('--ports <list>', "e.g. TCP/80,UDP/53,TCP/http (default: each destination's declared container ports)")
    .option(
      '--from <pods>',
      'only pairs from these pods: NAMESPACE, NAMESPACE/POD, KEY=VALUE, KEY!=VALUE (comma-separated)',
    )
    .option('--to <pods>', 'only pairs to these pods (as --from)')
    .option(
      '--max-pairs <n>',
      'refuse a run of more pairs, before it starts (memory does not grow with it; time and output do)',
      wholeNumber('--max-pairs', 1),
      DEFAULT_MAX_PAIRS,
    )
    .option(
      '--backend <backend>',
      'sim (the simulator), ovn (a local NB/SB/northd, verdicts from ovn-trace) or lab (real packets; root)',
      'sim',
    )
    .option(
      '--json',
      'print {"pairs":[{"from","to","protocol","port","allowed","reason"?,"unsure"?}],"warnings":[...]}, pair by pair',
    );
  controllerOptions(conn);
  clusterOptions(conn, 'the objects (manifests, if given, only for their settings)');
  conn.action(connectivityAction);
}

type ConnectivityOptions = Record<string, unknown> &
  ClusterFlags & {
    backend: string;
    json?: boolean;
    seed: number;
    ports?: string;
    from?: string;
    to?: string;
    maxPairs: number;
    strict?: boolean;
  };

async function connectivityAction(files: string[], opts: ConnectivityOptions): Promise<void> {
  const { loadManifests } = await import('../scenarios/load.ts');
  const c = await import('../scenarios/connectivity.ts');
  const { ChunkedWriter, ConnectivityJson, ConnectivityText } = await import('./connectivity-output.ts');
  checkBackend(opts.backend);
  const ports = opts.ports !== undefined ? c.parsePorts(opts.ports) : undefined;
  const from = opts.from !== undefined ? c.parsePodFilter('--from', opts.from) : undefined;
  const to = opts.to !== undefined ? c.parsePodFilter('--to', opts.to) : undefined;
  const progress = progressOnStderr();
  progress(`loading ${files.join(', ') || 'the cluster'}`);
  const manifests = await scenarioFor(opts, files, () => loadManifests(files));
  const settings = settingsOf(opts, settingsFromScenario(manifests.cluster));
  // Counted and refused above --max-pairs before the controller starts.
  const plan = await c.connectivityPlan(manifests, {
    settings,
    maxPairs: opts.maxPairs,
    ...(ports ? { ports } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
  });
  for (const n of plan.notes.slice(0, MAX_NOTES_SHOWN)) process.stderr.write(`kovn: ${shown(n)}\n`);
  if (plan.notes.length > MAX_NOTES_SHOWN)
    process.stderr.write(`kovn: ... and ${plan.notes.length - MAX_NOTES_SHOWN} more such notes\n`);
  const writer = new ChunkedWriter(process.stdout);
  const output = opts.json ? new ConnectivityJson(writer) : new ConnectivityText(plan.pods, writer);
  let answered = 0;
  const sum = await withWorld(opts.backend, progress, (world) =>
    c.streamConnectivity(manifests, plan, {
      world,
      settings,
      seed: opts.seed,
      onProgress: progress,
      onPair: async (p) => {
        await output.pair(p);
        if (++answered % YIELD_EVERY === 0) await yieldToEventLoop();
      },
    }),
  );
  process.exitCode = exitCode(opts.strict, sum.warnings, 0);
  await output.end(sum);
}

function registerDemo(sim: Command): void {
  sim
    .command('demo')
    .description('the default demo cluster (Kube-OVN defaults, a NetworkPolicy, a Service) probed on the simulator')
    .option('--json', 'print {"backend","results":[...]}')
    .action(async (opts: { json?: boolean }) => {
      const { runDemo } = await import('../scenarios/demo.ts');
      const results = runDemo();
      if (opts.json) {
        process.stdout.write(
          `${JSON.stringify({ backend: 'sim', results: results.map((r) => ({ step: 0, ...r })), warnings: [] })}\n`,
        );
      } else {
        for (const r of results) {
          const what = `${r.protocol}${r.port !== undefined ? `/${r.port}` : ''}`;
          const verdict = r.allowed ? 'allowed' : 'denied';
          process.stdout.write(
            `${r.ok ? 'ok  ' : 'FAIL'} ${r.from} -> ${r.to} ${what}: ${verdict}${r.reason ? ` (${r.reason})` : ''}\n`,
          );
        }
        process.stdout.write(`${results.filter((r) => r.ok).length}/${results.length} probes as expected\n`);
      }
      if (results.some((r) => !r.ok)) process.exitCode = 1;
    });
}

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
import { type Warning, warningJSON } from '../controller/kube/warnings.ts';
import type { ProbeIndex } from '../scenarios/probe.ts';
import type { ProbeWorld } from '../scenarios/run.ts';
import { wholeNumber } from './options.ts';
import { checkReportPath } from './report-path.ts';
import { connectivityLines, paint, resultsTable, shown, shownLines, summaryLine, warningLines } from './sim-output.ts';

/** `--strict`: any warning refuses the answer. */
export const STRICT_EXIT = 3;

/** Kube-OVN's controller flags given on the command line, over the scenario's own settings. */
function settingsOf(opts: Record<string, unknown>, base: ControllerSettings): ControllerSettings {
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
function controllerOptions(cmd: Command): Command {
  cmd.option('--seed <n>', 'MAC randomness seed', wholeNumber('--seed', 0, 2 ** 32 - 1), 1);
  cmd.option('--strict', `exit ${STRICT_EXIT} when there is any warning (something not acted on or refused)`);
  for (const flag of Object.values(SETTING_FLAGS)) cmd.option(`--${flag} <value>`, `kube-ovn-controller's --${flag}`);
  return cmd;
}

function checkBackend(backend: string): asserts backend is 'sim' | 'ovn' {
  if (backend !== 'sim' && backend !== 'ovn')
    throw new Error(`--backend: expected sim or ovn, got ${JSON.stringify(backend)}`);
}

const progressLine = (what: string) => {
  if (process.stderr.isTTY) process.stderr.write(`kovn: ${what}\n`);
};

const print = (lines: readonly string[]) => {
  for (const line of lines) process.stdout.write(`${line}\n`);
};

/** The exit code `--strict` asks for, else `otherwise`. */
const exitCode = (strict: boolean | undefined, warnings: readonly Warning[], otherwise: number) =>
  strict && warnings.length > 0 ? STRICT_EXIT : otherwise;

/** Runs `f` in a world of the backend, closed afterwards (on a signal, cli/lifecycle.ts ends the process). */
async function withWorld<T>(
  backend: 'sim' | 'ovn',
  progress: (what: string) => void,
  f: (world: ProbeWorld) => Promise<T>,
): Promise<T> {
  let world: ProbeWorld;
  if (backend === 'ovn') {
    progress('starting a local OVN control plane');
    const { OvnWorld } = await import('../scenarios/ovn-world.ts');
    world = await OvnWorld.start();
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
    .command('trace <scenario>')
    .description('one probe of a scenario, stage by stage (and its reply), in the state after a step')
    .requiredOption('--from <pod>', 'the probe source: ns/name, or an outside address')
    .requiredOption('--to <dest>', 'the destination: ns/name, svc/ns/name, a cluster IP or an outside address')
    .requiredOption('--protocol <p>', 'TCP, UDP, SCTP or ICMP')
    .option('--port <n>', 'destination port (not for ICMP)', wholeNumber('--port', 1, 65535))
    .option('--step <n>', 'the state after this step (0: the scenario objects)', wholeNumber('--step', 0), 0)
    .option('--backend <backend>', "sim, or ovn (a local NB/SB/northd; ovn-trace's own text beside)", 'sim')
    .option('--json', 'print {"verdict","outport"?,"stages":[...],"reply"?,"ovnTrace"?,"unsure"?,"warnings":[...]}');
  controllerOptions(cmd);
  cmd.action(
    async (
      file: string,
      opts: Record<string, unknown> & {
        from: string;
        to: string;
        protocol: string;
        port?: number;
        step: number;
        backend: string;
        json?: boolean;
        seed: number;
        strict?: boolean;
      },
    ) => {
      const { loadScenario } = await import('../scenarios/load.ts');
      const { traceScenario, traceReportJSON } = await import('../scenarios/trace.ts');
      const { formatTrace } = await import('../sim/trace.ts');
      checkBackend(opts.backend);
      const protocol = opts.protocol.toUpperCase();
      if (!['TCP', 'UDP', 'SCTP', 'ICMP'].includes(protocol))
        throw new Error(`--protocol: expected TCP, UDP, SCTP or ICMP, got ${JSON.stringify(opts.protocol)}`);
      if (protocol !== 'ICMP' && opts.port === undefined) throw new Error(`--port: ${protocol} needs a port 1..65535`);
      if (protocol === 'ICMP' && opts.port !== undefined) throw new Error('--port: ICMP has no port');
      const scenario = loadScenario(file);
      const settings = settingsOf(opts, settingsFromScenario(scenario.cluster));
      const probe = {
        from: opts.from,
        to: opts.to,
        protocol: protocol as 'TCP' | 'UDP' | 'SCTP' | 'ICMP',
        ...(protocol !== 'ICMP' ? { port: opts.port! } : {}),
        allowed: true,
      };
      const t = await withWorld(opts.backend, progressLine, (world) =>
        traceScenario(scenario, probe, { world, step: opts.step, settings, seed: opts.seed, onProgress: progressLine }),
      );
      const dropped = t.verdict === 'dropped' || t.reply?.verdict === 'dropped';
      process.exitCode = exitCode(opts.strict, t.warnings, dropped ? 1 : 0);
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(traceReportJSON(t))}\n`);
        return;
      }
      const w = (line: string) => process.stdout.write(`${line}\n`);
      print(warningLines(t.warnings));
      const verdict = (v: string) => (v === 'delivered' ? paint(32, v) : paint(31, v));
      const what = shown(`${probe.from} -> ${probe.to} ${protocol}${probe.port !== undefined ? `/${probe.port}` : ''}`);
      w(
        `${what} (step ${opts.step}, ${opts.backend}): ${verdict(t.verdict)}${t.outport ? ` at ${shown(t.outport)}` : ''}`,
      );
      if (t.stages.length > 0) w(shownLines(formatTrace(t.stages)));
      if (t.reason) w(`${paint(31, 'why')}: ${shown(t.reason)}`);
      if (t.unsure) w(`${paint(33, 'unsure')}: ${shown(t.unsure)}`);
      if (t.reply) {
        w('');
        w(`reply: ${verdict(t.reply.verdict)}${t.reply.outport ? ` at ${shown(t.reply.outport)}` : ''}`);
        w(shownLines(formatTrace(t.reply.stages)));
        if (t.reply.reason) w(`${paint(31, 'why')}: ${shown(t.reply.reason)}`);
      }
      if (t.ovnTrace !== undefined) {
        w('');
        w('ovn-trace (first packet):');
        w(t.ovnTrace.trimEnd());
      }
    },
  );
}

export function registerSim(program: Command): void {
  const sim = program.command('sim').description('run scenarios on a backend (default: the in-process simulator)');

  const run = sim
    .command('run <scenario>')
    .description('a scenario (a YAML file or a folder) through the controller onto a backend; every probe checked')
    .option('--backend <backend>', 'sim (the simulator) or ovn (a local NB/SB/northd, verdicts from ovn-trace)', 'sim')
    .option(
      '--json',
      'print {"backend","results":[{"step","from","to","protocol","port","expected","allowed","ok","reason"?,"unsure"?}],"warnings":[...]}',
    )
    .option('--report <file>', 'also write the run as one self-contained HTML page (topology, results, traces)');
  controllerOptions(run);
  run.action(
    async (
      file: string,
      opts: Record<string, unknown> & {
        backend: string;
        json?: boolean;
        seed: number;
        report?: string;
        strict?: boolean;
      },
    ) => {
      const { loadScenario, requireProbes } = await import('../scenarios/load.ts');
      const { runScenario } = await import('../scenarios/run.ts');
      checkBackend(opts.backend);
      // Before the run: a report path that cannot be written, or that is an input, fails now, not after it.
      if (opts.report) checkReportPath(opts.report, [file]);
      progressLine(`loading ${file}`);
      const scenario = loadScenario(file);
      requireProbes(scenario, file);
      const settings = settingsOf(opts, settingsFromScenario(scenario.cluster));
      const { InventoryCollector, renderReport } = await import('../scenarios/report.ts');
      const inventory = new InventoryCollector();
      const out = await withWorld(opts.backend, progressLine, (world) =>
        runScenario(scenario, {
          world,
          seed: opts.seed,
          settings,
          onProgress: progressLine,
          ...(opts.report
            ? { traces: true, onConverged: async (_step: number, ix: ProbeIndex) => inventory.add(ix) }
            : {}),
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
        const results = out.results.map((r) => ({
          step: r.step,
          from: r.from,
          to: r.to,
          protocol: r.protocol,
          ...(r.port !== undefined ? { port: r.port } : {}),
          expected: r.expected,
          allowed: r.allowed,
          ok: r.ok,
          ...(r.reason ? { reason: r.reason } : {}),
          ...(r.unsure ? { unsure: r.unsure } : {}),
        }));
        process.stdout.write(
          `${JSON.stringify({ backend: opts.backend, results, warnings: out.warnings.map(warningJSON) })}\n`,
        );
        return;
      }
      print(warningLines(out.warnings));
      print(resultsTable(out.results));
      print([summaryLine(out.results, out.warnings, opts.backend)]);
    },
  );

  const conn = sim
    .command('connectivity <manifests...>')
    .description('every ordered pair of pods of plain manifests (files or folders), on the given or declared ports')
    .option('--ports <list>', "e.g. TCP/80,UDP/53,TCP/http (default: each destination's declared container ports)")
    .option('--backend <backend>', 'sim (the simulator) or ovn (a local NB/SB/northd, verdicts from ovn-trace)', 'sim')
    .option(
      '--json',
      'print {"pairs":[{"from","to","protocol","port","allowed","reason"?,"unsure"?}],"warnings":[...]}',
    );
  controllerOptions(conn);
  conn.action(
    async (
      files: string[],
      opts: Record<string, unknown> & {
        backend: string;
        json?: boolean;
        seed: number;
        ports?: string;
        strict?: boolean;
      },
    ) => {
      const { loadManifests } = await import('../scenarios/load.ts');
      const { runConnectivity, parsePorts } = await import('../scenarios/connectivity.ts');
      checkBackend(opts.backend);
      const ports = opts.ports !== undefined ? parsePorts(opts.ports) : undefined;
      progressLine(`loading ${files.join(', ')}`);
      const manifests = loadManifests(files);
      const settings = settingsOf(opts, settingsFromScenario(manifests.cluster));
      const out = await withWorld(opts.backend, progressLine, (world) =>
        runConnectivity(manifests, {
          world,
          settings,
          seed: opts.seed,
          onProgress: progressLine,
          ...(ports ? { ports } : {}),
        }),
      );
      for (const n of out.notes) process.stderr.write(`kovn: ${shown(n)}\n`);
      process.exitCode = exitCode(opts.strict, out.warnings, 0);
      if (opts.json) {
        const pairs = out.pairs.map((p) => ({
          from: p.from,
          to: p.to,
          protocol: p.protocol,
          port: p.port,
          allowed: p.allowed,
          ...(p.reason ? { reason: p.reason } : {}),
          ...(p.unsure ? { unsure: p.unsure } : {}),
        }));
        process.stdout.write(`${JSON.stringify({ pairs, warnings: out.warnings.map(warningJSON) })}\n`);
        return;
      }
      print(warningLines(out.warnings));
      print(connectivityLines(out));
    },
  );

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

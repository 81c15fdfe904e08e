/** `kovn sim ...`: the simulator's commands. */
import type { Command } from 'commander';
import {
  type ControllerSettings,
  SETTING_FLAGS,
  settingsFromFlags,
  settingsFromScenario,
} from '../controller/config.ts';
import type { ProbeIndex } from '../scenarios/probe.ts';
import type { ProbeResult } from '../scenarios/run.ts';

const useColour = () => process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number, s: string) => (useColour() ? `\u001b[${code}m${s}\u001b[0m` : s);

/** The results as an aligned table, failing probes first, each denied one with its reason. */
function resultsTable(results: readonly ProbeResult[]): string[] {
  const sorted = [...results].sort((a, b) => Number(a.ok) - Number(b.ok));
  const cells = sorted.map((r) => [
    r.ok ? 'ok' : 'FAIL',
    String(r.step),
    r.from,
    r.to,
    `${r.protocol}${r.port !== undefined ? `/${r.port}` : ''}`,
    r.expected ? 'allowed' : 'denied',
    r.allowed ? 'allowed' : 'denied',
  ]);
  const head = ['', 'step', 'from', 'to', 'probe', 'expected', 'got'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) => c.map((x, i) => x.padEnd(widths[i]!)).join('  ');
  const out = [`${line(head)}  why`];
  sorted.forEach((r, k) => {
    const c = cells[k]!;
    let text = line(c);
    // Colour after padding, so the columns stay aligned.
    text = text.replace(/^(ok|FAIL)/, (m) => (r.ok ? paint(32, m) : paint(31, m)));
    const why = [r.allowed ? undefined : r.reason, r.note].filter(Boolean).join('; ');
    out.push(`${text}${why ? `  ${why}` : ''}`);
  });
  return out;
}

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

/** The options every command that runs the controller takes: the MAC seed and kube-ovn-controller's flags. */
function controllerOptions(cmd: Command): Command {
  cmd.option('--seed <n>', 'MAC randomness seed', (v) => Number(v), 1);
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

/** Runs `f` in a world of the backend, closed afterwards and on Ctrl-C (no process or temp dir left). */
async function withWorld<T>(
  backend: 'sim' | 'ovn',
  progress: (what: string) => void,
  f: (world: import('../scenarios/run.ts').ProbeWorld) => Promise<T>,
): Promise<T> {
  let world: import('../scenarios/run.ts').ProbeWorld;
  if (backend === 'ovn') {
    progress('starting a local OVN control plane');
    const { OvnWorld } = await import('../scenarios/ovn-world.ts');
    world = await OvnWorld.start();
  } else world = new (await import('../scenarios/run.ts')).SimWorld();
  const stop = () => {
    void world.close().finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await f(world);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await world.close();
  }
}

/** Pods at most this many: a matrix per port; more, a list. */
const MATRIX_MAX_PODS = 12;

function printConnectivity(r: import('../scenarios/connectivity.ts').ConnectivityResult): void {
  const w = (line: string) => process.stdout.write(`${line}\n`);
  const ports = [...new Set(r.pairs.map((p) => `${p.protocol}/${p.port}`))].sort();
  if (r.pods.length <= MATRIX_MAX_PODS) {
    const idx = new Map(r.pods.map((p, i) => [p, i + 1]));
    const width = Math.max(...r.pods.map((p) => p.length), 4);
    for (const port of ports) {
      const cell = new Map<string, boolean>();
      for (const p of r.pairs) if (`${p.protocol}/${p.port}` === port) cell.set(`${p.from}\u0000${p.to}`, p.allowed);
      w(`${port.padEnd(width + 4)} to: ${r.pods.map((_, i) => String(i + 1).padStart(3)).join('')}`);
      for (const from of r.pods) {
        const row = r.pods.map((to) => {
          const v = cell.get(`${from}\u0000${to}`);
          return v === undefined ? '  .' : v ? paint(32, '  Y') : paint(31, '  n');
        });
        w(`${String(idx.get(from)).padStart(2)}  ${from.padEnd(width)} ${row.join('')}`);
      }
      w('');
    }
    w('Y allowed, n denied, . not probed (the same pod, or no such port on the destination)');
  }
  const denied = r.pairs.filter((p) => !p.allowed);
  const listed = r.pods.length <= MATRIX_MAX_PODS ? denied : [...denied, ...r.pairs.filter((p) => p.allowed)];
  for (const p of listed)
    w(
      `${p.allowed ? paint(32, 'allowed') : paint(31, 'denied ')} ${p.from} -> ${p.to} ${p.protocol}/${p.port}${
        p.reason ? ` - ${p.reason}` : ''
      }`,
    );
  w(
    `${r.pairs.length - denied.length}/${r.pairs.length} pairs allowed, ${denied.length} denied (${r.pods.length} pods)`,
  );
}

/** `kovn trace`: one probe of a scenario, stage by stage, and its reply. */
export function registerTrace(program: Command): void {
  const cmd = program
    .command('trace <scenario>')
    .description('one probe of a scenario, stage by stage (and its reply), in the state after a step')
    .requiredOption('--from <pod>', 'the probe source: ns/name, or an outside address')
    .requiredOption('--to <dest>', 'the destination: ns/name, svc/ns/name, a cluster IP or an outside address')
    .requiredOption('--protocol <p>', 'TCP, UDP, SCTP or ICMP')
    .option('--port <n>', 'destination port (not for ICMP)', (v) => Number(v))
    .option('--step <n>', 'the state after this step (0: the scenario objects)', (v) => Number(v), 0)
    .option('--backend <backend>', "sim, or ovn (a local NB/SB/northd; ovn-trace's own text beside)", 'sim')
    .option('--json', 'print {"verdict","outport"?,"stages":[...],"reply"?,"ovnTrace"?}');
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
      },
    ) => {
      const { loadScenario } = await import('../scenarios/load.ts');
      const { traceScenario, traceReportJSON } = await import('../scenarios/trace.ts');
      const { formatTrace } = await import('../sim/trace.ts');
      checkBackend(opts.backend);
      const protocol = opts.protocol.toUpperCase();
      if (!['TCP', 'UDP', 'SCTP', 'ICMP'].includes(protocol))
        throw new Error(`--protocol: expected TCP, UDP, SCTP or ICMP, got ${JSON.stringify(opts.protocol)}`);
      if (
        protocol !== 'ICMP' &&
        (opts.port === undefined || !Number.isInteger(opts.port) || opts.port < 1 || opts.port > 65535)
      )
        throw new Error(`--port: ${protocol} needs a port 1..65535`);
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
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(traceReportJSON(t))}\n`);
        return;
      }
      const w = (line: string) => process.stdout.write(`${line}\n`);
      const verdict = (v: string) => (v === 'delivered' ? paint(32, v) : paint(31, v));
      const what = `${probe.from} -> ${probe.to} ${protocol}${probe.port !== undefined ? `/${probe.port}` : ''}`;
      w(`${what} (step ${opts.step}, ${opts.backend}): ${verdict(t.verdict)}${t.outport ? ` at ${t.outport}` : ''}`);
      if (t.stages.length > 0) w(formatTrace(t.stages));
      if (t.reason) w(`${paint(31, 'why')}: ${t.reason}`);
      const last = t.retransmission ?? t;
      if (t.retransmission) {
        w('');
        w(`retransmission: ${verdict(last.verdict)}${last.outport ? ` at ${last.outport}` : ''}`);
        w(formatTrace(last.stages));
        if (last.reason) w(`${paint(31, 'why')}: ${last.reason}`);
      }
      if (t.reply) {
        w('');
        w(`reply: ${verdict(t.reply.verdict)}${t.reply.outport ? ` at ${t.reply.outport}` : ''}`);
        w(formatTrace(t.reply.stages));
        if (t.reply.reason) w(`${paint(31, 'why')}: ${t.reply.reason}`);
      }
      if (t.ovnTrace !== undefined) {
        w('');
        w('ovn-trace (first packet):');
        w(t.ovnTrace.trimEnd());
      }
      if (t.ovnRetransmission !== undefined) {
        w('');
        w('ovn-trace (retransmission):');
        w(t.ovnRetransmission.trimEnd());
      }
      if (last.verdict === 'dropped' || t.reply?.verdict === 'dropped') process.exitCode = 1;
    },
  );
}

export function registerSim(program: Command): void {
  const sim = program.command('sim').description('run scenarios on a backend (default: the in-process simulator)');

  const run = sim
    .command('run <scenario>')
    .description('a scenario (a YAML file or a folder) through the controller onto a backend; every probe checked')
    .option('--backend <backend>', 'sim (the simulator) or ovn (a local NB/SB/northd, verdicts from ovn-trace)', 'sim')
    .option('--json', 'print {"backend","results":[{"step","from","to","protocol","port","expected","allowed","ok"}]}')
    .option('--report <file>', 'also write the run as one self-contained HTML page (topology, results, traces)');
  controllerOptions(run);
  run.action(
    async (
      file: string,
      opts: Record<string, unknown> & { backend: string; json?: boolean; seed: number; report?: string },
    ) => {
      const { loadScenario } = await import('../scenarios/load.ts');
      const { runScenario } = await import('../scenarios/run.ts');
      checkBackend(opts.backend);
      progressLine(`loading ${file}`);
      const scenario = loadScenario(file);
      const settings = settingsOf(opts, settingsFromScenario(scenario.cluster));
      const progress = progressLine;
      for (const i of scenario.ignored)
        process.stderr.write(
          `kovn: ignored ${i.count} ${i.kind} object(s) (first at ${i.first.file}, document ${i.first.doc})\n`,
        );
      const { InventoryCollector, renderReport } = await import('../scenarios/report.ts');
      const inventory = new InventoryCollector();
      const out = await withWorld(opts.backend, progress, (world) =>
        runScenario(scenario, {
          world,
          seed: opts.seed,
          settings,
          onProgress: progress,
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
          }),
        );
        process.stderr.write(`kovn: report written to ${opts.report}\n`);
      }
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
        ...(r.note ? { note: r.note } : {}),
      }));
      if (opts.json) process.stdout.write(`${JSON.stringify({ backend: opts.backend, results })}\n`);
      else {
        for (const w of out.warnings) process.stderr.write(`kovn: warning ${w.object} ${w.reason}: ${w.message}\n`);
        for (const line of resultsTable(out.results)) process.stdout.write(`${line}\n`);
        const bad = out.results.filter((r) => !r.ok).length;
        process.stdout.write(
          `${out.results.length - bad}/${out.results.length} probes as expected on ${opts.backend}${bad ? paint(31, `, ${bad} not`) : ''}\n`,
        );
      }
      if (out.results.some((r) => !r.ok)) process.exitCode = 1;
    },
  );

  const conn = sim
    .command('connectivity <manifests...>')
    .description('every ordered pair of pods of plain manifests (files or folders), on the given or declared ports')
    .option('--ports <list>', "e.g. TCP/80,UDP/53,TCP/http (default: each destination's declared container ports)")
    .option('--backend <backend>', 'sim (the simulator) or ovn (a local NB/SB/northd, verdicts from ovn-trace)', 'sim')
    .option('--json', 'print {"pairs":[{"from","to","protocol","port","allowed"}]}');
  controllerOptions(conn);
  conn.action(
    async (
      files: string[],
      opts: Record<string, unknown> & { backend: string; json?: boolean; seed: number; ports?: string },
    ) => {
      const { loadManifests } = await import('../scenarios/load.ts');
      const { runConnectivity, parsePorts } = await import('../scenarios/connectivity.ts');
      checkBackend(opts.backend);
      const ports = opts.ports !== undefined ? parsePorts(opts.ports) : undefined;
      progressLine(`loading ${files.join(', ')}`);
      const manifests = loadManifests(files);
      const settings = settingsOf(opts, settingsFromScenario(manifests.cluster));
      for (const i of manifests.ignored)
        process.stderr.write(
          `kovn: ignored ${i.count} ${i.kind} object(s) (first at ${i.first.file}, document ${i.first.doc})\n`,
        );
      const out = await withWorld(opts.backend, progressLine, (world) =>
        runConnectivity(manifests, {
          world,
          settings,
          seed: opts.seed,
          onProgress: progressLine,
          ...(ports ? { ports } : {}),
        }),
      );
      for (const n of out.notes) process.stderr.write(`kovn: ${n}\n`);
      if (opts.json) {
        const pairs = out.pairs.map((p) => ({
          from: p.from,
          to: p.to,
          protocol: p.protocol,
          port: p.port,
          allowed: p.allowed,
          ...(p.reason ? { reason: p.reason } : {}),
        }));
        process.stdout.write(`${JSON.stringify({ pairs })}\n`);
        return;
      }
      for (const w of out.warnings) process.stderr.write(`kovn: warning ${w.object} ${w.reason}: ${w.message}\n`);
      printConnectivity(out);
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
          `${JSON.stringify({ backend: 'sim', results: results.map((r) => ({ step: 0, ...r })) })}\n`,
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

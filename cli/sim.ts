/** `kovn sim ...`: the simulator's commands. */
import type { Command } from 'commander';
import {
  type ControllerSettings,
  SETTING_FLAGS,
  settingsFromFlags,
  settingsFromScenario,
} from '../controller/config.ts';
import type { ProbeResult } from '../scenarios/run.ts';

const useColour = () => process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number, s: string) => (useColour() ? `\u001b[${code}m${s}\u001b[0m` : s);

function describeProbe(r: ProbeResult): string {
  const what = `${r.protocol}${r.port !== undefined ? `/${r.port}` : ''}`;
  const verdict = r.allowed ? 'allowed' : 'denied';
  const want = r.ok ? '' : ` (expected ${r.expected ? 'allowed' : 'denied'})`;
  return `${r.ok ? paint(32, 'ok  ') : paint(31, 'FAIL')} step ${r.step} ${r.from} -> ${r.to} ${what}: ${verdict}${want}${
    r.reason ? ` - ${r.reason}` : ''
  }`;
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

export function registerSim(program: Command): void {
  const sim = program.command('sim').description('run scenarios on a backend (default: the in-process simulator)');

  const run = sim
    .command('run <scenario>')
    .description('a scenario (a YAML file or a folder) through the controller onto a backend; every probe checked')
    .option('--backend <backend>', 'sim (the simulator) or ovn (a local NB/SB/northd, verdicts from ovn-trace)', 'sim')
    .option('--json', 'print {"backend","results":[{"step","from","to","protocol","port","expected","allowed","ok"}]}')
    .option('--seed <n>', 'MAC randomness seed', (v) => Number(v), 1);
  for (const flag of Object.values(SETTING_FLAGS)) run.option(`--${flag} <value>`, `kube-ovn-controller's --${flag}`);
  run.action(
    async (file: string, opts: Record<string, unknown> & { backend: string; json?: boolean; seed: number }) => {
      const { loadScenario } = await import('../scenarios/load.ts');
      const { runScenario, SimWorld } = await import('../scenarios/run.ts');
      if (opts.backend !== 'sim' && opts.backend !== 'ovn')
        throw new Error(`--backend: expected sim or ovn, got ${JSON.stringify(opts.backend)}`);
      const scenario = loadScenario(file);
      const settings = settingsOf(opts, settingsFromScenario(scenario.cluster));
      const progress = (what: string) => {
        if (process.stderr.isTTY) process.stderr.write(`kovn: ${what}\n`);
      };
      for (const i of scenario.ignored)
        process.stderr.write(
          `kovn: ignored ${i.count} ${i.kind} object(s) (first at ${i.first.file}, document ${i.first.doc})\n`,
        );
      let world: import('../scenarios/run.ts').ProbeWorld;
      if (opts.backend === 'ovn') {
        progress('starting a local OVN control plane');
        const { OvnWorld } = await import('../scenarios/ovn-world.ts');
        world = await OvnWorld.start();
      } else world = new SimWorld();
      const stop = () => {
        void world.close().finally(() => process.exit(130));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      let out: Awaited<ReturnType<typeof runScenario>>;
      try {
        out = await runScenario(scenario, { world, seed: opts.seed, settings, onProgress: progress });
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        await world.close();
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
      }));
      if (opts.json) process.stdout.write(`${JSON.stringify({ backend: opts.backend, results })}\n`);
      else {
        for (const w of out.warnings) process.stderr.write(`kovn: warning ${w.object} ${w.reason}: ${w.message}\n`);
        const sorted = [...out.results].sort((a, b) => Number(a.ok) - Number(b.ok));
        for (const r of sorted) process.stdout.write(`${describeProbe(r)}\n`);
        const bad = out.results.filter((r) => !r.ok).length;
        process.stdout.write(
          `${out.results.length - bad}/${out.results.length} probes as expected on ${opts.backend}${bad ? paint(31, `, ${bad} not`) : ''}\n`,
        );
      }
      if (out.results.some((r) => !r.ok)) process.exitCode = 1;
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

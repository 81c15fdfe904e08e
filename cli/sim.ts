/** `kovn sim ...`: the simulator's commands. */
import type { Command } from 'commander';

export function registerSim(program: Command): void {
  const sim = program.command('sim').description('run scenarios on a backend (default: the in-process simulator)');

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

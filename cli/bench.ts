/** `kovn bench <name>`: benchmarks that measure and report, never fail on a figure. */
import type { Command } from 'commander';
import { printReport } from './output.ts';

export function registerBench(program: Command): void {
  const bench = program.command('bench').description('run a benchmark and print its figures');

  bench
    .command('ipam')
    .description('IPAM: allocations/s on a /16 and a /8, releases/s, restore of 150k allocations, heap bytes per IP')
    .option('--allocations <n>', 'allocations per timed run', (v) => Number(v))
    .option('--json', 'print one JSON object')
    .action(async (opts: { allocations?: number; json?: boolean }) => {
      const { runIpamBench } = await import('../bench/ipam.ts');
      printReport(await runIpamBench({ allocations: opts.allocations }), opts.json ?? false);
    });
}

/** `kovn difftest`: random topologies and packets, the simulator against ovn-trace over real northd output. */
import type { Command } from 'commander';

export function registerDifftest(program: Command): void {
  program
    .command('difftest')
    .description('random cases traced by the simulator and by ovn-trace over real northd flows; exit 0 iff all agree')
    .option('--cases <n>', 'number of cases', (v) => Number(v), 300)
    .option('--seed <n>', 'fast-check seed', (v) => Number(v), 7)
    .option('--no-minimize', 'do not shrink disagreements')
    .option('--no-save', 'do not write regression files for disagreements')
    .option('--json', 'print {"cases","agree","disagreements":[...]}')
    .action(async (opts: { cases: number; seed: number; minimize: boolean; save: boolean; json?: boolean }) => {
      const { runDifftest } = await import('../backends/difftest/index.ts');
      const r = await runDifftest({
        cases: opts.cases,
        seed: opts.seed,
        minimize: opts.minimize,
        ...(opts.save ? {} : { regressionsDir: null }),
        onProgress: (p) => process.stderr.write(`\r${p.phase} ${p.index + 1}/${p.cases}, ${p.agree} agree   `),
      });
      process.stderr.write('\n');
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(r)}\n`);
      } else {
        process.stdout.write(`${r.agree}/${r.cases} cases agree (seed ${opts.seed})\n`);
        for (const d of r.disagreements)
          process.stdout.write(`  disagreement: case ${d.case}${d.regression ? ` → ${d.regression}` : ''}\n`);
      }
      process.exitCode = r.disagreements.length === 0 ? 0 : 1;
    });
}

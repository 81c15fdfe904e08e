/**
 * `kovn difftest`: random topologies and packets, the simulator against OVN:
 * ovn-trace over real northd flows and real packets through ovn-controller
 * and the OVS userspace datapath (the judge).
 */
import { wholeNumber } from './options.ts';
import type { Command } from 'commander';

type Oracle = 'trace' | 'datapath' | 'both';
const ORACLES: readonly Oracle[] = ['trace', 'datapath', 'both'];

function parseOracle(v: string): Oracle {
  if (!(ORACLES as readonly string[]).includes(v))
    throw new Error(`--oracle: expected one of ${ORACLES.join(', ')}, got ${JSON.stringify(v)}`);
  return v as Oracle;
}

function parseCases(v: string): number[] {
  const index = wholeNumber('--case', 0);
  return v.split(',').map((x) => index(x));
}

export function registerDifftest(program: Command): void {
  program
    .command('difftest')
    .description(
      'random cases run by the simulator, ovn-trace and real packets through the OVS datapath; exit 0 iff the ' +
        'simulator agrees with the datapath, and with ovn-trace wherever ovn-trace agrees with the datapath',
    )
    .option('--cases <n>', 'number of cases', wholeNumber('--cases', 1), 300)
    .option(
      '--case <list>',
      'run only these case indices of the seeded sequence (comma-separated, e.g. 391,591)',
      parseCases,
    )
    .option('--seed <n>', 'fast-check seed', wholeNumber('--seed', 0), 7)
    .option(
      '--oracle <which>',
      'trace | datapath | both (default: both where ovs-vswitchd and ovn-controller exist)',
      parseOracle,
    )
    .option('--no-minimize', 'do not shrink disagreements')
    .option('--no-save', 'do not write regression files for disagreements')
    .option('--json', 'print {"cases","agree","disagreements":[...],"pairs":{...}}')
    .action(
      async (opts: {
        cases: number;
        case?: number[];
        seed: number;
        oracle?: Oracle;
        minimize: boolean;
        save: boolean;
        json?: boolean;
      }) => {
        const { runDifftest } = await import('../verify/difftest/index.ts');
        const { ovnBinariesPresent } = await import('../backends/ovn/control-plane/index.ts');
        const oracle = opts.oracle ?? (ovnBinariesPresent().ok ? 'both' : 'trace');
        const r = await runDifftest({
          cases: opts.cases,
          ...(opts.case ? { only: opts.case } : {}),
          seed: opts.seed,
          oracle,
          minimize: opts.minimize,
          ...(opts.save ? {} : { regressionsDir: null }),
          onProgress: (p) => process.stderr.write(`\r${p.phase} ${p.index + 1}/${p.cases}, ${p.agree} agree   `),
        });
        process.stderr.write('\n');
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(r)}\n`);
        } else {
          process.stdout.write(
            `${r.agree}/${r.cases} cases agree with the judge (seed ${opts.seed}, oracle ${oracle})\n`,
          );
          for (const [pair, t] of Object.entries(r.pairs)) process.stdout.write(`  ${pair}: ${t.agree}/${t.cases}\n`);
          for (const [kind, a] of Object.entries(r.artefacts))
            process.stdout.write(`  ovn-trace artefact: ${kind}: ${a.count} (cases ${a.cases.join(', ')})\n`);
          for (const [kind, a] of Object.entries(r.datapathArtefacts))
            process.stdout.write(`  datapath artefact: ${kind}: ${a.count} (cases ${a.cases.join(', ')})\n`);
          for (const d of r.disagreements)
            process.stdout.write(
              `  disagreement (${d.oracle}): case ${d.case}${d.regression ? ` → ${d.regression}` : ''}\n`,
            );
        }
        process.exitCode = r.disagreements.length === 0 ? 0 : 1;
      },
    );
}

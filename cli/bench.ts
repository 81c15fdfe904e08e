/** `kovn bench <name>`: benchmarks that measure and report, never fail on a figure. */
import { wholeNumber } from './options.ts';
import type { Command } from 'commander';
import { printReport } from './output.ts';

export function registerBench(program: Command): void {
  const bench = program.command('bench').description('run a benchmark and print its figures');
  registerIpamBench(bench);
  registerSimBench(bench);
  registerControllerBench(bench);
  registerScaleBench(bench);
  registerOvsdbBench(bench);
  registerNetlinkBench(bench);
  registerCniPluginBench(bench);
  registerCniBench(bench);
  registerClusterBench(bench);
}

function registerClusterBench(bench: Command): void {
  bench
    .command('cluster')
    .description(
      'kubemark-style, through the API: sim serve, kovn controller in its own process over HTTPS, hollow nodes and ' +
        'kubelets here; pods/s, create→routed p50/p99, controller RSS, API requests and watch events per pod',
    )
    .option('--nodes <n>', 'hollow nodes (default 200)', wholeNumber('--nodes', 1), 200)
    .option('--pods <n>', 'pods created (default 10,000)', wholeNumber('--pods', 1), 10_000)
    .option('--concurrency <n>', 'pod creates in flight (default 64)', wholeNumber('--concurrency', 1), 64)
    .option('--controller-arg <arg...>', 'extra arguments of kovn controller')
    .option('--json', 'print one JSON object')
    .action(
      async (opts: { nodes: number; pods: number; concurrency: number; controllerArg?: string[]; json?: boolean }) => {
        const { runClusterBench } = await import('../bench/cluster.ts');
        const { realClock } = await import('../kube/runtime/clock.ts');
        const report = await runClusterBench({
          nodes: opts.nodes,
          pods: opts.pods,
          concurrency: opts.concurrency,
          ...(opts.controllerArg ? { controllerArgs: opts.controllerArg } : {}),
          clock: realClock,
          random: Math.random,
          log: (line) => process.stderr.write(`bench cluster: ${line}\n`),
        });
        printReport(report, opts.json ?? false);
      },
    );
}

function registerNetlinkBench(bench: Command): void {
  bench
    .command('netlink')
    .description('node agent rtnetlink with real namespaces (root): addPodLink p50/p99, inspectPodLink, deleteLink')
    .option('--pods <n>', 'pods added one after another (default 30)', wholeNumber('--pods', 1))
    .option('--tx-checksum-off', "each pod end's tx checksum offload turned off (the netdev datapath's ADD)")
    .option('--json', 'print one JSON object')
    .action(async (opts: { pods?: number; txChecksumOff?: boolean; json?: boolean }) => {
      const { runNetlinkBench } = await import('../bench/netlink.ts');
      const params = {
        txChecksumOff: opts.txChecksumOff ?? false,
        ...(opts.pods === undefined ? {} : { pods: opts.pods }),
      };
      printReport(await runNetlinkBench(params), opts.json ?? false);
    });
}

function registerCniPluginBench(bench: Command): void {
  bench
    .command('cni-plugin')
    .description('the CNI plugin executable: VERSION answered, from process start to exit (p50 over --runs)')
    .option('--runs <n>', 'timed calls of dist/cni/kovn (default 20)', wholeNumber('--runs', 1))
    .option(
      '--cli-runs <n>',
      'timed calls of `kovn cni`, for comparison (default 5; 0 skips)',
      wholeNumber('--cli-runs', 0),
    )
    .option('--json', 'print one JSON object')
    .action(async (opts: { runs?: number; cliRuns?: number; json?: boolean }) => {
      const { runCniPluginBench } = await import('../bench/cni-plugin.ts');
      printReport(await runCniPluginBench({ runs: opts.runs, cliRuns: opts.cliRuns }), opts.json ?? false);
    });
}

function registerCniBench(bench: Command): void {
  bench
    .command('cni')
    .description(
      'the CNI path for real (root): pods wired by the plugin executable and the node daemon into ovs-vswitchd ' +
        '(netdev) with OVN; ADD/DEL latency without the annotation wait, plugin start, pod-to-pod TCP connect',
    )
    .option('--pods <n>', 'pods wired (default 100)', wholeNumber('--pods', 2))
    .option('--json', 'print one JSON object')
    .action(async (opts: { pods?: number; json?: boolean }) => {
      const { runCniBench } = await import('../bench/cni.ts');
      const progress = (line: string) => process.stderr.write(`bench cni: ${line}\n`);
      printReport(
        await runCniBench({ ...(opts.pods !== undefined ? { pods: opts.pods } : {}), progress }),
        opts.json ?? false,
      );
    });
}

function registerIpamBench(bench: Command): void {
  bench
    .command('ipam')
    .description('IPAM: allocations/s on a /16 and a /8, releases/s, restore of 150k allocations, heap bytes per IP')
    .option('--allocations <n>', 'allocations per timed run', wholeNumber('--allocations', 1))
    .option('--json', 'print one JSON object')
    .action(async (opts: { allocations?: number; json?: boolean }) => {
      const { runIpamBench } = await import('../bench/ipam.ts');
      printReport(await runIpamBench({ allocations: opts.allocations }), opts.json ?? false);
    });
}

function registerSimBench(bench: Command): void {
  bench
    .command('sim')
    .description('simulator probes/s on 5,000 ports, 1,000 ACLs, 500 LBs, against ovn-trace on the same topology')
    .option('--ports <n>', 'pod ports', wholeNumber('--ports', 1))
    .option('--acls <n>', 'ACLs', wholeNumber('--acls', 1))
    .option('--lbs <n>', 'load balancers', wholeNumber('--lbs', 1))
    .option('--probes <n>', 'timed probes', wholeNumber('--probes', 1))
    .option('--seed <n>', 'topology and probe seed', wholeNumber('--seed', 0))
    .option('--ovn-traces <n>', 'ovn-trace sample size', wholeNumber('--ovn-traces', 1))
    .option('--no-ovn', 'skip the ovn-trace half')
    .option('--json', 'print one JSON object')
    .action(
      async (opts: {
        ports?: number;
        acls?: number;
        lbs?: number;
        probes?: number;
        seed?: number;
        ovnTraces?: number;
        ovn: boolean;
        json?: boolean;
      }) => {
        const { runSimBench } = await import('../bench/sim.ts');
        const report = await runSimBench({
          ...(opts.ports !== undefined ? { ports: opts.ports } : {}),
          ...(opts.acls !== undefined ? { acls: opts.acls } : {}),
          ...(opts.lbs !== undefined ? { lbs: opts.lbs } : {}),
          ...(opts.probes !== undefined ? { probes: opts.probes } : {}),
          ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
          ...(opts.ovnTraces !== undefined ? { ovnTraces: opts.ovnTraces } : {}),
          ovn: opts.ovn,
        });
        printReport(report, opts.json ?? false);
      },
    );
}

function registerControllerBench(bench: Command): void {
  bench
    .command('controller')
    .description('the controller on the in-memory cluster: a pod storm, 10 % churn, a restart, one more pod')
    .option('--nodes <n>', 'nodes (default 200)', wholeNumber('--nodes', 1))
    .option('--pods <n>', 'pods (default 10,000)', wholeNumber('--pods', 1))
    .option('--backend <backend>', 'sim or ovn (a local NB)', 'sim')
    .option(
      '--drift <n>',
      'then another writer changes or deletes N rows of ours and adds 10 of its own',
      wholeNumber('--drift', 1),
    )
    .option('--json', 'print one JSON object')
    .action(async (opts: { nodes?: number; pods?: number; backend: string; drift?: number; json?: boolean }) => {
      if (opts.backend !== 'sim' && opts.backend !== 'ovn')
        throw new Error(`--backend: expected sim or ovn, got ${JSON.stringify(opts.backend)}`);
      const { runControllerBench } = await import('../bench/controller.ts');
      const report = await runControllerBench({
        ...(opts.nodes !== undefined ? { nodes: opts.nodes } : {}),
        ...(opts.pods !== undefined ? { pods: opts.pods } : {}),
        ...(opts.drift !== undefined ? { drift: opts.drift } : {}),
        backend: opts.backend,
        onProgress: (what) => process.stderr.isTTY && process.stderr.write(`bench controller: ${what}\n`),
      });
      printReport(report, opts.json ?? false);
    });
}

function registerScaleBench(bench: Command): void {
  bench
    .command('scale')
    .description('the core at cluster size: plan from empty, compile on 1 and on S switches, probes, RSS')
    .option('--ports <n>', 'pod ports (default 150,000)', wholeNumber('--ports', 1))
    .option('--switches <n>', 'switches they spread over (default 2,000)', wholeNumber('--switches', 1))
    .option('--json', 'print one JSON object')
    .action(async (opts: { ports?: number; switches?: number; json?: boolean }) => {
      const { runScaleBench } = await import('../bench/scale.ts');
      printReport(
        runScaleBench({
          ...(opts.ports !== undefined ? { ports: opts.ports } : {}),
          ...(opts.switches !== undefined ? { switches: opts.switches } : {}),
        }),
        opts.json ?? false,
      );
    });
}

function registerOvsdbBench(bench: Command): void {
  bench
    .command('ovsdb')
    .description('NB write throughput: our client (batched) vs a bare JSON-RPC writer vs one ovn-nbctl per port')
    .option(
      '--ports <n>',
      'logical switch ports to create (default 10,000; 2,000 with --fault)',
      wholeNumber('--ports', 1),
    )
    .option('--switches <n>', 'logical switches they spread over', wholeNumber('--switches', 1))
    .option('--batch <n>', 'operations per transaction', wholeNumber('--batch', 1))
    .option('--nbctl-sample <n>', 'ports written with ovn-nbctl', wholeNumber('--nbctl-sample', 1))
    .option('--rounds <n>', 'timed rounds (median reported)', wholeNumber('--rounds', 1))
    .option('--cluster', 'write to a 3-member raft NB instead of a standalone one')
    .option('--fault <kind>', 'with --cluster: kill-leader, freeze-leader or freeze-follower while writing')
    .option('--seed <n>', 'with --fault: seeds the moment the fault hits', wholeNumber('--seed', 0))
    .option(
      '--freeze-ms <n>',
      'with --fault freeze-*: how long the member stays frozen (default 10000)',
      wholeNumber('--freeze-ms', 1),
    )
    .option('--json', 'print one JSON object')
    .action(ovsdbBenchAction);
}

interface OvsdbBenchOptions {
  ports?: number;
  switches?: number;
  batch?: number;
  nbctlSample?: number;
  rounds?: number;
  cluster?: boolean;
  fault?: string;
  seed?: number;
  freezeMs?: number;
  json?: boolean;
}

/** `kovn bench ovsdb`: the write throughput, or with `--fault` the writes through a fault on a cluster. */
async function ovsdbBenchAction(opts: OvsdbBenchOptions): Promise<void> {
  if (opts.fault !== undefined) {
    const faults = ['kill-leader', 'freeze-leader', 'freeze-follower'];
    if (!faults.includes(opts.fault)) throw new Error(`--fault: one of ${faults.join(', ')}, got ${opts.fault}`);
    if (!opts.cluster) throw new Error('--fault needs --cluster');
    const { runOvsdbFaultBench } = await import('../bench/ovsdb-fault.ts');
    const report = await runOvsdbFaultBench({
      fault: opts.fault as 'kill-leader',
      ...(opts.ports !== undefined ? { ports: opts.ports } : {}),
      ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      ...(opts.freezeMs !== undefined ? { freezeMs: opts.freezeMs } : {}),
    });
    printReport(report, opts.json ?? false);
    return;
  }
  const { runOvsdbBench } = await import('../bench/ovsdb.ts');
  const report = await runOvsdbBench({
    ports: opts.ports ?? 10_000,
    ...(opts.switches !== undefined ? { switches: opts.switches } : {}),
    ...(opts.batch !== undefined ? { batch: opts.batch } : {}),
    ...(opts.nbctlSample !== undefined ? { nbctlSample: opts.nbctlSample } : {}),
    ...(opts.rounds !== undefined ? { rounds: opts.rounds } : {}),
    cluster: opts.cluster ?? false,
  });
  printReport(report, opts.json ?? false);
}

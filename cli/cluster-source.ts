/**
 * The cluster a command asks instead of reading files (`--kubeconfig FILE`
 * and/or `--server URL`, which overrides the kubeconfig's server): the API
 * source of kube/cluster/api, on the real clock and randomness of the
 * composition root.
 */
import type { Command } from 'commander';
import type { ApiClusterSource } from '../kube/cluster/api/source.ts';

export interface ClusterFlags {
  readonly kubeconfig?: string;
  readonly server?: string;
  readonly context?: string;
}

/**
 * Adds `--kubeconfig`, `--server` and `--context` to a command.
 *
 * @example clusterOptions(program.command('run <scenario>'), 'the objects')
 */
export function clusterOptions(cmd: Command, what: string): Command {
  return cmd
    .option('--kubeconfig <file>', `${what} from the cluster this kubeconfig names (e.g. what kovn sim serve wrote)`)
    .option('--server <url>', "the API server's address (overrides the kubeconfig's)")
    .option('--context <name>', 'the kubeconfig context (default: its current one)');
}

/**
 * The cluster the flags name, or undefined when they name none.
 *
 * @example const source = await openCluster({ kubeconfig: 'k.yaml' }); // then source.list('Pod')
 */
export async function openCluster(f: ClusterFlags): Promise<ApiClusterSource | undefined> {
  if (f.kubeconfig === undefined && f.server === undefined) return undefined;
  const { connectApiSource } = await import('../kube/cluster/api/connect.ts');
  const { realClock } = await import('../kube/runtime/clock.ts');
  return connectApiSource({
    kubeconfig: f.kubeconfig ?? '',
    ...(f.server !== undefined ? { server: f.server } : {}),
    ...(f.context !== undefined ? { context: f.context } : {}),
    clock: realClock,
    random: Math.random,
    component: 'kovn-ko',
  });
}

/**
 * The scenario a command runs: the cluster's objects when the flags name a
 * cluster (the file, if any, gives probes, steps and settings), else the
 * files'. `load` reads the files; it is called only when there are some.
 *
 * @example const s = await scenarioFor(opts, [file], () => loadScenario(file));
 */
export async function scenarioFor(
  f: ClusterFlags,
  files: readonly string[],
  load: () => import('../scenarios/load.ts').LoadedScenario,
): Promise<import('../scenarios/load.ts').LoadedScenario> {
  const source = await openCluster(f);
  if (source === undefined) {
    if (files.length === 0) throw new Error('give the scenario or manifests to read, or --kubeconfig / --server');
    return load();
  }
  try {
    const { scenarioFromCluster } = await import('../scenarios/from-cluster.ts');
    return await scenarioFromCluster(
      source,
      f.server ?? f.kubeconfig ?? 'cluster',
      files.length > 0 ? load() : undefined,
    );
  } finally {
    source.close();
  }
}

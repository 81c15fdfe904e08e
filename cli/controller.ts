/**
 * `kovn controller`: the controller as its own process, against a
 * Kubernetes API, as one replica of several (cli/controller-run.ts, loaded
 * when the command runs).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { SETTING_FLAGS } from '../controller/config.ts';
import { DEFAULT_TIMING } from '../controller/leader/elector.ts';
import type { ControllerFlags } from './controller-run.ts';

/** Kube-OVN's controller metrics port. */
export const DEFAULT_METRICS_ADDR = ':10660';

/**
 * @example registerController(program);
 */
export function registerController(program: Command): void {
  const cmd = program
    .command('controller')
    .description(
      'the controller as its own process against a Kubernetes API (kube-ovn-controller): leader election through a ' +
        'Lease, /metrics /healthz /readyz, JSON logs on stderr',
    )
    .option('--kubeconfig <file>', "the API's kubeconfig (default: the pod's service account, in-cluster)")
    .option('--context <name>', 'the kubeconfig context (default: its current one)')
    .option('--backend <name>', 'sim or ovn', 'sim')
    .option('--nb <remote>', 'with --backend ovn: the Northbound database (default: OVN_NB_DB)')
    .option('--metrics-addr <host:port>', '/metrics, /healthz and /readyz', DEFAULT_METRICS_ADDR)
    .option('--lease-namespace <ns>', "the election Lease's namespace", process.env.POD_NAMESPACE ?? 'kube-system')
    .option('--lease-name <name>', "the election Lease's name", 'kovn-controller')
    .option(
      '--identity <id>',
      "this replica's name in the Lease (default: POD_NAME, else host_uuid)",
      process.env.POD_NAME ?? `${hostname()}_${randomUUID()}`,
    )
    .option(
      '--leader-elect-lease-duration <d>',
      'how long a standby waits on an unrenewed lease',
      `${DEFAULT_TIMING.leaseDurationMs / 1000}s`,
    )
    .option(
      '--leader-elect-renew-deadline <d>',
      'how long the leader leads without renewing',
      `${DEFAULT_TIMING.renewDeadlineMs / 1000}s`,
    )
    .option(
      '--leader-elect-retry-period <d>',
      'time between election attempts',
      `${DEFAULT_TIMING.retryPeriodMs / 1000}s`,
    )
    .option('--log-level <level>', 'debug, info, warn or error', 'info');
  for (const flag of Object.values(SETTING_FLAGS)) cmd.option(`--${flag} <value>`, `kube-ovn-controller's --${flag}`);
  cmd.action(async (flags: ControllerFlags) => (await import('./controller-run.ts')).runController(flags));
}

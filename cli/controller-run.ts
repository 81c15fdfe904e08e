/**
 * `kovn controller`, run (cli/controller.ts registers it; this file is
 * loaded only when the command runs, as the API client is large): the
 * controller as its own process, against a Kubernetes API (a kubeconfig file, or the pod's service account when run
 * in the cluster), on the simulator or on real OVN (`--nb`), as one replica
 * of several: it leads through a Lease before it reconciles (controller/
 * replica.ts), serves /metrics /healthz /readyz on `--metrics-addr`, and
 * logs JSON lines on stderr. SIGTERM stops the controller and releases the
 * Lease before the process exits; losing the lead ends it with status 1.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Backend } from '../backends/backend.ts';
import { SETTING_FLAGS, settingsFromFlags } from '../controller/config.ts';
import { checkTiming, type ElectionTiming } from '../controller/leader/elector.ts';
import { Replica } from '../controller/replica.ts';
import { connectApiSource } from '../kube/cluster/api/connect.ts';
import {
  isLogLevel,
  jsonLogger,
  type Logger,
  meteredCluster,
  parseListenAddress,
  startObserveServer,
} from '../kube/observe/index.ts';
import { realClock } from '../kube/runtime/clock.ts';
import { onTerminate } from './lifecycle.ts';

export interface ControllerFlags {
  kubeconfig?: string;
  context?: string;
  backend: string;
  nb?: string;
  metricsAddr: string;
  leaseNamespace: string;
  leaseName: string;
  identity: string;
  leaderElectLeaseDuration: string;
  leaderElectRenewDeadline: string;
  leaderElectRetryPeriod: string;
  logLevel: string;
  [setting: string]: unknown;
}

/**
 * A duration as Kubernetes flags write them (`15s`, `500ms`, `1m`; a bare number is seconds), in ms.
 *
 * @example durationMs('--leader-elect-retry-period', '2s') // 2000
 */
export function durationMs(flag: string, v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(v.trim());
  if (m === null) throw new Error(`${flag}: expected a duration such as 15s or 500ms, got ${JSON.stringify(v)}`);
  const scale = m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1_000;
  return Math.round(Number(m[1]) * scale);
}

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function settingsOf(flags: ControllerFlags) {
  const given: Record<string, string> = {};
  for (const flag of Object.values(SETTING_FLAGS)) {
    const v = flags[camel(flag)];
    if (typeof v === 'string') given[flag] = v;
  }
  const r = settingsFromFlags(given);
  if (r.issues.length > 0) throw new Error(r.issues.map((i) => i.message).join('; '));
  return r.settings;
}

function timingOf(flags: ControllerFlags): ElectionTiming {
  return {
    leaseDurationMs: durationMs('--leader-elect-lease-duration', flags.leaderElectLeaseDuration),
    renewDeadlineMs: durationMs('--leader-elect-renew-deadline', flags.leaderElectRenewDeadline),
    retryPeriodMs: durationMs('--leader-elect-retry-period', flags.leaderElectRetryPeriod),
  };
}

/** The backend the leader opens: the simulator, or OVN's NB at `--nb` (else OVN_NB_DB). */
function backendOpener(flags: ControllerFlags, log: Logger): () => Promise<Backend> {
  if (flags.backend === 'sim') return async () => new (await import('../backends/sim/index.ts')).SimBackend();
  if (flags.backend !== 'ovn') throw new Error(`--backend: expected sim or ovn, got ${JSON.stringify(flags.backend)}`);
  const nb = flags.nb ?? process.env.OVN_NB_DB;
  if (nb === undefined) throw new Error('--backend ovn: needs --nb (or OVN_NB_DB), the Northbound database remote');
  return async () => {
    const { OvnBackend } = await import('../backends/ovn/index.ts');
    log.info('connecting to the Northbound database', { nb });
    return OvnBackend.connect({ remotes: nb });
  };
}

/**
 * Runs until a signal or the loss of the lead ends the process.
 *
 * @example await runController(flags);
 */
export async function runController(flags: ControllerFlags): Promise<void> {
  const level = flags.logLevel;
  if (!isLogLevel(level))
    throw new Error(`--log-level: expected debug, info, warn or error, got ${JSON.stringify(level)}`);
  const log = jsonLogger({ write: (l) => process.stderr.write(l), now: Date.now, component: 'controller', level });
  const timing = timingOf(flags);
  const lease = { namespace: flags.leaseNamespace, name: flags.leaseName };
  checkTiming(timing, lease);
  const settings = settingsOf(flags);
  const openBackend = backendOpener(flags, log);
  const listen = parseListenAddress(flags.metricsAddr);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const kubeconfig = flags.kubeconfig ?? 'in-cluster';
  const api = await connectApiSource({
    kubeconfig,
    ...(flags.context !== undefined ? { context: flags.context } : {}),
    clock: realClock,
    random: Math.random,
    component: 'kube-ovn-controller',
    onRetry: (kind, err, delayMs) => log.warn('watch failed, retrying', { kind, err, delayMs }),
  });
  const cluster = meteredCluster(api, { registry, clock: realClock, host: kubeconfig });
  const replica = new Replica({
    cluster,
    openBackend,
    clock: realClock,
    random: Math.random,
    macRandom: (out) => crypto.getRandomValues(out),
    lease,
    identity: flags.identity,
    timing,
    settings,
    log,
    registry,
    exit: (code) => process.exit(code),
  });
  const server = await startObserveServer({
    registry,
    ...listen,
    healthz: () => replica.healthy(),
    readyz: () => replica.ready(),
  });
  log.info('serving metrics', { address: server.address, identity: flags.identity });
  onTerminate(async () => {
    await replica.terminate();
    await server.close();
  });
  replica.start();
  await new Promise<never>(() => {});
}

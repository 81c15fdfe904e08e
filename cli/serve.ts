/**
 * `kovn sim serve <scenario|manifests>`: the in-memory cluster behind a
 * Kubernetes-API-compatible HTTPS endpoint (kube/apiserver/http over the
 * description side, kube/apiserver/describe), the files loaded into it as
 * `sim run` loads them, the controller running inside on the simulator (or
 * not, with `--no-controller`: the bench runs it as its own process), and
 * the kubeconfig written to `--kubeconfig-out` once the endpoint answers.
 * The process ends on SIGINT/SIGTERM (cli/lifecycle.ts).
 */
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { ControllerSettings } from '../controller/config.ts';
import type { ApiServer } from '../kube/apiserver/http/index.ts';
import type { MemoryCluster } from '../kube/cluster/memory.ts';
import { formatWarning } from '../kube/objects/warnings.ts';
import { realClock } from '../kube/runtime/clock.ts';
import { wholeNumber } from './options.ts';
import { publishOvnConfig, type ServeBackendName, startServeBackend } from './serve-backend.ts';
import { controllerOptions, settingsOf } from './sim.ts';

/** kovn's own CRD manifests (deploy/crds), registered at start when they are there. */
const CRD_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'deploy', 'crds');

export interface ServeOptions {
  readonly files: readonly string[];
  /** 0: any free port. */
  readonly port: number;
  readonly kubeconfigOut?: string;
  /** The controller's backend (default sim); `ovn` also publishes ConfigMap kube-system/kovn-ovn. */
  readonly backend?: ServeBackendName;
  /** Run the controller inside (default true). */
  readonly controller: boolean;
  /** Run the simulated kubelet inside: routed pods reported Running with their addresses (default true). */
  readonly kubelet?: boolean;
  readonly seed: number;
  /** kube-ovn-controller's flags, as `sim run` takes them. */
  readonly flags?: Record<string, unknown>;
  /** CRD manifests registered at start (default: deploy/crds when it exists). */
  readonly crdFiles?: readonly string[];
  readonly log?: (line: string) => void;
}

/** A running serve: its URL, its cluster, and how to stop it. */
export interface Serving {
  readonly url: string;
  readonly cluster: MemoryCluster;
  readonly api: ApiServer;
  /** The kubeconfig's text (also written to `kubeconfigOut` when given). */
  readonly kubeconfig: string;
  close(): Promise<void>;
}

/**
 * @example
 * const s = await startServe({ files: ['scenarios/quickstart.yaml'], port: 0, controller: true, seed: 1 });
 * // kubectl --kubeconfig <(echo "$s.kubeconfig") get pods -A
 * await s.close();
 */
export async function startServe(opts: ServeOptions): Promise<Serving> {
  const log = opts.log ?? (() => {});
  // Loaded when serving, not on every `kovn` start.
  const { loadManifests } = await import('../scenarios/load.ts');
  const { expandObjects } = await import('../scenarios/expand.ts');
  const { settingsFromScenario } = await import('../controller/config.ts');
  const { createApiDescription } = await import('../kube/apiserver/describe/index.ts');
  const { renderKubeconfig, selfSignedCertificate, startApiServer } = await import('../kube/apiserver/http/index.ts');
  const manifests = loadManifests(opts.files);
  // What kovn does not act on is told at start, as `sim run` tells it with its answer.
  for (const w of manifests.warnings) log(`not acted on: ${formatWarning(w)}`);
  const settings = settingsOf(opts.flags ?? {}, settingsFromScenario(manifests.cluster));
  const sim = await expandObjects(
    manifests.objects.map((o) => o.object),
    {
      ...(manifests.cluster.nodes !== undefined ? { nodes: manifests.cluster.nodes } : {}),
      serviceCIDR: settings.serviceClusterIPRange,
      now: () => Date.now(),
    },
  );
  const closers: Closers = [() => sim.workloads.stop()];
  const close = async () => {
    for (const c of closers.reverse()) await c();
  };
  try {
    const crdFiles = opts.crdFiles ?? (existsSync(CRD_DIR) ? [CRD_DIR] : []);
    const description = await createApiDescription(sim.cluster, {
      crdFiles,
      now: () => Date.now(),
    });
    closers.push(() => description.close());
    await startInside(sim.cluster, opts, settings, closers);
    closers.push(
      await followSlices(
        sim.cluster,
        manifests.objects.map((o) => o.object),
      ),
    );
    const tls = await selfSignedCertificate();
    const token = randomBytes(24).toString('base64url');
    const api = await startApiServer({
      cluster: sim.cluster,
      description,
      clock: realClock,
      random: () => randomInt(2 ** 32) / 2 ** 32,
      token,
      tls,
      port: opts.port,
    });
    closers.push(() => api.close());
    const kubeconfig = renderKubeconfig({ server: api.url, caCert: tls.cert, token });
    if (opts.kubeconfigOut !== undefined) writeAtomically(opts.kubeconfigOut, kubeconfig);
    log(`serving on ${api.url}${opts.kubeconfigOut ? `, kubeconfig in ${opts.kubeconfigOut}` : ''}`);
    return { url: api.url, cluster: sim.cluster, api, kubeconfig, close };
  } catch (err) {
    await close();
    throw err;
  }
}

type Closers = (() => Promise<void> | void)[];

/** What runs inside serve beside the API: the controller on its backend, and the simulated kubelet. */
async function startInside(
  cluster: MemoryCluster,
  opts: ServeOptions,
  settings: ControllerSettings,
  closers: Closers,
): Promise<void> {
  const log = opts.log ?? (() => {});
  if (opts.controller) {
    const { Controller } = await import('../controller/controller.ts');
    const { seededRandomBytes } = await import('../model/ipam/index.ts');
    log(opts.backend === 'ovn' ? 'starting a local OVN control plane' : 'starting the simulator');
    const b = await startServeBackend(opts.backend ?? 'sim');
    closers.push(() => b.close());
    if (b.ovn !== undefined) await publishOvnConfig(cluster, b.ovn);
    const controller = new Controller({
      cluster,
      backend: b.backend,
      clock: realClock,
      random: seededRandomBytes(opts.seed),
      settings,
    });
    closers.push(() => controller.stop());
    log('controller starting');
    await controller.start();
  }
  if (opts.kubelet !== false) {
    const { SimKubelet } = await import('../kube/cluster/kubelet.ts');
    const kubelet = new SimKubelet(cluster, { clock: realClock });
    closers.push(() => kubelet.stop());
    await kubelet.start();
  }
}

/** How long changes of pods and Services are gathered before the EndpointSlices are brought in step. */
const SLICE_DELAY_MS = 50;

/**
 * kube-controller-manager's endpoint-slice controller, as `sim run` has it
 * (scenarios/slices.ts): the slices of Services with a selector follow
 * their pods; Services whose slices the files gave keep those.
 */
async function followSlices(
  cluster: MemoryCluster,
  objects: readonly Readonly<Record<string, unknown>>[],
): Promise<() => void> {
  const { syncSlices } = await import('../scenarios/slices.ts');
  const given = new Set<string>();
  for (const o of objects) {
    const meta = (o['metadata'] ?? {}) as { namespace?: string; labels?: Record<string, string> };
    const svc = meta.labels?.['kubernetes.io/service-name'];
    if (o['kind'] === 'EndpointSlice' && svc !== undefined) given.add(`${meta.namespace ?? 'default'}/${svc}`);
  }
  // Without a Service there is no slice to keep, and the pods need not be read (a bench creates thousands).
  const sync = async () => {
    const services = await cluster.list('Service');
    const slices = await cluster.list('EndpointSlice');
    if (services.items.length > 0 || slices.items.length > 0) await syncSlices(cluster, given);
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = Promise.resolve();
  const schedule = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      running = running.then(() => sync()).catch(() => schedule());
    }, SLICE_DELAY_MS);
  };
  const watches = ['Pod', 'Service'].map((k) => cluster.watch(k, cluster.resourceVersion, schedule));
  schedule();
  return () => {
    for (const w of watches) w.stop();
    if (timer !== undefined) clearTimeout(timer);
  };
}

/** Written whole or not at all: a client polling for the file never reads half of it. */
function writeAtomically(file: string, text: string): void {
  const tmp = `${resolve(file)}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, file);
}

/**
 * `kovn sim serve` under `kovn sim`.
 *
 * @example registerServe(program.command('sim'));
 */
export function registerServe(sim: Command): void {
  const cmd = sim
    .command('serve <files...>')
    .description(
      'the in-memory cluster of a scenario or manifests behind a Kubernetes API over HTTPS (kubectl works against it), the controller inside',
    )
    .option('--port <n>', 'the HTTPS port on 127.0.0.1 (0: any free port)', wholeNumber('--port', 0, 65535), 6443)
    .option('--kubeconfig-out <file>', 'write a kubeconfig for the endpoint here once it answers')
    .option(
      '--backend <backend>',
      'sim (the simulator) or ovn (a local NB/SB/northd; ConfigMap kube-system/kovn-ovn says where)',
      'sim',
    )
    .option('--no-controller', 'do not run the controller inside (it runs as its own process: kovn controller)')
    .option('--no-kubelet', 'do not report routed pods Running (the simulated kubelet runs elsewhere)');
  controllerOptions(cmd);
  cmd.action(async (files: string[], o: Record<string, unknown>) => {
    const backend = o['backend'];
    if (backend !== 'sim' && backend !== 'ovn')
      throw new Error(`--backend: expected sim or ovn, got ${JSON.stringify(backend)}`);
    if (backend === 'ovn' && o['controller'] === false)
      throw new Error('--backend ovn runs the controller inside: it cannot be given with --no-controller');
    await startServe({
      files,
      port: o['port'] as number,
      ...(typeof o['kubeconfigOut'] === 'string' ? { kubeconfigOut: o['kubeconfigOut'] } : {}),
      backend,
      controller: o['controller'] !== false,
      kubelet: o['kubelet'] !== false,
      seed: o['seed'] as number,
      flags: o,
      log: (line) => process.stderr.write(`kovn: ${line}\n`),
    });
  });
}

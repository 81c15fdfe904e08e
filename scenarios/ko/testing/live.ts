/**
 * A live cluster for `kovn ko`'s tests: a scenario's objects in an
 * in-memory cluster (its workload controllers running, EndpointSlices
 * derived as the runner derives them) and the real controller over it
 * writing to a local OVN control plane's NB, as `kovn sim serve --backend
 * ovn` runs it. `settle` stops the controller once it has settled, so a
 * test can break NB or an annotation by hand with nobody repairing it.
 */
import { type ControlPlane, startControlPlane } from '../../../backends/ovn/control-plane/index.ts';
import { OvnBackend } from '../../../backends/ovn/nb/index.ts';
import { type ControllerSettings, settingsFromScenario } from '../../../controller/config.ts';
import { Controller } from '../../../controller/controller.ts';
import { settled } from '../../../controller/settle.ts';
import type { MemoryCluster } from '../../../kube/cluster/memory.ts';
import { realClock } from '../../../kube/runtime/clock.ts';
import { seededRandomBytes } from '../../../model/ipam/index.ts';
import { expandObjects } from '../../expand.ts';
import { type LoadedScenario, loadScenario } from '../../load.ts';
import { syncSlices } from '../../slices.ts';

export interface LiveCluster {
  readonly cluster: MemoryCluster;
  /** The settings the cluster's controller ran with (the scenario's). */
  readonly settings: ControllerSettings;
  readonly cp: ControlPlane;
  readonly backend: OvnBackend;
  stop(): Promise<void>;
}

/**
 * @example
 * const live = await startLive('scenarios/quickstart.yaml', { northd: true });
 * await runTool('ovn-nbctl', [`--db=${live.cp.nb.remote}`, 'lsp-del', 'debug.default']);
 * await live.stop();
 */
export async function startLive(
  file: string | LoadedScenario,
  opts: {
    readonly northd: boolean;
    /** Write to this NB instead of the control plane's (a clustered one; northd then compiles nothing of it). */
    readonly nb?: string;
  },
): Promise<LiveCluster> {
  const s = typeof file === 'string' ? loadScenario(file) : file;
  const settings = settingsFromScenario(s.cluster);
  const ex = await expandObjects(
    s.objects.map((o) => o.object),
    {
      ...(s.cluster.nodes !== undefined ? { nodes: s.cluster.nodes } : {}),
      serviceCIDR: settings.serviceClusterIPRange,
    },
  );
  const cp = await startControlPlane({ northd: opts.northd });
  const backend = await OvnBackend.connect({ remotes: opts.nb ?? cp.nb.remote });
  const controller = new Controller({
    cluster: ex.cluster,
    backend,
    clock: realClock,
    random: seededRandomBytes(1),
    settings,
  });
  await controller.start();
  await settled(controller);
  await syncSlices(ex.cluster, new Set());
  await settled(controller);
  await controller.stop();
  ex.workloads.stop();
  return {
    cluster: ex.cluster,
    settings,
    cp,
    backend,
    async stop() {
      await backend.close();
      await cp.stop();
    },
  };
}

/**
 * A scenario as a running cluster holds it without OVN: its controller on
 * the simulator settled (addresses annotated, EndpointSlices derived), then
 * stopped; the workload controllers stay (stop them with `stop`).
 *
 * @example const { cluster, stop } = await startSimLive('scenarios/quickstart.yaml');
 */
export async function startSimLive(file: string): Promise<{ cluster: MemoryCluster; stop(): void }> {
  const { SimBackend } = await import('../../../backends/sim/index.ts');
  const s = loadScenario(file);
  const settings = settingsFromScenario(s.cluster);
  const ex = await expandObjects(
    s.objects.map((o) => o.object),
    { nodes: s.cluster.nodes ?? 1, serviceCIDR: settings.serviceClusterIPRange, now: () => 1_700_000_000_000 },
  );
  const c = new Controller({
    cluster: ex.cluster,
    backend: new SimBackend(),
    clock: realClock,
    random: seededRandomBytes(7),
    settings,
  });
  await c.start();
  await settled(c);
  await syncSlices(ex.cluster, new Set());
  await settled(c);
  await c.stop();
  return { cluster: ex.cluster, stop: () => ex.workloads.stop() };
}

/** The live cluster behind the API front, its kubeconfig in `dir`, and the ConfigMap `kovn ko` reads. */
export interface ServedLive {
  readonly kubeconfig: string;
  /** The API's address. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `live.cluster` over HTTPS as `kovn sim serve` does (the describe
 * side with kovn's CRDs, a self-signed certificate, a token) and writes
 * ConfigMap kube-system/kovn-ovn naming its databases.
 *
 * @example const served = await serveLive(live, tmp); // kovn ko diagnose --kubeconfig served.kubeconfig
 */
export async function serveLive(
  live: Pick<LiveCluster, 'cluster'> & { readonly cp?: ControlPlane },
  dir: string,
): Promise<ServedLive> {
  const { createApiDescription } = await import('../../../kube/apiserver/describe/index.ts');
  const http = await import('../../../kube/apiserver/http/index.ts');
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const description = await createApiDescription(live.cluster, { crdFiles: ['deploy/crds'] });
  const tls = await http.selfSignedCertificate();
  const token = 'ko-test';
  const api = await http.startApiServer({
    cluster: live.cluster,
    description,
    clock: realClock,
    random: () => 0.5,
    token,
    tls,
  });
  const cp = live.cp;
  if (cp)
    await live.cluster.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'kube-system', name: 'kovn-ovn' },
      data: { nb: cp.nb.remote, sb: cp.sb.remote, nbCtl: cp.nb.ctl, sbCtl: cp.sb.ctl },
    } as Parameters<MemoryCluster['create']>[0]);
  const kubeconfig = join(dir, 'kubeconfig.yaml');
  writeFileSync(kubeconfig, http.renderKubeconfig({ server: api.url, caCert: tls.cert, token }));
  return {
    kubeconfig,
    url: api.url,
    async close() {
      await api.close();
      description.close();
    },
  };
}

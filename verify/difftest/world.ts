/**
 * The real-OVN side of the differential test behind a small interface, so
 * the runner can be driven by a fake in unit tests: one control plane (NB,
 * SB, northd) and one ovn-trace tracer for a whole run.
 *
 * Each case's topology is written over the previous one through the NB
 * backend (`OvnBackend`): `apply(plan(read(), next))`, then
 * `waitForNorthd()` (nb_cfg → sb_cfg), then the tracer's daemons re-read the
 * SB. So the differential test also exercises the diff and the backend's
 * updates, not just inserts into an empty NB. `loader: 'replace'` uses the
 * temporary whole-NB replacement instead (temp-nb-loader.ts), to tell a
 * backend problem from a simulator one.
 */
import { plan, type Topology } from '../../model/topology/index.ts';
import { startControlPlane, type ControlPlane } from '../../backends/ovn/control-plane/index.ts';
import { DatapathOracle, type DatapathRequest, type DatapathRun, oneNetworkPerLocalnet } from '../datapath/index.ts';
import { OvnBackend, OvnBackendError } from '../../backends/ovn/nb/index.ts';
import { OvnTracer, type OvnTraceRequest, type OvnTraceResult } from '../../backends/ovn/trace/index.ts';

export interface OvnWorld {
  /** Makes OVN hold `topology` (and nothing else kovn owns), northd done, tracer reading the new SB. */
  load(topology: Topology): Promise<void>;
  trace(req: OvnTraceRequest): Promise<OvnTraceResult>;
  /** The same trace over a copy of the SB with gateway routers' l3gateway ports read as patches (OvnTracer). */
  traceGatewaysAsPatches?(req: OvnTraceRequest): Promise<OvnTraceResult>;
  /** Real packets through the chassis (present when the world was made with `datapath: true`). */
  readonly datapath?: (req: DatapathRequest) => Promise<DatapathRun>;
  /** Forgets what the chassis learned from packets (SB MAC_Binding, FDB). */
  readonly forgetLearned?: () => Promise<void>;
  /** Times the chassis' vswitchd died and was restarted (its runs were done again). */
  readonly datapathRestarts?: () => number;
  close(): Promise<void>;
}

export interface OvnWorldOptions {
  /** Use this control plane (left running on close); default: start one. */
  readonly controlPlane?: ControlPlane;
  /** Also start a chassis (verify/datapath) and bind every loaded topology's ports. */
  readonly datapath?: boolean;
  /** The datapath oracle's bounded wait for pinctrl (ms). */
  readonly settleMs?: number;
}

interface Loader {
  load(t: Topology): Promise<void>;
  /**
   * Until the chassis installed the flows (NB_Global.hv_cfg), in short waits
   * while `alive` holds; false when it stopped holding (ovn-controller died).
   */
  waitChassis(alive: () => boolean): Promise<boolean>;
  close(): Promise<void>;
}

/** Bound on the chassis catching up with one topology. */
const CHASSIS_TIMEOUT_MS = 60_000;

async function backendLoader(cp: ControlPlane): Promise<Loader> {
  const be = await OvnBackend.connect({ remotes: cp.nb.remote });
  return {
    async load(t) {
      await be.apply(plan(await be.read(), t), { label: 'difftest' });
      await be.waitForNorthd({ timeoutMs: 60_000 });
    },
    async waitChassis(alive) {
      const deadline = performance.now() + CHASSIS_TIMEOUT_MS;
      for (;;) {
        if (!alive()) return false;
        try {
          await be.waitForNorthd({ timeoutMs: 2_000, until: 'hv' });
          return true;
        } catch (e) {
          if (!(e instanceof OvnBackendError) || performance.now() > deadline) throw e;
        }
      }
    },
    close: () => be.close(),
  };
}

/**
 * @example
 * const world = await createOvnWorld();
 * try { await world.load(topology); const r = await world.trace({ datapath: 'ls0', inport, packet }); } finally {
 * await world.close(); }
 */
export async function createOvnWorld(opts: OvnWorldOptions = {}): Promise<OvnWorld> {
  const cp = opts.controlPlane ?? (await startControlPlane());
  let loader: Loader;
  let dp: DatapathOracle | undefined;
  try {
    loader = await backendLoader(cp);
    if (opts.datapath)
      dp = await DatapathOracle.start({
        controlPlane: cp,
        dir: cp.dir,
        ...(opts.settleMs !== undefined ? { settleMs: opts.settleMs } : {}),
      });
  } catch (e) {
    if (opts.controlPlane === undefined) await cp.stop();
    throw e;
  }
  let tracer: OvnTracer | undefined;
  return {
    async load(given) {
      // What the chassis learned from the last case's packets (MAC bindings, FDB) must not reach this one.
      await dp?.forgetLearned();
      // Localnet ports apart on the chassis; network names change no logical flow (see oracle.ts).
      const topology = oneNetworkPerLocalnet(given);
      // Interfaces first: ovn-controller claims each port as northd makes its binding.
      await dp?.bind(topology);
      await loader.load(topology);
      if (dp) {
        if (await loader.waitChassis(() => dp.running)) await dp.installed({ synced: true });
        else dp.markUnavailable('ovn-controller died installing the topology (see CHASSIS_DAEMON_MEMORY_LIMIT)');
      }
      if (tracer === undefined) tracer = await OvnTracer.start({ dir: cp.dir, sbRemote: cp.sb.remote });
      else await tracer.reload();
    },
    async trace(req) {
      if (tracer === undefined) throw new Error('OvnWorld.trace before load');
      return tracer.trace(req);
    },
    async traceGatewaysAsPatches(req) {
      if (tracer === undefined) throw new Error('OvnWorld.traceGatewaysAsPatches before load');
      return tracer.traceGatewaysAsPatches(req);
    },
    ...(dp
      ? {
          datapath: (req: DatapathRequest) => dp.run(req),
          forgetLearned: () => dp.forgetLearned(),
          datapathRestarts: () => dp.restarts,
        }
      : {}),
    async close() {
      try {
        await tracer?.stop();
        await dp?.stop();
      } finally {
        await loader.close();
        if (opts.controlPlane === undefined) await cp.stop();
      }
    },
  };
}

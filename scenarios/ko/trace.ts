/**
 * `kovn ko trace <ns/pod> <ip|ns/pod> <proto> [port]`: one packet, traced
 * twice side by side. ovn-trace over the live SB (what northd compiled from
 * the NB as it is now), and the simulator over the cluster's objects (what
 * kovn's controller makes of them, replayed beside the cluster: replay.ts).
 * The probe is resolved once, on the replay (the pod's port, its address,
 * the destination's), and both are asked the same question; `agree` says
 * whether they gave one verdict. A difference is either NB drifting from
 * the objects (`kovn ko diagnose` says which rows) or the simulator and OVN
 * disagreeing (OVN is right: docs/architecture.md).
 *
 * ovn-trace traces the first packet (ct new in every zone) and, where it
 * learned a load-balancer affinity and died, its retransmission, as the ovn
 * backend of `kovn sim run` does (ovn-world.ts, ovnAnswer); the simulator
 * answers the whole probe (the first packet, then the reply through the
 * conntrack state it left).
 */
import { makeTempDir, removeTempDir } from '../../backends/ovn/control-plane/index.ts';
import { OvnProber } from '../../backends/ovn/prober.ts';
import type { ControllerSettings } from '../../controller/config.ts';
import { DEFAULT_SETTINGS } from '../../controller/config.ts';
import type { ClusterSource, KubeObject } from '../../kube/cluster/types.ts';
import type { Clock } from '../../kube/runtime/clock.ts';
import type { ScenarioProbe } from '../load.ts';
import { ovnAnswer } from '../ovn-world.ts';
import { buildIndex, type ResolvedProbe, resolveProbe } from '../probe.ts';
import { SimWorld, worldNetwork } from '../run.ts';
import { type TraceReport, traceResolved } from '../trace-probe.ts';
import { replayCluster } from './replay.ts';

export interface KoTraceOptions {
  readonly cluster: ClusterSource;
  /** The live databases (ovn-nbctl's remote syntax). */
  readonly nb: string;
  readonly sb: string;
  readonly clock: Clock;
  readonly settings?: ControllerSettings;
}

/** One side's answer: allowed or not, and why not. */
export interface SideVerdict {
  readonly allowed: boolean;
  readonly reason?: string;
}

export interface KoTrace {
  readonly probe: ScenarioProbe;
  /** The simulator's verdict over the objects, and its trace (absent when the probe resolved to no packet). */
  readonly sim: SideVerdict & { readonly trace?: TraceReport };
  /**
   * ovn-trace's verdict over the live SB and its own text; where the first
   * packet learned an affinity and died, the retransmission's verdict, its
   * text and a note (as the ovn backend of `kovn sim run` answers).
   */
  readonly ovn: SideVerdict & { readonly text?: string; readonly retransmission?: string; readonly note?: string };
  readonly agree: boolean;
}

const INDEX_KINDS = ['Pod', 'Service', 'EndpointSlice', 'Node', 'Subnet', 'NetworkPolicy'];

/**
 * @example
 * const t = await koTrace({ from: 'default/debug', to: 'data/db-0', protocol: 'TCP', port: 5432, allowed: true },
 *   { cluster, nb: 'unix:/run/ovn/ovnnb_db.sock', sb: 'unix:/run/ovn/ovnsb_db.sock', clock: realClock });
 * t.agree; // true: both drop it (the NetworkPolicy)
 */
export async function koTrace(probe: ScenarioProbe, opts: KoTraceOptions): Promise<KoTrace> {
  const settings = opts.settings ?? DEFAULT_SETTINGS;
  const world = new SimWorld();
  const r = await replayCluster(opts.cluster, { clock: opts.clock, settings, backend: world.backend });
  try {
    await world.ready();
    const objects: Record<string, readonly KubeObject[]> = {};
    for (const k of INDEX_KINDS) objects[k] = (await r.cluster.list(k)).items;
    const ix = buildIndex(objects, await world.backend.read(), settings);
    const resolved = resolveProbe(ix, probe, 0);
    if (resolved.kind === 'denied') {
      const no = { allowed: false, reason: resolved.reason };
      return { probe, sim: no, ovn: no, agree: true };
    }
    const sim = await world.answer(resolved);
    const trace = traceResolved(await worldNetwork(world), resolved, probe);
    const ovn = await ovnSide(resolved, opts);
    const simSide = { allowed: sim.allowed, ...(sim.reason ? { reason: sim.reason } : {}), trace };
    return { probe, sim: simSide, ovn, agree: sim.allowed === ovn.allowed };
  } finally {
    await r.stop();
    await world.close();
  }
}

/** ovn-trace over the live SB, its daemon's files in a run dir of this process. */
async function ovnSide(r: ResolvedProbe & { kind: 'packet' }, opts: KoTraceOptions): Promise<KoTrace['ovn']> {
  const dir = await makeTempDir('ko-trace');
  try {
    const prober = await OvnProber.connect({ remotes: opts.nb, sbRemote: opts.sb, dir });
    try {
      const nb = await prober.read();
      if (!nb.switchPort.has(r.inport) && !nb.routerPort.has(r.inport))
        return { allowed: false, reason: `the live NB has no port ${r.inport} (kovn ko diagnose says why)` };
      const a = await ovnAnswer(prober, r);
      return {
        allowed: a.allowed,
        ...(a.reason ? { reason: a.reason } : {}),
        ...(a.note ? { note: a.note } : {}),
        text: a.first.raw,
        ...(a.retransmission ? { retransmission: a.retransmission.raw } : {}),
      };
    } finally {
      await prober.close();
    }
  } finally {
    await removeTempDir(dir);
  }
}

/**
 * The scenario runner (`kovn sim run`): a scenario's objects into the
 * in-memory cluster, the real controller over it committing to a backend,
 * then every probe answered by that backend's world, step after step
 * (docs/architecture.md, "Scenario files" and "The `kovn` command").
 *
 * Worlds: `sim` answers each probe with the simulator's whole connection
 * (first packet, then the reply through the conntrack state it left);
 * `ovn` loads the same controller output into a local NB, and ovn-trace
 * over northd's flows answers the first packet (the reply path with real
 * conntrack is the datapath oracle's, verify/datapath).
 */
import type { Backend } from '../backends/backend.ts';
import { SimBackend } from '../backends/sim/index.ts';
import { seededRandomBytes } from '../model/ipam/index.ts';
import type { Topology } from '../model/topology/index.ts';
import { compileNetwork, simulate, probeConnection, type SimNetwork } from '../sim/index.ts';
import type { MemoryCluster } from '../kube/cluster/memory.ts';
import { type KubeObject, refOf } from '../kube/cluster/types.ts';
import { type ControllerSettings, settingsFromScenario } from '../controller/config.ts';
import { Controller, type StartReport } from '../controller/controller.ts';
import { settled } from '../controller/settle.ts';
import { realClock } from '../kube/runtime/clock.ts';
import { applyObjects, deleteObject, type Expanded, expandObjects } from './expand.ts';
import { syncSlices } from './slices.ts';
import { explainDrop, explainElsewhere } from './explain.ts';
import { isEchoReply, send, type TraceReport, traceResolved } from './trace-probe.ts';
import type { LoadedScenario, ScenarioProbe } from './load.ts';
import { buildIndex, ProbeError, type ProbeIndex, type ResolvedProbe, resolveProbe } from './probe.ts';
import { unsureIndex, unsureReason } from './unsure.ts';
import type { Warning } from '../kube/objects/warnings.ts';

export interface ProbeResult {
  readonly step: number;
  readonly from: string;
  readonly to: string;
  readonly protocol: ScenarioProbe['protocol'];
  readonly port?: number;
  readonly expected: boolean;
  readonly allowed: boolean;
  /** The verdict is the expected one and nothing it may depend on was ignored. */
  readonly ok: boolean;
  /** Why not allowed, in one line. */
  readonly reason?: string;
  /** Why the verdict may depend on something kovn did not act on: never counted as passing. */
  readonly unsure?: string;
  /** What else decided the verdict (a first packet dropped and its retransmission answered: docs/architecture.md, Verdict). */
  readonly note?: string;
  /** The probe stage by stage (with `traces`), on the network the backend holds. */
  readonly trace?: TraceReport;
}

export interface RunResult {
  readonly backend: 'sim' | 'ovn';
  readonly results: readonly ProbeResult[];
  readonly start: StartReport;
  /**
   * What kovn did not act on or refused, for the objects the run read: kinds
   * not handled, fields and annotations not acted on, objects refused, pods no
   * node fits (each once, from every step).
   */
  readonly warnings: readonly Warning[];
}

/** Answers resolved probes on one backend. */
export interface ProbeWorld {
  readonly backend: Backend;
  /** Called after each step has converged, before its probes. */
  ready(): Promise<void>;
  answer(r: ResolvedProbe & { kind: 'packet' }): Promise<{ allowed: boolean; reason?: string; note?: string }>;
  /**
   * ovn-trace's own text for the probe's first packet and, where `answer`
   * traced one, its retransmission (worlds with real OVN; one trace each).
   */
  ovnTraces?(r: ResolvedProbe & { kind: 'packet' }): Promise<{ first: string; retransmission?: string }>;
  close(): Promise<void>;
}

/** The compiled network of what a world's backend holds: the simulator's own, or `topology` (read from NB) compiled. */
export async function worldNetwork(world: ProbeWorld, topology?: Topology): Promise<SimNetwork> {
  return world.backend instanceof SimBackend
    ? world.backend.network()
    : compileNetwork(topology ?? (await world.backend.read()));
}

export class SimWorld implements ProbeWorld {
  readonly backend = new SimBackend();
  private net: SimNetwork | undefined;
  async ready(): Promise<void> {
    this.net = this.backend.network();
  }
  async answer(r: ResolvedProbe & { kind: 'packet' }): Promise<{ allowed: boolean; reason?: string; note?: string }> {
    const net = this.net ?? this.backend.network();
    // No trace: only the drop and the outputs are read here (a traced rerun explains a packet that went elsewhere).
    const s = send(net, r, { trace: false });
    const why = (x: ReturnType<typeof simulate>) => (x.drop ? explainDrop(x.drop, net.topology) : undefined);
    if (r.routerAnswers) {
      const ok = s.first.outputs.some((o) => o.port === r.inport && isEchoReply(o.packet));
      return ok ? { allowed: true } : { allowed: false, reason: why(s.first) ?? 'no echo reply came back' };
    }
    const { again, arrived } = s;
    const fwd = again?.result ?? s.first;
    const note = s.note !== undefined ? { note: s.note } : {};
    if (arrived === undefined) {
      const dropped = why(fwd);
      if (dropped !== undefined) return { allowed: false, reason: dropped, ...note };
      const went = [...new Set(fwd.outputs.filter((o) => o.generated === undefined).map((o) => o.port))];
      if (went.length === 0) return { allowed: false, reason: `never reached ${r.targets.join(', ')}`, ...note };
      // Where it went instead, and what sent it there: the same packet again, traced.
      const traced = simulate(net, {
        inport: r.inport,
        packet: r.packet,
        trace: true,
        ...(again !== undefined ? { conntrack: again.conntrack } : {}),
      });
      return { allowed: false, reason: explainElsewhere(traced, net.topology, went, r.targets), ...note };
    }
    const c = probeConnection(net, {
      inport: r.inport,
      packet: r.packet,
      target: arrived.port,
      ...(again !== undefined ? { conntrack: again.conntrack } : {}),
    });
    if (c.allowed) return { allowed: true, ...note };
    const back = c.reply === undefined ? undefined : why(c.reply);
    return { allowed: false, reason: back !== undefined ? `the reply: ${back}` : (c.reason ?? 'denied'), ...note };
  }
  async close(): Promise<void> {
    await this.backend.close();
  }
}

export interface RunOptions {
  readonly world: ProbeWorld;
  /** MAC randomness (default 1): a scenario run is reproducible. */
  readonly seed?: number;
  readonly settings?: ControllerSettings;
  /** What the run is doing; `count`: how far through a step's probes. */
  readonly onProgress?: (what: string, count?: { readonly done: number; readonly total: number }) => void;
  /**
   * Step 0's probes as a stream instead of `spec.expect`: generated pairs
   * (`kovn sim connectivity`), never a list in memory.
   */
  readonly probes?: { readonly each: Iterable<ScenarioProbe>; readonly total: number };
  /**
   * Where each result goes, as it is answered (awaited: a writer may wait for
   * its output to drain); given, `results` stays empty, so memory does not
   * grow with the number of probes.
   */
  readonly onResult?: (r: ProbeResult) => void | Promise<void>;
  /**
   * A probe naming a pod that has no address (its allocation failed) or no
   * such pod: `throw` (default: a scenario's probes are the author's, and a
   * wrong one is an error) or `deny` (generated probes: the pair is denied,
   * the reason says why).
   */
  readonly unresolvable?: 'throw' | 'deny';
  /** The scenario's objects already in a cluster with the same settings (a connectivity plan's), not loaded again. */
  readonly expanded?: Expanded;
  /** Trace every probe too (the simulator over the network the backend holds: the HTML report's traces). */
  readonly traces?: boolean;
  /** Called once each step has converged, before its probes, with what they resolve against. */
  readonly onConverged?: (
    step: number,
    ix: ProbeIndex,
    unsure: (e: ScenarioProbe) => string | undefined,
  ) => Promise<void>;
}

/** A progress report every this many probes (the caller decides how often to show one). */
const PROGRESS_EVERY = 1000;

const byKind = async (cluster: MemoryCluster, kinds: readonly string[]) => {
  const out: Record<string, readonly KubeObject[]> = {};
  for (const k of kinds) out[k] = (await cluster.list(k)).items;
  return out;
};

/**
 * @example const r = await runScenario(loadScenario('scenarios/quickstart.yaml'), { world: new SimWorld() });
 *   r.results.every((x) => x.ok)
 */
export async function runScenario(s: LoadedScenario, opts: RunOptions): Promise<Omit<RunResult, 'backend'>> {
  const settings = opts.settings ?? settingsFromScenario(s.cluster);
  const progress = opts.onProgress ?? (() => {});
  const first =
    opts.expanded ??
    (await expandObjects(
      s.objects.map((o) => o.object),
      {
        ...(s.cluster.nodes !== undefined ? { nodes: s.cluster.nodes } : {}),
        serviceCIDR: settings.serviceClusterIPRange,
        now: () => Date.now(),
      },
    ));
  const { cluster, workloads } = first;
  const givenSlices = new Set<string>();
  /** Everything reported during the run; `standing`: what the run itself found (the rest is the controller's, read current). */
  const warnings = new Warnings();
  const standing = new Warnings();
  standing.add(s.warnings);
  standing.add(first.warnings);
  for (const o of first.objects)
    if (o.kind === 'EndpointSlice')
      givenSlices.add(`${o.metadata.namespace}/${o.metadata.labels?.['kubernetes.io/service-name']}`);
  const controller = new Controller({
    cluster,
    backend: opts.world.backend,
    clock: realClock,
    random: seededRandomBytes(opts.seed ?? 1),
    settings,
  });
  progress('controller starting');
  const start = await controller.start();
  const results: ProbeResult[] = [];
  let n = 0;
  const converge = async () => {
    await settled(controller);
    await syncSlices(cluster, givenSlices);
    await settled(controller);
    progress(opts.world.backend.kind === 'sim' ? 'compiling the network' : 'waiting for northd and ovn-trace');
    await opts.world.ready();
  };
  const keep = opts.onResult ?? ((r: ProbeResult) => void results.push(r));
  const probeAll = async (step: number, list: Iterable<ScenarioProbe>, total: number) => {
    const objects = await byKind(cluster, ['Pod', 'Service', 'EndpointSlice', 'Node', 'Subnet', 'NetworkPolicy']);
    const topology = await opts.world.backend.read();
    const ix = buildIndex(objects, topology, settings);
    // What the controller does not act on now, with what the run itself could not take.
    const now = controller.diagnostics.list();
    warnings.add(now);
    const unsure = unsureIndex([...standing.current(), ...now], objects.NetworkPolicy ?? []);
    await opts.onConverged?.(step, ix, (e) => unsureReason(unsure, ix, e));
    const net = opts.traces ? await worldNetwork(opts.world, topology) : undefined;
    let done = 0;
    for (const e of list) {
      if (++done % PROGRESS_EVERY === 0) progress(`step ${step}: probes ${done}/${total}`, { done, total });
      let r: ResolvedProbe;
      try {
        r = resolveProbe(ix, e, n++);
      } catch (err) {
        if (!(err instanceof ProbeError)) throw err;
        if (opts.unresolvable !== 'deny') {
          const what = `${e.from} -> ${e.to} ${e.protocol}${e.port !== undefined ? `/${e.port}` : ''}`;
          const where = step === 0 ? 'spec.expect' : `spec.steps[${step - 1}].expect`;
          throw new ProbeError(`${s.name}: ${where}[${done - 1}] (${what}): ${err.message}`);
        }
        r = { kind: 'denied', reason: err.message };
      }
      const v = r.kind === 'denied' ? { allowed: false, reason: r.reason } : await opts.world.answer(r);
      const doubt = unsureReason(unsure, ix, e);
      await keep({
        step,
        from: e.from,
        to: e.to,
        protocol: e.protocol,
        ...(e.port !== undefined ? { port: e.port } : {}),
        expected: e.allowed,
        allowed: v.allowed,
        ok: v.allowed === e.allowed && doubt === undefined,
        ...(v.reason && !v.allowed ? { reason: v.reason } : {}),
        ...(doubt !== undefined ? { unsure: doubt } : {}),
        ...('note' in v && v.note ? { note: v.note } : {}),
        ...(net && r.kind === 'packet' ? { trace: traceResolved(net, r, e) } : {}),
      });
    }
    progress(`step ${step}: ${done} probes`, { done, total });
  };
  try {
    await converge();
    await probeAll(0, opts.probes?.each ?? s.expect, opts.probes?.total ?? s.expect.length);
    for (const [i, st] of s.steps.entries()) {
      // Deleting a workload deletes what it made: the cluster's garbage collector does it.
      for (const ref of st.delete) await deleteObject(first, ref);
      const ex = await applyObjects(
        first,
        st.apply.map((o) => o.object),
        {
          mode: 'apply',
          serviceCIDR: settings.serviceClusterIPRange,
          // Namespaces the step adds (used by its objects, not written in it) never replace one that exists.
          written: new Set(
            st.apply.filter((o) => o.kind === 'Namespace').map((o) => refOf(o.object as KubeObject).name),
          ),
        },
      );
      standing.add(ex.warnings);
      standing.add(st.warnings ?? []);
      await converge();
      await probeAll(i + 1, st.expect, st.expect.length);
    }
  } finally {
    await controller.stop();
    workloads.stop();
  }
  warnings.add(standing.current());
  return { results, start, warnings: warnings.current() };
}

/** The run's warnings, each once (a warning of step 0 still in force at step 2 is one warning). */
class Warnings {
  private readonly seen = new Map<string, Warning>();
  add(list: readonly Warning[]): void {
    for (const w of list) {
      const id = JSON.stringify([w.code, w.kind, w.namespace, w.name, w.field, w.message]);
      if (!this.seen.has(id)) this.seen.set(id, w);
    }
  }
  current(): Warning[] {
    return [...this.seen.values()];
  }
}

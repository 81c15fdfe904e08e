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
import type { LoadedScenario, ScenarioHost, ScenarioProbe } from './load.ts';
import { hostNeighbors } from './probe-hosts.ts';
import { buildIndex, ProbeError, type ProbeIndex, type ResolvedProbe, resolveProbe } from './probe.ts';
import { unsureIndex, unsureReason } from './unsure.ts';
import type { Warning } from '../kube/objects/warnings.ts';
import { Warnings } from './run-warnings.ts';
import { egressVerdict, NAT_GATEWAY_KINDS } from './natgw.ts';

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
  readonly backend: 'sim' | 'ovn' | 'lab';
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
  /**
   * The cluster the run's objects are in, handed over before the controller
   * starts (a world that builds what the pods are, as the lab does, reads it).
   */
  attach?(cluster: MemoryCluster, settings: ControllerSettings): void;
  /**
   * The scenario's physical hosts, handed over before the controller starts:
   * the routers' MAC bindings for them (probe-hosts.ts hostNeighbors) are what
   * a world adds to its network.
   */
  hosts?: readonly ScenarioHost[];
  /** Called after each step has converged, before its probes. */
  ready(): Promise<void>;
  /** `unsure`: what the world could not try for this probe (never counted as passing). */
  answer(
    r: ResolvedProbe & { kind: 'packet' },
  ): Promise<{ allowed: boolean; reason?: string; note?: string; unsure?: string }>;
  /**
   * ovn-trace's own text for the probe's first packet and, where `answer`
   * traced one, its retransmission (worlds with real OVN; one trace each).
   */
  ovnTraces?(r: ResolvedProbe & { kind: 'packet' }): Promise<{ first: string; retransmission?: string }>;
  close(): Promise<void>;
}

/** The compiled network of what a world's backend holds: the simulator's own, or `topology` (read from NB) compiled. */
export async function worldNetwork(world: ProbeWorld, topology?: Topology): Promise<SimNetwork> {
  const hosts = world.hosts ?? [];
  if (world.backend instanceof SimBackend && hosts.length === 0) return world.backend.network();
  const t = topology ?? (await world.backend.read());
  return compileNetwork(t, hosts.length > 0 ? { neighbors: hostNeighbors(t, hosts) } : {});
}

export class SimWorld implements ProbeWorld {
  readonly backend = new SimBackend();
  hosts: readonly ScenarioHost[] = [];
  private net: SimNetwork | undefined;
  async ready(): Promise<void> {
    this.net = await worldNetwork(this);
  }
  async answer(
    r: ResolvedProbe & { kind: 'packet' },
  ): Promise<{ allowed: boolean; reason?: string; note?: string; unsure?: string }> {
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
    // Past a NAT gateway's port the appliance model decides; the reply path back through OVN is still OVN's.
    const gw = egressVerdict(r, arrived.port, arrived.packet);
    if (gw !== undefined && !gw.allowed)
      return { allowed: false, reason: gw.reason ?? 'denied', ...(gw.unsure ? { unsure: gw.unsure } : {}), ...note };
    if (gw !== undefined && !gw.needsReplyPath) return { allowed: true, ...note };
    // A spoofed probe's reply goes to the address's owner: its verdict is the first packet delivered.
    if (r.spoofed !== undefined) return { allowed: true, ...note };
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
  /** The scenario's objects already expanded with the same settings (a connectivity plan's), not expanded again. */
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
  const run = new ScenarioRun(s, opts, settings, first);
  const start = await run.start(first);
  try {
    await run.converge();
    await run.probeStep(0, opts.probes?.each ?? s.expect, opts.probes?.total ?? s.expect.length);
    for (const [i, st] of s.steps.entries()) {
      await run.applyStep(st);
      await run.converge();
      await run.probeStep(i + 1, st.expect, st.expect.length);
    }
  } finally {
    await run.controller?.stop();
    first.workloads.stop();
  }
  return { results: run.results, start, warnings: run.finalWarnings() };
}

type ScenarioStep = LoadedScenario['steps'][number];

/** One run of a scenario: the cluster, the controller over it, and what the probes found so far. */
class ScenarioRun {
  readonly cluster: MemoryCluster;
  controller: Controller | undefined;
  readonly results: ProbeResult[] = [];
  /** Everything reported during the run; `standing`: what the run itself found (the rest is the controller's, read current). */
  readonly warnings = new Warnings();
  readonly standing = new Warnings();
  /** Services whose EndpointSlices the scenario gives (not derived from the pods). */
  readonly givenSlices = new Set<string>();
  readonly progress: NonNullable<RunOptions['onProgress']>;
  readonly keep: (r: ProbeResult) => void | Promise<void>;
  /** Probes resolved so far (each resolution is numbered). */
  #resolved = 0;

  constructor(
    readonly s: LoadedScenario,
    readonly opts: RunOptions,
    readonly settings: ControllerSettings,
    /** The cluster the scenario's objects are in, its own controllers running. */
    readonly sim: Expanded,
  ) {
    this.cluster = sim.cluster;
    this.progress = opts.onProgress ?? (() => {});
    this.keep = opts.onResult ?? ((r: ProbeResult) => void this.results.push(r));
    this.standing.add(s.warnings);
  }

  /** The controller started over the cluster holding the scenario's objects. */
  async start(first: Expanded): Promise<StartReport> {
    this.standing.add(first.warnings);
    for (const o of first.objects)
      if (o.kind === 'EndpointSlice')
        this.givenSlices.add(`${o.metadata.namespace}/${o.metadata.labels?.['kubernetes.io/service-name']}`);
    this.opts.world.attach?.(this.cluster, this.settings);
    if (this.s.hosts.length > 0) this.opts.world.hosts = this.s.hosts;
    this.controller = new Controller({
      cluster: this.cluster,
      backend: this.opts.world.backend,
      clock: realClock,
      random: seededRandomBytes(this.opts.seed ?? 1),
      settings: this.settings,
    });
    this.progress('controller starting');
    return this.controller.start();
  }

  async converge(): Promise<void> {
    const controller = this.controller!;
    await settled(controller);
    await syncSlices(this.cluster, this.givenSlices);
    await settled(controller);
    this.progress(
      this.opts.world.backend.kind === 'sim'
        ? 'compiling the network'
        : this.opts.world.attach
          ? 'waiting for northd, wiring namespaces'
          : 'waiting for northd and ovn-trace',
    );
    await this.opts.world.ready();
  }

  /** Answers a step's probes against the state it converged to. */
  async probeStep(step: number, list: Iterable<ScenarioProbe>, total: number): Promise<void> {
    const objects = await byKind(this.cluster, [
      ...['Pod', 'Service', 'EndpointSlice', 'Node', 'Subnet', 'NetworkPolicy'],
      ...NAT_GATEWAY_KINDS,
    ]);
    const topology = await this.opts.world.backend.read();
    const ix = buildIndex(objects, topology, this.settings, this.s.hosts);
    // What the controller does not act on now, with what the run itself could not take.
    const now = this.controller!.diagnostics.list();
    this.warnings.add(now);
    const unsure = unsureIndex([...this.standing.current(), ...now], objects.NetworkPolicy ?? []);
    await this.opts.onConverged?.(step, ix, (e) => unsureReason(unsure, ix, e));
    const net = this.opts.traces ? await worldNetwork(this.opts.world, topology) : undefined;
    let done = 0;
    for (const e of list) {
      if (++done % PROGRESS_EVERY === 0) this.progress(`step ${step}: probes ${done}/${total}`, { done, total });
      const r = this.resolve(ix, e, step, done - 1);
      const v: { allowed: boolean; reason?: string; note?: string; unsure?: string } =
        r.kind === 'denied' ? { allowed: false, reason: r.reason } : await this.opts.world.answer(r);
      const doubt = unsureReason(unsure, ix, e) ?? v.unsure;
      await this.keep({
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
    this.progress(`step ${step}: ${done} probes`, { done, total });
  }

  /** A probe resolved against the index; one naming what does not resolve is an error or a denial (`unresolvable`). */
  resolve(ix: ProbeIndex, e: ScenarioProbe, step: number, index: number): ResolvedProbe {
    try {
      return resolveProbe(ix, e, this.#resolved++);
    } catch (err) {
      if (!(err instanceof ProbeError)) throw err;
      if (this.opts.unresolvable !== 'deny') {
        const what = `${e.from} -> ${e.to} ${e.protocol}${e.port !== undefined ? `/${e.port}` : ''}`;
        const where = step === 0 ? 'spec.expect' : `spec.steps[${step - 1}].expect`;
        throw new ProbeError(`${this.s.name}: ${where}[${index}] (${what}): ${err.message}`);
      }
      return { kind: 'denied', reason: err.message };
    }
  }

  /** A step's deletes and applies; the cluster's controllers follow what they change (pods made, placed, removed). */
  async applyStep(st: ScenarioStep): Promise<void> {
    for (const ref of st.delete) await deleteObject(this.sim, ref);
    const ex = await applyObjects(
      this.sim,
      st.apply.map((o) => o.object),
      {
        mode: 'apply',
        serviceCIDR: this.settings.serviceClusterIPRange,
        // Namespaces the step adds (used by its objects, not written in it) never replace one that exists.
        written: new Set(st.apply.filter((o) => o.kind === 'Namespace').map((o) => refOf(o.object as KubeObject).name)),
      },
    );
    this.standing.add(ex.warnings);
    this.standing.add(st.warnings ?? []);
  }

  finalWarnings(): Warning[] {
    this.warnings.add(this.standing.current());
    return this.warnings.current();
  }
}

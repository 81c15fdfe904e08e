/**
 * `kovn bench sim`: simulator throughput on a Kube-OVN-shaped cluster
 * (5,000 pod ports, 1,000 NetworkPolicy/node ACLs, 500 load balancers; see
 * sim-topology.ts), against ovn-trace on the same topology in real OVN.
 * Measures and reports; never fails on a figure. Targets (issue 4):
 * >= 200,000 probes/s on one core, >= 2,000x ovn-trace.
 *
 * - `probes_per_s`: a fixed seeded mix of first packets (sim-probes.ts),
 *   `trace: false`, after a warm-up pass; only the simulate() calls are
 *   timed; the median of 5 rounds.
 * - `compile_ms`: compileNetwork on the topology (median of 3).
 * - `ovn_load_ms`: OvnBackend apply of the whole topology plus northd's
 *   catching up; `ovn_trace_ms`: median wall time of one trace through the
 *   ovn-trace daemon (ct=new); `ovn_trace_oneshot_ms`: the same for VIPs of
 *   several backends, which need a one-shot run with --lb-dst;
 *   `speedup_vs_ovn_trace` = ovn_trace_ms / (simulator time per probe).
 * - `datapath_ms`: median wall time of one probe of the same sample sent
 *   through a real chassis (verify/datapath: OVS userspace datapath,
 *   ovn-controller), from injection to the barrier after it, one after
 *   another; `datapath_load_ms`: the chassis up with the sample's ports bound;
 *   `speedup_vs_datapath` likewise.
 * - `sample_agree` / `sample_total`: sampled probes on which the simulator
 *   and ovn-trace agree; every disagreement is printed on stderr.
 */
import { type Topology, validateTopology } from '../model/topology/index.ts';
import { compileNetwork, simulate, type SimNetwork } from '../sim/index.ts';
import { ovnBinariesPresent } from '../backends/ovn/control-plane/index.ts';
import { generateProbes, type BenchProbe } from './sim-probes.ts';
import { type Disagreement, measureOvn, type OvnSampleProbe, pickSample } from './sim-ovn.ts';
import { generateSimCluster } from './sim-topology.ts';

export interface SimBenchParams {
  readonly ports?: number;
  readonly acls?: number;
  readonly lbs?: number;
  /** Timed simulate() calls (default 200,000). */
  readonly probes?: number;
  readonly seed?: number;
  /** Measure ovn-trace too (default true; skipped with a note when OVN is not installed). */
  readonly ovn?: boolean;
  /** Probes traced by ovn-trace (default 200). */
  readonly ovnTraces?: number;
  /** At most this many of them need a one-shot ovn-trace (default 10: seconds each on a large SB). */
  readonly ovnOneShots?: number;
}

export interface SimBenchMetrics {
  probes_per_s: number;
  compile_ms: number;
  /** Share of timed probes delivered (the mix is not all drops). */
  delivered_share: number;
  ovn_load_ms?: number;
  ovn_daemon_start_ms?: number;
  ovn_trace_ms?: number;
  ovn_trace_oneshot_ms?: number;
  speedup_vs_ovn_trace?: number;
  /** Median wall time of one probe through the real chassis (inject + barrier). */
  datapath_ms?: number;
  /** Chassis start, the sample's ports bound, flows installed. */
  datapath_load_ms?: number;
  /** datapath_ms / (simulator time per probe). */
  speedup_vs_datapath?: number;
  sample_agree?: number;
  sample_total?: number;
}

export interface SimBenchReport {
  name: 'sim';
  params: Record<string, unknown>;
  metrics: SimBenchMetrics;
}

export interface SimBenchHooks {
  /** Progress lines (default: stderr). */
  readonly log?: (line: string) => void;
  /** Called once per disagreement between the simulator and ovn-trace. */
  readonly onDisagreement?: (d: Disagreement) => void;
}

const ROUNDS = 5;
/** Distinct probes; the timed loop cycles through them. */
const POOL = 20_000;

/**
 * @example
 * const r = await runSimBench({ ovn: false });
 * r.metrics.probes_per_s // e.g. 23000
 */
export async function runSimBench(params: SimBenchParams = {}, hooks: SimBenchHooks = {}): Promise<SimBenchReport> {
  const log = hooks.log ?? ((line: string) => process.stderr.write(`bench sim: ${line}\n`));
  const p = {
    ports: params.ports ?? 5000,
    acls: params.acls ?? 1000,
    lbs: params.lbs ?? 500,
    probes: Math.max(ROUNDS, Math.floor(params.probes ?? 200_000)),
    seed: params.seed ?? 1,
    ovnTraces: Math.max(1, Math.floor(params.ovnTraces ?? 200)),
    ovnOneShots: Math.max(0, Math.floor(params.ovnOneShots ?? 10)),
  };
  log(`generating ${p.ports} ports, ${p.acls} ACLs, ${p.lbs} load balancers (seed ${p.seed})`);
  const cluster = generateSimCluster(p);
  const issues = validateTopology(cluster.topology);
  if (issues.length > 0)
    throw new Error(
      `bench sim: the generated topology does not validate: ${issues
        .slice(0, 5)
        .map((i) => i.message)
        .join('; ')}`,
    );

  const compiles = [0, 1, 2].map(() => timed(() => compileNetwork(cluster.topology)));
  const net = compiles[0]!.value;
  const probes = generateProbes(cluster, { count: Math.min(p.probes, POOL), seed: p.seed });
  log(`${probes.length} distinct probes; warm-up, then ${p.probes} timed probes in ${ROUNDS} rounds`);
  runProbes(net, probes, probes.length);
  const rounds = Array.from({ length: ROUNDS }, () => runProbes(net, probes, Math.ceil(p.probes / ROUNDS)));
  const rate = median(rounds.map((r) => r.rate));
  const metrics: SimBenchMetrics = {
    probes_per_s: Math.round(rate),
    compile_ms: round2(median(compiles.map((c) => c.ms))),
    delivered_share: round2(rounds[0]!.delivered / rounds[0]!.count),
  };
  log(`${metrics.probes_per_s} probes/s (compile ${metrics.compile_ms} ms)`);

  const wantOvn = params.ovn ?? true;
  const { ok: ovnPresent, missing } = ovnBinariesPresent();
  if (wantOvn && !ovnPresent) log(`OVN not installed (missing ${missing.join(', ')}): ovn-trace figures skipped`);
  if (wantOvn && ovnPresent) {
    const sample = pickSample(probes, p.ovnTraces, p.ovnOneShots).map((probe) => ({
      probe,
      sim: simulate(net, { inport: probe.inport, packet: probe.packet, trace: false }),
    }));
    Object.assign(
      metrics,
      await ovnMetrics({ topology: cluster.topology, sample, probesPerS: metrics.probes_per_s, log, hooks }),
    );
  }
  return {
    name: 'sim',
    params: {
      ...p,
      ovn: wantOvn && ovnPresent,
      counts: cluster.counts,
      subnets: cluster.subnets.length,
      nodes: cluster.nodes.length,
      policies: cluster.policies.length,
      rounds: ROUNDS,
    },
    metrics,
  };
}

/** The ovn-trace figures for a sample, and the agreement with the simulator. */
async function ovnMetrics(o: {
  topology: Topology;
  sample: readonly OvnSampleProbe[];
  probesPerS: number;
  log: (line: string) => void;
  hooks: SimBenchHooks;
}): Promise<Partial<SimBenchMetrics>> {
  const dropped = o.sample.filter((x) => x.sim.verdict === 'dropped').length;
  o.log(
    `ovn-trace sample: ${o.sample.length} probes (${o.sample.length - dropped} delivered, ${dropped} dropped by the simulator)`,
  );
  const f = await measureOvn({ topology: o.topology, sample: o.sample, log: o.log });
  for (const d of f.disagreements) o.hooks.onDisagreement?.(d);
  const traceMs = f.daemonMs.length > 0 ? round2(median(f.daemonMs)) : undefined;
  const m: Partial<SimBenchMetrics> = {
    ovn_load_ms: Math.round(f.loadMs),
    ovn_daemon_start_ms: Math.round(f.daemonStartMs),
    ...(traceMs !== undefined
      ? { ovn_trace_ms: traceMs, speedup_vs_ovn_trace: Math.round((traceMs * o.probesPerS) / 1000) }
      : {}),
    ...(f.oneShotMs.length > 0 ? { ovn_trace_oneshot_ms: round2(median(f.oneShotMs)) } : {}),
    ...(f.datapathMs.length > 0
      ? {
          datapath_ms: round2(median(f.datapathMs)),
          speedup_vs_datapath: Math.round((median(f.datapathMs) * o.probesPerS) / 1000),
        }
      : {}),
    ...(f.datapathLoadMs !== undefined ? { datapath_load_ms: Math.round(f.datapathLoadMs) } : {}),
    sample_agree: f.agree,
    sample_total: f.total,
  };
  o.log(
    `ovn-trace ${m.ovn_trace_ms} ms per trace (daemon), ${m.ovn_trace_oneshot_ms ?? '-'} ms one-shot; speedup ${m.speedup_vs_ovn_trace}x; agree ${f.agree}/${f.total}; datapath ${m.datapath_ms ?? '-'} ms per probe`,
  );
  return m;
}

/** `count` probes cycling through `probes`; only the simulate() loop is timed. */
function runProbes(
  net: SimNetwork,
  probes: readonly BenchProbe[],
  count: number,
): { rate: number; delivered: number; count: number } {
  let delivered = 0;
  const t0 = performance.now();
  for (let i = 0, j = 0; i < count; i++, j = j + 1 === probes.length ? 0 : j + 1) {
    const probe = probes[j]!;
    if (simulate(net, { inport: probe.inport, packet: probe.packet, trace: false }).verdict === 'delivered')
      delivered++;
  }
  const ms = performance.now() - t0;
  return { rate: (count / ms) * 1000, delivered, count };
}

function timed<T>(f: () => T): { value: T; ms: number } {
  const t0 = performance.now();
  const value = f();
  return { value, ms: performance.now() - t0 };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

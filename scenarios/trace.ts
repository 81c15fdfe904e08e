/**
 * `kovn trace`: one probe of a scenario, stage by stage, in the state after
 * a step (docs/architecture.md, "The `kovn` command"). The scenario runs
 * through the controller as `kovn sim run` runs it, without its probes, up
 * to the step asked for; then the probe's first packet is simulated with
 * its trace, and the reply (TCP, SCTP, ICMP echo) from where it arrived,
 * through the conntrack state the first packet left. The network traced is
 * the one the backend holds: on `ovn`, what the controller wrote to NB,
 * compiled by the simulator, with ovn-trace's own text of the first packet
 * beside it (`ovnTrace`).
 */
import { compileNetwork, replyTo, simulate, type SimNetwork, type SimResult, traceToJSON } from '../sim/index.ts';
import type { TraceStage } from '../sim/trace.ts';
import { SimBackend } from '../backends/sim/index.ts';
import type { ControllerSettings } from '../controller/config.ts';
import type { Packet } from '../model/packet/index.ts';
import { explainDrop } from './explain.ts';
import type { LoadedScenario, ScenarioProbe } from './load.ts';
import { type ResolvedProbe, resolveProbe } from './probe.ts';
import { type ProbeWorld, runScenario, SimWorld } from './run.ts';

export interface TracedPacket {
  readonly verdict: 'delivered' | 'dropped';
  readonly outport?: string;
  readonly stages: readonly TraceStage[];
  /** Why dropped, naming what decided (explain.ts). */
  readonly reason?: string;
}

export interface TraceReport extends TracedPacket {
  readonly reply?: TracedPacket;
  readonly ovnTrace?: string;
}

export class TraceError extends Error {
  override readonly name = 'TraceError';
}

const isEchoReply = (p: Packet) => p['icmp4.type'] === 0 || p['icmp6.type'] === 129;

function traced(r: SimResult, net: SimNetwork, arrived: string | undefined): TracedPacket {
  const outport = arrived ?? r.outputs[0]?.port;
  return {
    verdict: arrived !== undefined ? 'delivered' : 'dropped',
    ...(outport !== undefined ? { outport } : {}),
    stages: r.stages,
    ...(arrived === undefined && r.drop ? { reason: explainDrop(r.drop, net.topology) } : {}),
  };
}

function traceResolved(net: SimNetwork, r: ResolvedProbe & { kind: 'packet' }, e: ScenarioProbe): TraceReport {
  const fwd = simulate(net, { inport: r.inport, packet: r.packet, trace: true });
  if (r.routerAnswers) {
    const back = fwd.outputs.find((o) => o.port === r.inport && isEchoReply(o.packet));
    return traced(fwd, net, back?.port);
  }
  const arrived = fwd.outputs.find((o) => r.targets.includes(o.port) && o.generated === undefined);
  const first = traced(fwd, net, arrived?.port);
  if (arrived === undefined || e.protocol === 'UDP') return first;
  const answer = replyTo(arrived.packet);
  if (answer === undefined) return first;
  const back = simulate(net, { inport: arrived.port, packet: answer, conntrack: fwd.conntrack, trace: true });
  const home = back.outputs.find((o) => o.port === r.inport && o.generated === undefined);
  return { ...first, reply: traced(back, net, home?.port) };
}

export interface TraceOptions {
  readonly world?: ProbeWorld;
  /** The state after this step (0: after the scenario's objects; i: after the i-th step). */
  readonly step?: number;
  readonly settings?: ControllerSettings;
  readonly seed?: number;
  readonly onProgress?: (what: string) => void;
}

/**
 * @example
 * const t = await traceScenario(loadScenario('scenarios/quickstart.yaml'),
 *   { from: 'default/debug', to: 'data/db-0', protocol: 'TCP', port: 5432, allowed: false });
 * t.verdict; // 'dropped', t.reason names the NetworkPolicy
 */
export async function traceScenario(
  s: LoadedScenario,
  probe: ScenarioProbe,
  opts: TraceOptions = {},
): Promise<TraceReport> {
  const step = opts.step ?? 0;
  if (!Number.isInteger(step) || step < 0 || step > s.steps.length)
    throw new TraceError(`--step ${step}: the scenario has steps 0..${s.steps.length}`);
  const world: ProbeWorld = opts.world ?? new SimWorld();
  const quiet: LoadedScenario = {
    ...s,
    expect: [],
    steps: s.steps.slice(0, step).map((st) => ({ ...st, expect: [] })),
  };
  let out: TraceReport | undefined;
  try {
    await runScenario(quiet, {
      world,
      ...(opts.settings ? { settings: opts.settings } : {}),
      ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      onConverged: async (at, ix) => {
        if (at !== step) return;
        const r = resolveProbe(ix, probe, 0);
        if (r.kind === 'denied') {
          out = { verdict: 'dropped', stages: [], reason: r.reason };
          return;
        }
        const net =
          world.backend instanceof SimBackend ? world.backend.network() : compileNetwork(await world.backend.read());
        const report = traceResolved(net, r, probe);
        out = world.ovnTrace ? { ...report, ovnTrace: await world.ovnTrace(r) } : report;
      },
    });
  } finally {
    if (opts.world === undefined) await world.close();
  }
  if (out === undefined) throw new TraceError(`step ${step} was never reached`);
  return out;
}

/** The JSON of docs/architecture.md: `{verdict, outport?, stages, reply?, ovnTrace?}` (and `reason` when dropped). */
export function traceReportJSON(t: TraceReport): object {
  const one = (p: TracedPacket) => ({
    verdict: p.verdict,
    ...(p.outport !== undefined ? { outport: p.outport } : {}),
    stages: traceToJSON(p.stages),
    ...(p.reason ? { reason: p.reason } : {}),
  });
  return {
    ...one(t),
    ...(t.reply ? { reply: one(t.reply) } : {}),
    ...(t.ovnTrace !== undefined ? { ovnTrace: t.ovnTrace } : {}),
  };
}

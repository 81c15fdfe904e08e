/**
 * `kovn trace`: one probe of a scenario, stage by stage, in the state after
 * a step (docs/architecture.md, "The `kovn` command"). The scenario runs
 * through the controller as `kovn sim run` runs it, without its probes, up
 * to the step asked for; then the probe's first packet is simulated with
 * its trace, its retransmission where the probe semantics send one (a TCP
 * SYN or SCTP INIT that got no answer), and the reply (TCP, SCTP, ICMP echo)
 * from where it arrived, through the conntrack state the packet left. The network traced is
 * the one the backend holds: on `ovn`, what the controller wrote to NB,
 * compiled by the simulator, with ovn-trace's own text of the first packet
 * beside it (`ovnTrace`).
 */
import { traceToJSON } from '../sim/index.ts';
import type { ControllerSettings } from '../controller/config.ts';
import { type Warning, warningJSON } from '../kube/objects/warnings.ts';
import type { LoadedScenario, ScenarioProbe } from './load.ts';
import { egressNote, resolveProbe } from './probe.ts';
import { type ProbeWorld, runScenario, SimWorld, worldNetwork } from './run.ts';
import { type TracedPacket, type TraceReport, traceResolved } from './trace-probe.ts';

export type { TracedPacket, TraceReport } from './trace-probe.ts';

export class TraceError extends Error {
  override readonly name = 'TraceError';
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
): Promise<TraceReport & { readonly warnings: readonly Warning[] }> {
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
  let warnings: readonly Warning[] = [];
  try {
    const run = await runScenario(quiet, {
      world,
      ...(opts.settings ? { settings: opts.settings } : {}),
      ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      onConverged: async (at, ix, unsure) => {
        if (at !== step) return;
        const doubt = unsure(probe);
        const r = resolveProbe(ix, probe, 0);
        if (r.kind === 'denied') {
          out = { verdict: 'dropped', stages: [], reason: r.reason, ...(doubt ? { unsure: doubt } : {}) };
          return;
        }
        const net = await worldNetwork(world);
        const traced = traceResolved(net, r, probe);
        const egress = traced.verdict === 'delivered' ? egressNote(ix, probe, traced.outport) : undefined;
        const report =
          egress === undefined ? traced : { ...traced, note: traced.note ? `${traced.note}; ${egress}` : egress };
        const texts = await world.ovnTraces?.(r);
        out = {
          ...report,
          ...(texts !== undefined ? { ovnTrace: texts.first } : {}),
          ...(texts?.retransmission !== undefined ? { ovnRetransmission: texts.retransmission } : {}),
          ...(doubt ? { unsure: doubt } : {}),
        };
      },
    });
    warnings = run.warnings;
  } finally {
    if (opts.world === undefined) await world.close();
  }
  if (out === undefined) throw new TraceError(`step ${step} was never reached`);
  return { ...out, warnings };
}

/**
 * The JSON of docs/architecture.md: `{verdict, outport?, stages, retransmission?, note?, reply?, ovnTrace?,
 * ovnRetransmission?, unsure?, warnings}` (and `reason` when dropped; `unsure` when the verdict may depend on
 * something not acted on).
 */
export function traceReportJSON(t: TraceReport & { readonly warnings?: readonly Warning[] }): object {
  const one = (p: TracedPacket) => ({
    verdict: p.verdict,
    ...(p.outport !== undefined ? { outport: p.outport } : {}),
    stages: traceToJSON(p.stages),
    ...(p.reason ? { reason: p.reason } : {}),
  });
  return {
    ...one(t),
    ...(t.retransmission ? { retransmission: one(t.retransmission) } : {}),
    ...(t.note ? { note: t.note } : {}),
    ...(t.reply ? { reply: one(t.reply) } : {}),
    ...(t.ovnTrace !== undefined ? { ovnTrace: t.ovnTrace } : {}),
    ...(t.ovnRetransmission !== undefined ? { ovnRetransmission: t.ovnRetransmission } : {}),
    ...(t.unsure !== undefined ? { unsure: t.unsure } : {}),
    warnings: (t.warnings ?? []).map(warningJSON),
  };
}

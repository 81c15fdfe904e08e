/**
 * The real-OVN half of `kovn bench sim`: the same topology loaded into a
 * local NB through OvnBackend (plan from empty → apply → wait for northd),
 * then a sample of the same probes traced by ovn-trace. A first packet needs
 * ct=new in every zone, which the ovn-trace daemon does (queried through
 * ovn-appctl); a VIP with several backends makes ovn-trace pick one at
 * random, so OvnTracer traces it again one-shot with `--lb-dst` pinned to the
 * simulator's choice, which costs a full SB read: timed apart.
 *
 * As a side effect the two verdicts are compared (delivered or dropped, the
 * output ports, and the delivered packet's MACs, IPs, L4 ports and TTL).
 * Disagreements are reported, never fatal: this is a benchmark, the
 * differential test is the proof.
 */
import { formatIPv4, formatMAC } from '../model/addr/index.ts';
import { emptyTopology, plan, type Topology } from '../model/topology/index.ts';
import { startControlPlane } from '../backends/ovn/control-plane/index.ts';
import { OvnBackend } from '../backends/ovn/index.ts';
import { OvnTracer, type OvnTraceResult } from '../backends/ovn/trace/index.ts';
import { Chassis } from '../verify/datapath/index.ts';
import { emitPacket } from '../model/packet/wire/index.ts';
import type { Packet, SimResult } from '../sim/index.ts';
import type { BenchProbe } from './sim-probes.ts';

export interface OvnSampleProbe {
  readonly probe: BenchProbe;
  readonly sim: SimResult;
}

export interface Disagreement {
  readonly probe: string;
  readonly kind: string;
  readonly sim: string;
  readonly ovn: string;
}

export interface OvnFigures {
  readonly loadMs: number;
  readonly daemonStartMs: number;
  /** Per-trace wall times (ovn-appctl round trip and parsing included), by how ovn-trace ran. */
  readonly daemonMs: readonly number[];
  readonly oneShotMs: readonly number[];
  /** Per-probe wall times through the real chassis (inject + barrier), when measured. */
  readonly datapathMs: readonly number[];
  /** Binding the sample's ports and waiting until ovn-controller installed the flows. */
  readonly datapathLoadMs?: number;
  readonly agree: number;
  readonly total: number;
  readonly disagreements: readonly Disagreement[];
}

const COMPARED: readonly (keyof Packet)[] = [
  'eth.src',
  'eth.dst',
  'ip4.src',
  'ip4.dst',
  'tcp.src',
  'tcp.dst',
  'udp.src',
  'udp.dst',
  'ip.ttl',
];

function fieldText(k: keyof Packet, v: unknown): string {
  if (v === undefined) return '-';
  if (k === 'eth.src' || k === 'eth.dst') return formatMAC(v as number);
  if (k === 'ip4.src' || k === 'ip4.dst') return formatIPv4(v as number);
  return String(v);
}

/** What is compared, as text: the verdict, then `port{fields}` per forwarded output, sorted. */
export function verdictKey(verdict: string, outputs: readonly { port: string; packet: Packet }[]): string {
  const outs = outputs.map((o) => `${o.port}{${COMPARED.map((k) => fieldText(k, o.packet[k])).join(' ')}}`).sort();
  return `${verdict} ${outs.join(', ')}`.trim();
}

const simKey = (r: SimResult): string =>
  verdictKey(
    r.verdict,
    r.outputs.filter((o) => o.generated === undefined),
  );
const ovnKey = (r: OvnTraceResult): string =>
  verdictKey(
    r.verdict,
    r.outputs.filter((o) => o.generatedBy === undefined).map((o) => ({ port: o.outport, packet: o.packet })),
  );

const elapsed = (t0: number): number => performance.now() - t0;

/**
 * @example
 * const f = await measureOvn({ topology, sample, log: (l) => process.stderr.write(l + '\n') });
 * f.daemonMs // [9.1, 10.4, ...]
 */
export async function measureOvn(o: {
  topology: Topology;
  sample: readonly OvnSampleProbe[];
  log: (line: string) => void;
  /** Also send the sample through a real chassis (default true). */
  datapath?: boolean;
}): Promise<OvnFigures> {
  const cp = await startControlPlane();
  let backend: OvnBackend | undefined;
  let tracer: OvnTracer | undefined;
  try {
    o.log('loading the topology into NB (OvnBackend) and waiting for northd');
    let t0 = performance.now();
    backend = await OvnBackend.connect({ remotes: cp.nb.remote });
    await backend.apply(plan(emptyTopology(), o.topology), { label: 'bench sim' });
    await backend.waitForNorthd({ timeoutMs: 600_000 });
    const loadMs = elapsed(t0);
    o.log(`loaded in ${Math.round(loadMs)} ms; starting the ovn-trace daemon`);
    t0 = performance.now();
    tracer = await OvnTracer.start({ dir: cp.dir, sbRemote: cp.sb.remote });
    const daemonStartMs = elapsed(t0);
    o.log(`ovn-trace daemon up in ${Math.round(daemonStartMs)} ms; tracing ${o.sample.length} probes`);
    const traced = await traceSample(tracer, o.sample, o.log);
    await tracer.stop();
    tracer = undefined;
    const dp = o.datapath === false ? { datapathMs: [] } : await sendSample(cp, o.sample, o.log);
    return { loadMs, daemonStartMs, ...traced, ...dp };
  } finally {
    await tracer?.stop();
    await backend?.close();
    await cp.stop();
  }
}

async function traceSample(
  tracer: OvnTracer,
  sample: readonly OvnSampleProbe[],
  log: (line: string) => void,
): Promise<Pick<OvnFigures, 'daemonMs' | 'oneShotMs' | 'agree' | 'total' | 'disagreements'>> {
  const daemonMs: number[] = [];
  const oneShotMs: number[] = [];
  const disagreements: Disagreement[] = [];
  let agree = 0;
  for (const [i, { probe, sim }] of sample.entries()) {
    const t0 = performance.now();
    let key: string;
    try {
      const r = await tracer.trace({
        datapath: probe.datapath,
        inport: probe.inport,
        packet: probe.packet,
        ...(probe.lbBackend === undefined ? {} : { lbBackend: probe.lbBackend }),
      });
      (r.via === 'daemon' ? daemonMs : oneShotMs).push(elapsed(t0));
      key = ovnKey(r) + (r.caveats.length > 0 ? ` [caveats: ${r.caveats.map((c) => c.rule).join(', ')}]` : '');
    } catch (e) {
      key = `error: ${(e as Error).message}`;
    }
    const want = simKey(sim);
    if (key === want) agree++;
    else {
      disagreements.push({ probe: probe.label, kind: probe.kind, sim: want, ovn: key });
      log(`DISAGREEMENT ${probe.kind} ${probe.label}\n  sim: ${want}\n  ovn: ${key}`);
    }
    if ((i + 1) % 50 === 0) log(`traced ${i + 1}/${sample.length}`);
  }
  return { daemonMs, oneShotMs, agree, total: sample.length, disagreements };
}

/**
 * The sample's packets through one real chassis (verify/datapath), one
 * after another, each timed from injection to the barrier that says the
 * datapath is done with it (ovn-controller's own packets are not waited for).
 * Only the ports the sample enters by are bound: 5,000 dummy interfaces
 * would measure ovn-controller's start-up, not a packet.
 */
async function sendSample(
  cp: { dir: string; nb: { remote: string }; sb: { remote: string } },
  sample: readonly OvnSampleProbe[],
  log: (line: string) => void,
): Promise<Pick<OvnFigures, 'datapathMs' | 'datapathLoadMs'>> {
  const t0 = performance.now();
  const chassis = await Chassis.start({ dir: cp.dir, sbRemote: cp.sb.remote, nbRemote: cp.nb.remote });
  try {
    const ports = [...new Set(sample.map((x) => x.probe.inport))];
    await chassis.bind(ports.map((port) => ({ kind: 'vif' as const, port })));
    await chassis.sync(new Set(ports));
    const datapathLoadMs = elapsed(t0);
    log(`chassis up, ${ports.length} ports bound in ${Math.round(datapathLoadMs)} ms; sending ${sample.length} probes`);
    await chassis.flushConntrack();
    const datapathMs: number[] = [];
    for (const { probe } of sample) {
      const frame = emitPacket(probe.packet);
      const t1 = performance.now();
      await chassis.inject(probe.inport, [frame]);
      datapathMs.push(elapsed(t1));
    }
    return { datapathMs, datapathLoadMs };
  } finally {
    await chassis.stop();
  }
}

/**
 * Up to `n` probes, round-robin over the probe kinds (so every kind is
 * traced), with at most `oneShots` VIPs of several backends (each costs a
 * one-shot ovn-trace, seconds on a large SB).
 */
export function pickSample(probes: readonly BenchProbe[], n: number, oneShots: number): BenchProbe[] {
  const byKind = new Map<string, BenchProbe[]>();
  let multi = 0;
  for (const p of probes) {
    if ((p.backends ?? 1) > 1) {
      if (multi >= oneShots) continue;
      multi++;
    }
    const list = byKind.get(p.kind) ?? [];
    list.push(p);
    byKind.set(p.kind, list);
  }
  const queues = [...byKind.values()];
  const out: BenchProbe[] = [];
  for (let i = 0; out.length < n && queues.some((q) => i < q.length); i++) {
    for (const q of queues) if (i < q.length && out.length < n) out.push(q[i]!);
  }
  return out;
}

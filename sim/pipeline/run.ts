/**
 * One simulation run: the work list of pipeline passes (a packet entering a
 * datapath's ingress or egress pipeline), the conntrack transaction, the
 * outputs and drops, and the trace. Stages are plain functions keyed by OVN
 * stage name; `runPipeline` walks them until one stops the packet.
 *
 * Passes are taken depth-first, so outputs and trace come in the order
 * ovn-trace prints them.
 */
import type { ConntrackTx } from '../conntrack/state.ts';
import { formatCtState } from '../conntrack/state.ts';
import type { Datapath, RouterDp, SimNetwork, SwitchDp } from '../compile/types.ts';
import { changedFields, type Packet } from '../packet/packet.ts';
import { fieldChange, type PipelineName, type TraceRule, type TraceStage } from '../trace.ts';
import { type Carry, type GeneratedKind, PipelineCtx } from './context.ts';

export type { GeneratedKind } from './context.ts';

export interface SimOutput {
  /** The logical port the packet leaves through (a VIF, localnet, ... port). */
  readonly port: string;
  readonly datapath: string;
  readonly packet: Packet;
  /** Set when the network generated this packet (an ARP reply, ICMP error, TCP RST, ...). */
  readonly generated?: GeneratedKind;
}

export interface SimDrop {
  readonly datapath: string;
  readonly stage: string;
  readonly reason: string;
  readonly rule?: TraceRule;
}

/** A choice the network makes among equals: an LB backend, an ECMP route or policy member. */
export interface Choice {
  readonly kind: 'lb-backend' | 'ecmp-route' | 'ecmp-policy';
  /** The LB VIP, route or policy key. */
  readonly key: string;
  readonly count: number;
  readonly packet: Packet;
}

/** Picks an index in [0, count). Must be deterministic; the default picks 0. */
export type Selector = (choice: Choice) => number;

export interface CtLookupRecord {
  readonly datapath: string;
  readonly stage: string;
  readonly zone: string;
  readonly op: string;
  readonly state: string;
}

export interface Job {
  readonly dp: Datapath;
  readonly pipeline: PipelineName;
  readonly inport: string;
  readonly outport: string;
  readonly packet: Packet;
  readonly carry: Carry;
  readonly depth: number;
  readonly generated?: GeneratedKind | undefined;
  /** Router regs that survive a re-entry (lr_out_egr_loop sets REGBIT_EGRESS_LOOPBACK). */
  readonly egressLoopback?: boolean;
  /** Resume at this stage (OVN's `next(pipeline=..., table=...)`), skipping the earlier ones. */
  readonly startAt?: string;
  /**
   * Sent to a chassisredirect port: the egress pipeline runs on the gateway
   * chassis, where the gateway port is resident whatever chassis the
   * simulation is compiled for.
   */
  readonly redirected?: boolean;
}

export interface RecordSpec {
  readonly rule?: TraceRule;
  readonly action: string;
  readonly before?: Packet;
  readonly ct?: { readonly zone: string; readonly state: number; readonly op: string };
  readonly note?: string;
}

/** Maximum datapath passes per simulation (a routing loop ends here). */
export const MAX_PASSES = 256;

export class Run {
  readonly outputs: SimOutput[] = [];
  readonly drops: SimDrop[] = [];
  readonly ctLookups: CtLookupRecord[] = [];
  readonly choices: { kind: Choice['kind']; key: string; index: number }[] = [];
  readonly trace: TraceStage[] | undefined;
  private readonly stack: Job[] = [];
  passes = 0;

  constructor(
    readonly net: SimNetwork,
    readonly ct: ConntrackTx,
    readonly selector: Selector,
    withTrace: boolean,
  ) {
    this.trace = withTrace ? [] : undefined;
  }

  push(job: Job): void {
    this.stack.push(job);
  }

  /** Jobs pushed during one pass run in push order (depth-first overall). */
  pushAll(jobs: readonly Job[]): void {
    for (let i = jobs.length - 1; i >= 0; i--) this.stack.push(jobs[i]!);
  }

  pop(): Job | undefined {
    return this.stack.pop();
  }

  select(kind: Choice['kind'], key: string, count: number, packet: Packet): number {
    if (count <= 1) return 0;
    const raw = this.selector({ kind, key, count, packet });
    const index = Number.isInteger(raw) && raw >= 0 && raw < count ? raw : 0;
    this.choices.push({ kind, key, index });
    return index;
  }
}

/** The state a stage function works with. */
export class StageRun<D extends Datapath = Datapath> {
  stage = '';
  stopped = false;

  constructor(
    readonly run: Run,
    readonly dp: D,
    readonly job: Job,
    readonly ctx: PipelineCtx,
  ) {}

  get net(): SimNetwork {
    return this.run.net;
  }

  /** Whether records are kept (build record specs only when this is true, on hot paths). */
  get tracing(): boolean {
    return this.run.trace !== undefined;
  }

  record(spec: RecordSpec): void {
    const trace = this.run.trace;
    if (trace === undefined) return;
    if (spec.ct) {
      this.run.ctLookups.push({ datapath: this.dp.name, stage: this.stage, zone: spec.ct.zone, op: spec.ct.op, state: formatCtState(spec.ct.state) });
    }
    const changes = spec.before === undefined ? [] : changedFields(spec.before, this.ctx.packet);
    trace.push({
      datapath: this.dp.name,
      pipeline: this.job.pipeline,
      stage: this.stage,
      inport: this.ctx.inport,
      ...(this.ctx.outport !== '' ? { outport: this.ctx.outport } : {}),
      ...(spec.rule ? { rule: spec.rule } : {}),
      action: spec.action,
      ...(changes.length
        ? { changes: changes.map((f) => fieldChange(f, spec.before![f], this.ctx.packet[f])) }
        : {}),
      ...(spec.ct ? { ct: { zone: spec.ct.zone, op: spec.ct.op, state: formatCtState(spec.ct.state) } } : {}),
      ...(spec.note ? { note: spec.note } : {}),
      depth: this.job.depth,
    });
  }

  /** Drop the packet here. */
  drop(reason: string, rule?: TraceRule): 'stop' {
    if (this.run.trace !== undefined) this.record({ ...(rule ? { rule } : {}), action: 'drop', note: reason });
    this.run.drops.push({ datapath: this.dp.name, stage: this.stage, reason, ...(rule ? { rule } : {}) });
    this.stopped = true;
    return 'stop';
  }

  /** Hand a packet to another pass (this datapath's egress, a peer's ingress). */
  spawn(job: Omit<Job, 'depth'> & { readonly depth?: number }): void {
    const generated = job.generated ?? this.ctx.generated;
    this.run.push({ ...job, depth: job.depth ?? this.job.depth + 1, ...(generated ? { generated } : {}) });
  }
}

export type StageFn<D extends Datapath> = (s: StageRun<D>) => 'next' | 'stop';

export interface Stage<D extends Datapath> {
  readonly name: string;
  readonly run: StageFn<D>;
}

/** Run stages in order until one stops the packet. */
export function runPipeline<D extends Datapath>(stages: readonly Stage<D>[], s: StageRun<D>): void {
  let i = 0;
  if (s.job.startAt !== undefined) {
    i = stages.findIndex((st) => st.name === s.job.startAt);
    if (i < 0) throw new Error(`pipeline has no stage ${s.job.startAt}`);
  }
  for (; i < stages.length; i++) {
    const st = stages[i]!;
    s.stage = st.name;
    if (st.run(s) === 'stop') return;
  }
}

export type SwitchStage = Stage<SwitchDp>;
export type RouterStage = Stage<RouterDp>;

/**
 * One simulation run: the work list of pipeline passes (a packet entering a
 * datapath's ingress or egress pipeline), the conntrack transaction, the
 * outputs and drops, and the trace. Stages are plain functions keyed by OVN
 * stage name; `runPipeline` walks a datapath's plan of them until one stops
 * the packet.
 *
 * Passes are taken depth-first, so outputs and trace come in the order
 * ovn-trace prints them. A run keeps one StageRun (context, registers,
 * scratch space) and resets it per pass; jobs and lookup results have one
 * object shape each, so the hot paths stay monomorphic.
 */
import type { ConntrackTx } from '../conntrack/tx.ts';
import { type AclScratch, newAclScratch } from '../compile/acl-index.ts';
import { formatCtState } from '../conntrack/state.ts';
import type { Datapath, PortInfo, RouterDp, SimNetwork, SwitchDp } from '../compile/types.ts';
import { publicPacket } from '../../model/packet/canonical.ts';
import { changedFields, type Packet } from '../../model/packet/packet.ts';
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

/** A choice made: what was chosen among, the index picked and, for ECMP, the member it names. */
export interface ChoiceMade {
  readonly kind: Choice['kind'];
  readonly key: string;
  readonly index: number;
  /** ECMP: `router|next hop|outport` of the member (as ovn-trace shows it in lr_in_*_ecmp). */
  readonly via?: string;
}

/** A choice whose packet is put in the public form only if the selector reads it. */
class PendingChoice implements Choice {
  constructor(
    readonly kind: Choice['kind'],
    readonly key: string,
    readonly count: number,
    private readonly working: Packet,
  ) {}

  get packet(): Packet {
    return publicPacket(this.working);
  }
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
  readonly startAt?: string | undefined;
  /**
   * Sent to a chassisredirect port: the egress pipeline runs on the gateway
   * chassis, where the gateway port is resident whatever chassis the
   * simulation is compiled for.
   */
  readonly redirected?: boolean;
  /** `net.ports.get(inport)` / `(outport)` when the spawner knew it (saves the pass a lookup by name). */
  readonly inInfo?: PortInfo | undefined;
  readonly outInfo?: PortInfo | undefined;
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

/** What a stage hands to another pass; `depth` defaults to one deeper, `generated` to the pass's own. */
export type JobSpec = Omit<Job, 'depth'> & { readonly depth?: number };

/** A job with every field present (one object shape for all jobs). */
export function makeJob(j: JobSpec, depth: number, generated: GeneratedKind | undefined): Job {
  return {
    dp: j.dp,
    pipeline: j.pipeline,
    inport: j.inport,
    outport: j.outport,
    packet: j.packet,
    carry: j.carry,
    depth,
    generated,
    egressLoopback: j.egressLoopback === true,
    startAt: j.startAt,
    redirected: j.redirected === true,
    inInfo: j.inInfo,
    outInfo: j.outInfo,
  };
}

export class Run {
  readonly outputs: SimOutput[] = [];
  readonly drops: SimDrop[] = [];
  readonly ctLookups: CtLookupRecord[] = [];
  readonly choices: ChoiceMade[] = [];
  readonly trace: TraceStage[] | undefined;
  /** The one stage state, reset per pass (taken from the spares; `release` gives it back). */
  readonly stages: StageRun;
  private readonly stack: Job[] = [];
  passes = 0;

  constructor(
    readonly net: SimNetwork,
    readonly ct: ConntrackTx,
    readonly selector: Selector,
    withTrace: boolean,
  ) {
    this.trace = withTrace ? [] : undefined;
    this.stages = spareStages.pop() ?? new StageRun();
    this.stages.attach(this);
  }

  /** Done: the stage state may serve another run. */
  release(): void {
    if (spareStages.length < MAX_SPARE_STAGES) spareStages.push(this.stages);
  }

  push(job: Job): void {
    this.stack.push(job);
  }

  pop(): Job | undefined {
    return this.stack.pop();
  }

  /** Picks one of `count`; `via` names the member picked (an ECMP member's router, next hop and port). */
  select(kind: Choice['kind'], key: string, count: number, packet: Packet, via?: (index: number) => string): number {
    if (count <= 1) return 0;
    const raw = this.selector(new PendingChoice(kind, key, count, packet));
    const index = Number.isInteger(raw) && raw >= 0 && raw < count ? raw : 0;
    this.choices.push(via === undefined ? { kind, key, index } : { kind, key, index, via: via(index) });
    return index;
  }
}

/**
 * Stage states of finished runs, reused: a run allocates its context,
 * registers and scratch space once this way, not per simulation. Nothing
 * carries over (`attach` and `begin` reset everything a pass reads); a run
 * that never releases (it threw) just leaves one fewer spare.
 */
const spareStages: StageRun[] = [];
const MAX_SPARE_STAGES = 8;

/** The state a stage function works with: one per run, reset for every pass. */
export class StageRun<D extends Datapath = Datapath> {
  stage = '';
  run: Run = undefined as unknown as Run;
  net: SimNetwork = undefined as unknown as SimNetwork;
  readonly ctx = new PipelineCtx();
  tracing = false;
  /** Space for merging ACL candidate lists. */
  readonly aclScratch: AclScratch = newAclScratch();
  dp: D = undefined as unknown as D;
  job: Job = undefined as unknown as Job;
  // The last two ports looked up (a pass asks for the same one or two again and again).
  private lastName = NO_NAME;
  private lastInfo: PortInfo | undefined = undefined;
  private prevName = NO_NAME;
  private prevInfo: PortInfo | undefined = undefined;

  /** Serve `run` (forgetting the ports remembered for another network). */
  attach(run: Run): void {
    this.run = run;
    if (this.net !== run.net) {
      this.lastName = this.prevName = NO_NAME;
      this.lastInfo = this.prevInfo = undefined;
    }
    this.net = run.net;
    this.tracing = run.trace !== undefined;
  }

  /** `net.ports.get(name)`, remembering the last two answers. */
  port(name: string): PortInfo | undefined {
    if (name === this.lastName) return this.lastInfo;
    if (name === this.prevName) return this.prevInfo;
    const info = this.net.ports.get(name);
    this.prevName = this.lastName;
    this.prevInfo = this.lastInfo;
    this.lastName = name;
    this.lastInfo = info;
    return info;
  }

  /** Start a pass of `job`. */
  begin(job: Job): void {
    this.dp = job.dp as D;
    this.job = job;
    this.stage = '';
    if (job.outInfo !== undefined) {
      this.prevName = job.outport;
      this.prevInfo = job.outInfo;
    }
    if (job.inInfo !== undefined) {
      this.lastName = job.inport;
      this.lastInfo = job.inInfo;
    }
    this.ctx.begin(job.packet, job.inport, job.outport, job.carry, job.generated, job.dp.kind);
  }

  record(spec: RecordSpec): void {
    const trace = this.run.trace;
    if (trace === undefined) return;
    if (spec.ct) {
      this.run.ctLookups.push({
        datapath: this.dp.name,
        stage: this.stage,
        zone: spec.ct.zone,
        op: spec.ct.op,
        state: formatCtState(spec.ct.state),
      });
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
      ...(changes.length ? { changes: changes.map((f) => fieldChange(f, spec.before![f], this.ctx.packet[f])) } : {}),
      ...(spec.ct ? { ct: { zone: spec.ct.zone, op: spec.ct.op, state: formatCtState(spec.ct.state) } } : {}),
      ...(spec.note ? { note: spec.note } : {}),
      depth: this.job.depth,
    });
  }

  /** Drop the packet here. */
  drop(reason: string, rule?: TraceRule): 'stop' {
    if (this.run.trace !== undefined) this.record({ ...(rule ? { rule } : {}), action: 'drop', note: reason });
    this.run.drops.push(
      rule
        ? { datapath: this.dp.name, stage: this.stage, reason, rule }
        : { datapath: this.dp.name, stage: this.stage, reason },
    );
    return 'stop';
  }

  /** Hand a packet to another pass (this datapath's egress, a peer's ingress). */
  spawn(job: JobSpec): void {
    this.run.push(makeJob(job, job.depth ?? this.job.depth + 1, job.generated ?? this.ctx.generated));
  }
}

/** No port has this name (ports are named by NB rows). */
const NO_NAME = '\u0000';

export type StageFn<D extends Datapath> = (s: StageRun<D>) => 'next' | 'stop';

export interface Stage<D extends Datapath> {
  readonly name: string;
  readonly run: StageFn<D>;
  /**
   * Whether the stage can do anything on this datapath besides recording a
   * trace line; when false, untraced passes leave it out.
   */
  readonly needed: (dp: D) => boolean;
}

/** The stages a pass walks, and where each stage name starts (`startAt`). */
export interface Plan<D extends Datapath> {
  readonly stages: readonly Stage<D>[];
  /** Stage name → index in `stages` of it or, if it was left out, of the next kept stage. */
  readonly start: ReadonlyMap<string, number>;
}

/** The plan of `all` for `dp` (the stages it needs), or every stage without `dp`. */
export function planOf<D extends Datapath>(all: readonly Stage<D>[], dp?: D): Plan<D> {
  const stages: Stage<D>[] = [];
  const start = new Map<string, number>();
  const pending: string[] = [];
  for (const st of all) {
    pending.push(st.name);
    if (dp !== undefined && !st.needed(dp)) continue;
    for (const name of pending) start.set(name, stages.length);
    pending.length = 0;
    stages.push(st);
  }
  for (const name of pending) start.set(name, stages.length);
  return { stages, start };
}

/** Run a plan's stages in order until one stops the packet. */
export function runPipeline<D extends Datapath>(plan: Plan<D>, s: StageRun<D>): void {
  let i = 0;
  const startAt = s.job.startAt;
  if (startAt !== undefined) {
    const k = plan.start.get(startAt);
    if (k === undefined) throw new Error(`pipeline has no stage ${startAt}`);
    i = k;
  }
  const stages = plan.stages;
  for (; i < stages.length; i++) {
    const st = stages[i]!;
    s.stage = st.name;
    if (st.run(s) === 'stop') return;
  }
}

export type SwitchStage = Stage<SwitchDp>;
export type RouterStage = Stage<RouterDp>;

/**
 * The simulator behind the `Backend` interface. It holds the topology as a
 * value, applies plans with the model's own `applyPlan`, and compiles the
 * network lazily, once per applied plan, for probes and traces.
 */
import { applyPlan, emptyTopology, type Plan, type Topology } from '../../model/topology/index.ts';
import {
  compileNetwork,
  simulate,
  type CompileOptions,
  type SimNetwork,
  type SimResult,
  type Selector,
} from '../../sim/index.ts';
import type { ApplyOptions, ApplyResult, Backend } from '../backend.ts';
import type { ProbeRequest, ProbeVerdict, Prober } from '../probe.ts';

export interface SimBackendOptions {
  /** Start from this topology instead of an empty one. */
  readonly topology?: Topology;
  readonly compile?: CompileOptions;
}

export interface SimTraceRequest extends ProbeRequest {
  readonly select?: Selector;
}

/**
 * @example
 * const sim = new SimBackend();
 * await sim.apply(plan(await sim.read(), desired));
 * (await sim.probe({ inport: 'web-0.default', packet })).verdict; // 'delivered'
 */
export class SimBackend implements Backend, Prober {
  readonly kind = 'sim';
  private topology: Topology;
  private net: SimNetwork | undefined;
  private closed = false;

  constructor(private readonly opts: SimBackendOptions = {}) {
    this.topology = opts.topology ?? emptyTopology();
  }

  async apply(p: Plan, _opts?: ApplyOptions): Promise<ApplyResult> {
    this.assertOpen();
    // applyPlan is all-or-nothing: it throws a PlanError and leaves our topology as it was.
    this.topology = applyPlan(p, this.topology);
    this.net = undefined;
    return { operations: p.length, transactions: p.length === 0 ? 0 : 1 };
  }

  async read(): Promise<Topology> {
    this.assertOpen();
    return this.topology;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.net = undefined;
  }

  /** The compiled network of the current topology. */
  network(): SimNetwork {
    this.assertOpen();
    this.net ??= compileNetwork(this.topology, this.opts.compile);
    return this.net;
  }

  /** The full simulation result, stage by stage. */
  trace(req: SimTraceRequest): SimResult {
    return simulate(this.network(), {
      inport: req.inport,
      packet: req.packet,
      ...(req.select ? { select: req.select } : {}),
    });
  }

  async probe(req: ProbeRequest): Promise<ProbeVerdict> {
    const r = this.trace(req);
    return { verdict: r.verdict, outputs: r.outputs.map((o) => ({ outport: o.port, packet: o.packet })) };
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('SimBackend: used after close()');
  }
}
